import { randomUUID } from 'node:crypto';
import { type Client, WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import { ZunoError } from '../core/errors.js';
import {
  GOAL_CONTROL_UPDATE,
  GOAL_QUERY,
  type GoalControlRequest,
  type GoalControlResult,
  type GoalSnapshot,
  goalWorkflowId,
} from '../core/goal/contract.js';
import { isAbort } from './session-start.js';
import { asErrorCode } from '../core/error-codes.js';

/** How long a goal command waits for a worker to answer a query or take a control, in ms. */
export const GOAL_CONTACT_TIMEOUT_MS = 30_000;

/**
 * The execution status of `goal/<goalId>`'s newest run (`RUNNING`,
 * `COMPLETED`, `TERMINATED`, …), or `NOT_FOUND` when Temporal has none.
 */
export async function goalWorkflowStatus(client: Client, goalId: string): Promise<string> {
  try {
    return (await client.workflow.getHandle(goalWorkflowId(goalId)).describe()).status.name;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return 'NOT_FOUND';
    throw err;
  }
}

/**
 * The Goal as its workflow holds it now (the `goal` Query).
 * @throws ZunoError `goal_not_found` (no such workflow), `no_worker` (no
 *   worker answered within `timeoutMs`: no Zuno worker runs workflows).
 */
export async function queryGoal(
  client: Client,
  goalId: string,
  timeoutMs: number = GOAL_CONTACT_TIMEOUT_MS,
): Promise<GoalSnapshot> {
  try {
    return await client.connection.withAbortSignal(AbortSignal.timeout(timeoutMs), () =>
      client.workflow.getHandle(goalWorkflowId(goalId)).query<GoalSnapshot>(GOAL_QUERY),
    );
  } catch (err) {
    throw contactError(err, goalId, timeoutMs, 'answer');
  }
}

/** A `goalControl` request as a command builds it: the command id is added here. */
export type GoalControlAsk = GoalControlRequest extends infer R
  ? R extends GoalControlRequest
    ? Omit<R, 'commandId'>
    : never
  : never;

/**
 * Sends one person's control to the Goal (`goalControl` Update) with a fresh
 * command id; `expectedRevision` binds it to the revision the caller just
 * read (a stale one is refused). Returns the Goal's result.
 * @throws ZunoError with the workflow validator's own code (`stale_revision`,
 *   `goal_closed`, `goal_not_paused`, `goal_not_active`, `goal_blocked`,
 *   `budget_exhausted`, `no_question`, `input_invalid`) and its message;
 *   `goal_closed` when the workflow ended meanwhile; `no_worker` when no
 *   worker took it within `timeoutMs`.
 */
export async function sendGoalControl(
  client: Client,
  goalId: string,
  ask: GoalControlAsk,
  timeoutMs: number = GOAL_CONTACT_TIMEOUT_MS,
): Promise<GoalControlResult> {
  const req = { ...ask, commandId: `cmd_${randomUUID()}` } as GoalControlRequest;
  try {
    return await client.connection.withAbortSignal(AbortSignal.timeout(timeoutMs), () =>
      client.workflow
        .getHandle(goalWorkflowId(goalId))
        .executeUpdate<GoalControlResult, [GoalControlRequest]>(GOAL_CONTROL_UPDATE, { args: [req] }),
    );
  } catch (err) {
    if (err instanceof WorkflowUpdateFailedError) {
      const cause = err.cause as { type?: string; message?: string } | undefined;
      const code = asErrorCode(cause?.type) ?? 'goal_control_refused';
      const message = cause?.message ?? err.message;
      throw new ZunoError(code, message.includes(goalId) ? message : `goal ${goalId}: ${message}`);
    }
    throw contactError(err, goalId, timeoutMs, 'take the request');
  }
}

function contactError(err: unknown, goalId: string, timeoutMs: number, what: string): unknown {
  if (err instanceof WorkflowNotFoundError)
    return new ZunoError('goal_closed', `goal ${goalId} has no open workflow in Temporal (it ended)`);
  if (isAbort(err))
    return new ZunoError(
      'no_worker',
      `no worker would ${what} for goal ${goalId} within ${Math.round(timeoutMs / 1000)} s: no Zuno worker runs its workflow (start \`zuno worker\`, or resume it with \`zuno goal resume ${goalId}\`)`,
    );
  return err;
}
