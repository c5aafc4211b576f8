import type { SessionMeta } from '../session/meta.js';
import type { GoalSnapshot, GoalTransition } from './contract.js';
import type { WatchProbeInput, WatchProbeResult } from './watch.js';

/** Input of the `recordGoal` activity: the Goal as it now stands, and a notice (GL17 `budget.<kind>`) when one is due. */
export interface RecordGoalInput {
  snapshot: GoalSnapshot;
  notice?: { code: string; message: string };
  /** Status transitions since the last record (issue 26 item 7), appended to the row's audit trail; absent: none. */
  transitions?: GoalTransition[];
}

/** Activities the `goal` workflow calls (implemented in activities/goal/), on its session's route. */
export interface GoalActivities {
  /** Writes the Goal's projection row and a `goal.status` event (plus the notice) to its session's events; idempotent by revision. */
  recordGoal(input: RecordGoalInput): Promise<void>;
  /** One check of a release watch (issue 31): a short guarded fetch judged against the condition; never throws for an HTTP or network failure. */
  watchProbe(input: WatchProbeInput): Promise<WatchProbeResult>;
  /** Starts a watched Goal's session with its first input once the watch reported (idempotent by goal id). */
  startGoalSession(input: StartGoalSessionInput): Promise<{ started: boolean }>;
}

/** Input of `startGoalSession`: the session's meta (bound to the Goal) and its first input, the objective with the watch's report. */
export interface StartGoalSessionInput {
  goalId: string;
  /** The workflow task queue the session runs on (the Goal's own). */
  taskQueue: string;
  meta: SessionMeta;
  text: string;
}
