import { describe, it } from 'vitest';
import { expectCheckerSeparates } from './helpers.js';

/**
 * The eval's fix tasks (docs/eval.md): each checker passes the task's recorded
 * passing trajectory and fails its failing one for the reason it was recorded
 * for. Real CLI (`zuno run`), the suite's Temporal dev server, real SQLite,
 * the vendored tarballs; the tasks run side by side.
 */
describe('eval fix tasks: checkers against recorded trajectories', () => {
  it.concurrent.each(['ms-plural', 'escape-html-quote', 'is-number-blank'])(
    '%s: the passing trajectory passes, the failing one fails',
    async (id) => {
      await expectCheckerSeparates(id);
    },
    240_000,
  );
});
