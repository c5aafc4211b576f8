/** Checker of escape-html-quote: only index.js changed (an edited test fails it), the pristine test passes, proven. */
import { fixChecker } from '../../fix-check.js';

export const check = fixChecker({ test: 'node --test test/', allowed: ['index.js'], proof: /node --test/ });
