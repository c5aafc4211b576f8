import {
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  WorkflowUpdateRPCTimeoutOrCancelledError,
  type Client,
} from '@temporalio/client';
import { ZunoError } from '../core/errors.js';
import { sessionWorkflowId } from '../core/ids.js';
import type { ErrorCode } from '../core/error-codes.js';
import { asErrorCode } from '../core/error-codes.js';

/** How long a person's decision or answer waits for a worker to take it before the CLI gives up saying so, in ms. */
export const SESSION_UPDATE_WAIT_MS = 20_000;
/** After this long without an answer the CLI says it is waiting for a worker, in ms. */
const NOTICE_AFTER_MS = 3_000;

/** One person's Update to a session workflow (an approval decision, a question's answer). */
export interface SessionUpdate<A> {
  sessionId: string;
  /** What it is about, for messages: `approval ap_0_0_1`, `question q_0_0_1`. */
  about: string;
  update: string;
  args: A;
  updateId: string;
  /** The error code of a refusal without a type of its own. */
  invalidCode: ErrorCode;
  /** What to do when the session has ended (appended to `session_not_running`). */
  endedHint: string;
  /** Default {@link SESSION_UPDATE_WAIT_MS}. */
  waitMs?: number;
  /** Gets one progress line when no worker has answered after a few seconds. */
  notify?: (line: string) => void;
}

/**
 * Sends a person's Update to a session workflow and waits — boundedly — for
 * its result.
 * @throws ZunoError: the workflow's typed refusal (its ApplicationFailure
 *   type, or `invalidCode`); `session_not_running` when the workflow has
 *   ended; `no_worker` when no worker took it within the wait (the server may
 *   still deliver it when one comes, which the message says).
 */
export async function sendSessionUpdate<R, A>(client: Client, u: SessionUpdate<A>): Promise<R> {
  const handle = client.workflow.getHandle(sessionWorkflowId(u.sessionId));
  const waitMs = u.waitMs ?? SESSION_UPDATE_WAIT_MS;
  const notice = setTimeout(
    () => u.notify?.(`waiting for a worker of session ${u.sessionId} to take it…`),
    NOTICE_AFTER_MS,
  );
  const deadline = Date.now() + waitMs;
  try {
    return await client.withDeadline(deadline, () =>
      handle.executeUpdate<R, [A]>(u.update, { args: [u.args], updateId: u.updateId }),
    );
  } catch (err) {
    if (err instanceof WorkflowUpdateFailedError) {
      const cause = err.cause as { type?: string; message?: string } | undefined;
      throw new ZunoError(asErrorCode(cause?.type) ?? u.invalidCode, cause?.message ?? err.message);
    }
    // gRPC reports a passed deadline as DEADLINE_EXCEEDED or, when its timer wins the race, as CANCELLED
    // (the SDK's WorkflowUpdateRPCTimeoutOrCancelledError, "Call cancelled"): both are the wait running out.
    if (isDeadline(err) || (err instanceof WorkflowUpdateRPCTimeoutOrCancelledError && Date.now() >= deadline))
      throw new ZunoError(
        'no_worker',
        `no worker took ${u.about} within ${waitMs / 1000} s: start \`zuno worker\` (or \`zuno session resume ${u.sessionId}\`); ` +
          'the server may still deliver it when a worker comes — list it again to see whether it applied',
      );
    if (err instanceof WorkflowNotFoundError || /already completed|not found/i.test(String(err)))
      throw new ZunoError('session_not_running', `session ${u.sessionId} is no longer running: ${u.endedHint}`);
    throw err;
  } finally {
    clearTimeout(notice);
  }
}

/** true for a gRPC DEADLINE_EXCEEDED (code 4), however the SDK wraps it. */
function isDeadline(err: unknown): boolean {
  for (let e: unknown = err; e; e = (e as { cause?: unknown }).cause) {
    if ((e as { code?: unknown }).code === 4 || /deadline exceeded/i.test(String((e as Error).message ?? '')))
      return true;
  }
  return false;
}
