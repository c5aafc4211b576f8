/** Checker of ms-plural: only index.js changed, the bug is gone, the test passes, and the session proved it. */
import { fixChecker } from '../../fix-check.js';

export const check = fixChecker({ test: 'node --test test/', allowed: ['index.js'], proof: /node --test/ });
