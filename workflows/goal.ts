import { defineQuery, defineSignal, defineUpdate, setHandler } from '@temporalio/workflow';
import {
  GOAL_CONTROL_UPDATE,
  GOAL_QUERY,
  GOAL_REQUEST_INPUT_UPDATE,
  GOAL_TURN_SIGNAL,
  GOAL_UPDATE_UPDATE,
  type GoalControlRequest,
  type GoalControlResult,
  type GoalRequestInputRequest,
  type GoalRequestInputResult,
  type GoalSnapshot,
  type GoalTurnReport,
  type GoalUpdateRequest,
  type GoalUpdateResult,
  type GoalWorkflowInput,
} from '../core/goal/contract.js';
import { GoalMachine } from './goal-machine.js';

/** Update: the `goal_update` tool settles criteria and/or completes the Goal, atomically (GL30). */
export const goalUpdateUpdate = defineUpdate<GoalUpdateResult, [GoalUpdateRequest]>(GOAL_UPDATE_UPDATE);
/** Update: a person pauses, resumes (Resume goal / Keep paused), cancels, answers, edits or re-budgets the Goal. */
export const goalControlUpdate = defineUpdate<GoalControlResult, [GoalControlRequest]>(GOAL_CONTROL_UPDATE);
/** Update: the `goal_request_input` tool makes the Goal wait for a required answer (GL39). */
export const goalRequestInputUpdate = defineUpdate<GoalRequestInputResult, [GoalRequestInputRequest]>(
  GOAL_REQUEST_INPUT_UPDATE,
);
/** Signal (session → goal): one of the session's turns started, ended, or a continuation was void. */
export const goalTurnSignal = defineSignal<[GoalTurnReport]>(GOAL_TURN_SIGNAL);
/** Query: the Goal as it stands. */
export const goalQuery = defineQuery<GoalSnapshot>(GOAL_QUERY);

/**
 * The `goal` workflow, id `goal/<goalId>` (DESIGN.md §3 Goal row, GL1–GL40).
 * Thin: the handlers hand over to {@link GoalMachine}. Completes with the
 * final snapshot when the Goal completes or is cancelled; every other
 * status keeps it open (a paused Goal waits as long as it takes).
 */
export async function goalWorkflow(input: GoalWorkflowInput): Promise<GoalSnapshot> {
  const machine = new GoalMachine(input);
  setHandler(goalTurnSignal, (r) => machine.onTurn(r));
  setHandler(goalQuery, () => machine.query());
  setHandler(goalControlUpdate, (r) => machine.control(r), { validator: (r) => machine.validateControl(r) });
  setHandler(goalUpdateUpdate, (r) => machine.update(r));
  setHandler(goalRequestInputUpdate, (r) => machine.requestInput(r));
  return machine.run();
}
