/** Checker of fast-deep-equal-keys: both builds fixed (the bug's text gone from each), the test passes, proven. */
import { fixChecker } from '../../fix-check.js';

export const check = fixChecker({
  test: 'node --test test/',
  allowed: ['index.js', 'es6/index.js'],
  proof: /node --test/,
});
