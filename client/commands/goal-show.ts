import { ZunoError } from '../../core/errors.js';
import { TERMINAL_GOAL_STATUSES } from '../../core/goal/status.js';
import { resolvePaths } from '../context.js';
import { checkGoalId } from '../goal-id.js';
import { processSink, type Sink } from '../render.js';
import { openExistingStore } from '../session-target.js';
import { liveGoalDetails } from './goal-live.js';
import { renderGoal } from './goal-show-view.js';
import { goalWorkState } from './goal-work-state.js';

/**
 * `zuno goal show <id> [--json]`: one Goal from the projection — objective,
 * status and reason, revision, budgets used and left, criteria with their
 * evidence receipts, turns, its session — and, for a Goal that has not
 * ended, what Temporal says now (execution status and current details,
 * asked without starting anything; goal-live.ts). `--json` prints
 * `{goal: GoalSnapshot, session, live, workState}`.
 * @throws ZunoError `usage_error` for a malformed id, `goal_not_found` naming an id the projection does not hold.
 */
export async function goalShowCommand(goalId: string, opts: { json?: boolean }, sink: Sink = processSink) {
  checkGoalId(goalId);
  const paths = resolvePaths();
  const store = await openExistingStore(paths);
  try {
    const row = store ? await store.getGoal(goalId) : null;
    if (!store || !row) throw new ZunoError('goal_not_found', `no goal ${goalId} in Zuno's home ${paths.home}`);
    const goal = row.snapshot;
    const session = await store.getSession(row.sessionId);
    const workState = await goalWorkState(store, row.sessionId);
    const live = TERMINAL_GOAL_STATUSES.has(goal.state.status) ? null : await liveGoalDetails(paths, goalId);
    sink.out(
      opts.json
        ? `${JSON.stringify({ goal, session, live, workState }, null, 2)}\n`
        : renderGoal({ goal, session, live, workState }, Date.now()),
    );
  } finally {
    await store?.close();
  }
}
