import { ZunoError } from '../../core/errors.js';
import { TERMINAL_GOAL_STATUSES } from '../../core/goal/status.js';
import type { GoalRow, ProjectionStore, SessionRow } from '../../activities/projection/index.js';
import { connectTemporal, type Notify, type TemporalContext, type ZunoPaths } from '../context.js';
import { goalWorkflowStatus } from '../goal-client.js';
import { checkGoalId } from '../goal-id.js';
import { openExistingStore } from '../session-target.js';

/** A Goal a control command acts on, as the projection holds it. */
export interface GoalTarget {
  store: ProjectionStore;
  row: GoalRow;
  session: SessionRow;
}

/**
 * Finds the Goal a command names, from the projection only (nothing is
 * created, Temporal is not contacted): a Goal that completed or was
 * cancelled is refused here.
 * @throws ZunoError `usage_error` (malformed id), `goal_not_found`,
 *   `goal_closed` (completed or cancelled: nothing can change it),
 *   `session_not_found` (the Goal's session row is missing).
 */
export async function openGoalTarget(goalId: string, paths: ZunoPaths): Promise<GoalTarget> {
  checkGoalId(goalId);
  const store = await openExistingStore(paths);
  try {
    const row = store ? await store.getGoal(goalId) : null;
    if (!store || !row) throw new ZunoError('goal_not_found', `no goal ${goalId} in Zuno's home ${paths.home}`);
    const st = row.snapshot.state;
    if (TERMINAL_GOAL_STATUSES.has(st.status)) {
      throw new ZunoError(
        'goal_closed',
        `goal ${goalId} is ${st.status}${st.status === 'cancelled' ? ` (by ${st.by})` : ''}; nothing can change it now — start a new goal with zuno goal start "…"`,
      );
    }
    const session = await store.getSession(row.sessionId);
    if (!session)
      throw new ZunoError('session_not_found', `goal ${goalId}'s session ${row.sessionId} is not in the projection`);
    return { store, row, session };
  } catch (err) {
    await store?.close();
    throw err;
  }
}

/**
 * Connects to Temporal for a Goal found by {@link openGoalTarget} (starting
 * the dev server when that is the configured target) and checks that its
 * workflow is still open.
 * @throws ZunoError `goal_closed` when Temporal has no open run of it
 *   (it ended, was terminated, or the server lost it); set-up errors of `connectTemporal`.
 */
export async function connectGoal(
  paths: ZunoPaths,
  goalId: string,
  notify: Notify,
): Promise<{ temporal: TemporalContext; baseQueue: string }> {
  const temporal = await connectTemporal(paths, notify);
  try {
    const status = await goalWorkflowStatus(temporal.client, goalId);
    if (status !== 'RUNNING') {
      throw new ZunoError(
        'goal_closed',
        status === 'NOT_FOUND'
          ? `goal ${goalId} has no workflow in Temporal at ${temporal.address} (another server, or its history was removed)`
          : `goal ${goalId}'s workflow has ended (${status.toLowerCase().replace('_', ' ')}); start a new goal with zuno goal start "…"`,
      );
    }
    return { temporal, baseQueue: temporal.baseQueue };
  } catch (err) {
    await temporal.connection.close().catch(() => undefined);
    throw err;
  }
}
