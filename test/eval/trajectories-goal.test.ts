import { describe, it } from 'vitest';
import { expectCheckerSeparates } from './helpers.js';

/**
 * The eval's delegated search and Goal with a slow check (docs/eval.md): each
 * checker passes the recorded passing trajectory and fails the failing one for
 * its recorded reason (no `task` child; a Goal paused without the slow
 * check's receipt). Real CLI (`zuno run`, `zuno goal start`), the suite's
 * Temporal dev server, real SQLite.
 */
describe('eval delegation and Goal tasks: checkers against recorded trajectories', () => {
  it.concurrent.each(['kleur-delegate', 'bytes-goal'])(
    '%s: the passing trajectory passes, the failing one fails',
    async (id) => {
      await expectCheckerSeparates(id);
    },
    240_000,
  );
});
