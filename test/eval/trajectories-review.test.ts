import { describe, it } from 'vitest';
import { expectCheckerSeparates } from './helpers.js';

/**
 * The eval's multi-file fix, Council review and read-only question
 * (docs/eval.md): each checker passes the recorded passing trajectory and
 * fails the failing one for its recorded reason. Real CLI (`zuno run`,
 * `zuno council run`), the suite's Temporal dev server, real SQLite.
 */
describe('eval review tasks: checkers against recorded trajectories', () => {
  it.concurrent.each(['fast-deep-equal-keys', 'semver-gt-council', 'picomatch-posix-plan'])(
    '%s: the passing trajectory passes, the failing one fails',
    async (id) => {
      await expectCheckerSeparates(id);
    },
    240_000,
  );
});
