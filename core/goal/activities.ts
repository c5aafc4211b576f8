import type { GoalSnapshot, GoalTransition } from './contract.js';

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
}
