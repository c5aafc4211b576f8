import { ZunoError } from '../../core/errors.js';
import { TERMINAL_GOAL_STATUSES } from '../../core/goal/status.js';
import type { GoalRow, ProjectionStore } from '../../activities/projection/index.js';
import { resolvePaths, type ZunoPaths } from '../context.js';
import { checkGoalId } from '../goal-id.js';
import { processSink } from '../render.js';
import type { Sink } from '../sink.js';
import { openExistingStore } from '../session-target.js';
import { liveGoalDetails } from './goal-live.js';
import { renderGoal } from './goal-show-view.js';
import { goalWorkState } from './goal-work-state.js';
import { followGoalFromShow } from './goal-show-follow.js';

/**
 * `zuno goal show <id> [--json]`: one Goal from the projection — objective,
 * status and reason, revision, budgets used and left, criteria with their
 * evidence receipts, turns, its session — and, for a Goal that has not
 * ended, what Temporal says now (execution status and current details,
 * asked without starting anything; goal-live.ts), and every status
 * transition (the audit trail, issue 26 item 7). `--json` prints
 * `{goal: GoalSnapshot, session, live, workState, transitions}` — the
 * transitions as a list of their own (not repeated inside `goal`). `--follow` then follows
 * a Goal at work until it stops (`goal-show-follow.ts`; exit codes as `goal
 * start`'s); with `--json` it prints the event stream only.
 * @throws ZunoError `usage_error` for a malformed id, `goal_not_found` naming an id the projection does not hold.
 */
export async function goalShowCommand(
  goalId: string,
  opts: { json?: boolean; follow?: boolean },
  sink: Sink = processSink,
): Promise<number> {
  checkGoalId(goalId);
  const paths = resolvePaths();
  const store = await openExistingStore(paths);
  try {
    const first = store ? await store.getGoal(goalId) : null;
    if (!store || !first) throw new ZunoError('goal_not_found', `no goal ${goalId} in Zuno's home ${paths.home}`);
    // Following goes on from the events after this view (read first: nothing between is missed).
    const after = await store.lastEventSeq(first.sessionId);
    const { goal, bare, session, live, workState, transitions } = await goalShowData(paths, store, first);
    // With --json --follow the view is not printed: stdout is the NDJSON event stream.
    if (!(opts.json && opts.follow))
      sink.out(
        opts.json
          ? `${JSON.stringify({ goal: bare, session, live, workState, transitions }, null, 2)}\n`
          : renderGoal({ goal, session, live, workState }, Date.now()),
      );
    if (!opts.follow || !session) return 0;
    return await followGoalFromShow({ paths, store, goalId, session, after, json: opts.json === true, sink });
  } finally {
    await store?.close();
  }
}

/**
 * What `zuno goal show` shows of a Goal whose row is `first` (read again,
 * so the newest revision is shown): the snapshot (`bare`: without its
 * transitions), its session row, what Temporal says now for a Goal that has
 * not ended (`live`), its work state and its transitions — for the CLI and
 * `zuno serve` (`GET /goals/{id}` answers `{goal: bare, session, live, workState, transitions}`).
 */
export async function goalShowData(paths: ZunoPaths, store: ProjectionStore, first: GoalRow) {
  const row = (await store.getGoal(first.id)) ?? first;
  const goal = row.snapshot;
  const { transitions = [], ...bare } = goal;
  const session = await store.getSession(row.sessionId);
  const workState = await goalWorkState(store, row.sessionId);
  const live = TERMINAL_GOAL_STATUSES.has(goal.state.status) ? null : await liveGoalDetails(paths, first.id);
  return { goal, bare, session, live, workState, transitions };
}
