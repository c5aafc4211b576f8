import { randomBytes } from 'node:crypto';
import {
  ApplicationFailure,
  type Client,
  WorkflowFailedError,
  type WorkflowHandle,
  WorkflowNotFoundError,
} from '@temporalio/client';
import { ZunoError } from '../core/errors.js';
import { ZunoStatus } from '../core/search-attributes.js';
import { sessionWorkflowId } from '../core/ids.js';
import { endedWords } from './session-reconcile.js';
import type { AdmissionReceipt } from '../core/session/inbox.js';
import type { InterruptReceipt, InterruptRequest, SubmitInputRequest } from '../core/session/updates.js';
import type { SessionMeta, CarriedState } from '../core/session/meta.js';
import type { SessionResult } from '../core/session/outcome.js';
import { INTERRUPT_UPDATE, SUBMIT_INPUT_UPDATE } from '../core/session/updates.js';
import { startSessionWorkflow, withClientMessageId } from '../activities/session/index.js';

export { checkSessionId } from './session-id.js';
export { titleOf, withClientMessageId } from '../activities/session/index.js';

/**
 * Starts the session workflow `session/<id>` and admits the first input
 * (activities/session/start-session.ts), with the session's result as a
 * promise-returning function. @throws what {@link startSessionWorkflow} throws.
 */
export async function startSession(
  client: Client,
  taskQueue: string,
  meta: SessionMeta,
  first: SubmitInputRequest,
  opts: { exitWhenIdle: boolean; reopen?: CarriedState },
): Promise<{ receipt: AdmissionReceipt; workflowId: string; result(): Promise<SessionResult> }> {
  const { receipt, workflowId, handle } = await startSessionWorkflow(client, taskQueue, meta, first, opts);
  return { receipt, workflowId, result: () => sessionResultOf(handle) };
}

/** A new session id: `ses_` + time (base36) + 8 random hex chars; sortable by creation time. */
export function newSessionId(): string {
  return `ses_${Date.now().toString(36)}${randomBytes(4).toString('hex')}`;
}

/**
 * The result of a session workflow, however it ended: a completed or
 * interrupted session completes with its SessionResult; a failed, paused or
 * blocked one fails with an ApplicationFailure (type = Zuno error code) whose
 * first detail is the SessionResult, which this returns.
 * @throws WorkflowFailedError for any other failure (terminated, timed out, a
 *   failure without a SessionResult); whatever `handle.result()` throws otherwise.
 */
export async function sessionResultOf(handle: WorkflowHandle): Promise<SessionResult> {
  try {
    return (await handle.result()) as SessionResult;
  } catch (err) {
    if (err instanceof WorkflowFailedError && err.cause instanceof ApplicationFailure) {
      const d = err.cause.details?.[0] as Partial<SessionResult> | undefined;
      if (d && typeof d.sessionId === 'string' && typeof d.status === 'string') return d as SessionResult;
    }
    throw err;
  }
}

/**
 * Admits one more input to a running session (SE1) through the `submitInput`
 * update and returns its admission receipt: `driven`, `steered` (a running
 * turn takes it at its next step) or `pending`. A repeated `clientMessageId`
 * returns the original receipt with `duplicate: true`.
 * @throws WorkflowUpdateFailedError when the validator rejects the input; WorkflowNotFoundError for an unknown session.
 */
export async function submitInput(
  client: Client,
  sessionId: string,
  req: SubmitInputRequest,
): Promise<AdmissionReceipt> {
  return client.workflow
    .getHandle(sessionWorkflowId(sessionId))
    .executeUpdate<AdmissionReceipt, [SubmitInputRequest]>(SUBMIT_INPUT_UPDATE, { args: [withClientMessageId(req)] });
}

/** How long `interruptSession` waits for a worker to take the interrupt, in ms. */
export const INTERRUPT_DELIVERY_TIMEOUT_MS = 30_000;

/**
 * Hard-interrupts a session's running turn (TD10, SH5) through the
 * `interrupt` update: every running call is cancelled and gets the 2 s
 * cooperative window; what has not settled 3.5 s (INTERRUPT_FORCE_AFTER_MS)
 * later is recorded forced + uncertain; calls not started yet are recorded
 * not run. With no turn running it stops the session's background tasks.
 * Returns at once with what the session was doing.
 * @throws ZunoError `session_not_found` (no such workflow), `session_not_running`
 *   (its latest run is closed: the one line says how it ended — interrupted,
 *   completed, terminated in Temporal…), `no_worker` (no worker took the update within `timeoutMs`).
 */
export async function interruptSession(
  client: Client,
  sessionId: string,
  source: string,
  timeoutMs: number = INTERRUPT_DELIVERY_TIMEOUT_MS,
): Promise<InterruptReceipt> {
  const handle = client.workflow.getHandle(sessionWorkflowId(sessionId));
  const described = await describeSessionRun(client, sessionId);
  if (!described) throw new ZunoError('session_not_found', `no session ${sessionId} in Temporal`);
  const { status, zunoStatus } = described;
  if (status !== 'RUNNING') {
    throw new ZunoError(
      'session_not_running',
      `session ${sessionId} is not running: it ${endedWords(status, zunoStatus)}; there is nothing to interrupt`,
    );
  }
  try {
    return await client.connection.withAbortSignal(AbortSignal.timeout(timeoutMs), () =>
      handle.executeUpdate<InterruptReceipt, [InterruptRequest]>(INTERRUPT_UPDATE, { args: [{ source }] }),
    );
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) {
      throw new ZunoError('session_not_running', `session ${sessionId} ended before the interrupt arrived`);
    }
    if (isAbort(err)) {
      throw new ZunoError(
        'no_worker',
        `no worker took the interrupt within ${Math.round(timeoutMs / 1000)} s: the session has no running worker ` +
          '(start `zuno worker`); the interrupt may still apply when one picks the session up',
      );
    }
    throw err;
  }
}

/** true for the error an aborted gRPC call raises (a call given up by its AbortSignal). */
export function isAbort(err: unknown): boolean {
  const e = err as { name?: string; code?: number; message?: string; cause?: unknown };
  return (
    e?.name === 'AbortError' ||
    e?.code === 1 /* grpc CANCELLED */ ||
    /abort|cancel/i.test(e?.message ?? '') ||
    (e?.cause !== undefined && e.cause !== err && isAbort(e.cause))
  );
}

/**
 * The execution status of a session's latest run (`RUNNING`, `COMPLETED`,
 * `TERMINATED`, …) and its last `ZunoStatus`, or null when Temporal does not
 * know the session. @throws other Temporal errors (an unreachable server).
 */
export async function describeSessionRun(
  client: Client,
  sessionId: string,
): Promise<{ status: string; zunoStatus: string | undefined } | null> {
  try {
    const d = await client.workflow.getHandle(sessionWorkflowId(sessionId)).describe();
    return { status: d.status.name, zunoStatus: d.typedSearchAttributes.get(ZunoStatus) };
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return null;
    throw err;
  }
}
