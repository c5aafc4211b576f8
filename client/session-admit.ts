/**
 * Admitting input to a session, shared by `zuno run` and the surfaces
 * (`zuno acp`, `zuno serve`): whether the session's workflow runs, listing a
 * new or reopened session before any worker takes a step, and admitting the
 * input to the open run or by starting a run (SE1, SE2).
 */
import { WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import { sessionWorkflowId } from '../core/ids.js';
import { ZunoError } from '../core/errors.js';
import { asErrorCode } from '../core/error-codes.js';
import { DEFAULT_AGENT_NAME } from '../core/agents.js';
import type { AdmissionReceipt } from '../core/session/inbox.js';
import type { SessionMeta, SessionRoute } from '../core/session/meta.js';
import type { SessionResult } from '../core/session/outcome.js';
import type { SubmitInputRequest } from '../core/session/updates.js';
import type { ProjectionStore, SessionRow } from '../activities/projection/index.js';
import type { TemporalContext } from './context.js';
import { sessionResultOf, startSession, submitInput } from './session-start.js';
import { reopenState } from './session-target.js';

/** An admitted input: its receipt, the session's workflow and its run's result. */
export interface AdmittedInput {
  receipt: AdmissionReceipt;
  workflowId: string;
  /** The session run's result (however it ended); see session-start.ts `sessionResultOf`. */
  result(): Promise<SessionResult>;
}

/**
 * Whether the session's workflow has an open run; its route is the one the
 * projection recorded (the route of a running session does not change here).
 */
export async function runningSession(
  temporal: TemporalContext,
  row: SessionRow,
): Promise<{ route: SessionRoute | undefined } | null> {
  try {
    const d = await temporal.client.workflow.getHandle(sessionWorkflowId(row.id)).describe();
    if (d.status.name !== 'RUNNING') return null;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return null;
    throw err;
  }
  if (!row.host || !row.taskQueue) return { route: undefined };
  return {
    route: {
      host: row.host,
      taskQueue: row.taskQueue,
      servedBy: row.taskQueue.includes('/session/') ? 'run' : 'worker',
    },
  };
}

/**
 * The session row as the CLI knows it at start: listed at once (status
 * running, route), before any worker has taken a step. The worker's first
 * model step of each turn writes it again.
 */
export async function recordSessionStart(
  store: ProjectionStore,
  meta: SessionMeta,
  existing: SessionRow | null,
): Promise<void> {
  const now = Date.now();
  await store.upsertSession({
    id: meta.sessionId,
    workflowId: sessionWorkflowId(meta.sessionId),
    workspace: meta.workspace,
    provider: meta.provider.id,
    model: meta.model,
    status: 'running',
    title: meta.title,
    host: meta.route?.host ?? null,
    taskQueue: meta.route?.taskQueue ?? null,
    agent: meta.agent ?? DEFAULT_AGENT_NAME,
    ...(existing ? { finalText: existing.finalText ?? null, error: null } : {}),
    createdAtMs: existing?.createdAtMs ?? now,
    updatedAtMs: now,
  });
}

/**
 * Admits the prompt: to the open run of a running session (`submitInput`),
 * else by starting a run — a new session, or a new run of a closed one
 * carrying its state from the projection (same workflow id).
 * `clientMessageId` (SE2) makes a resend return the original receipt.
 * @throws ZunoError with the session's own rejection code (`session_paused`,
 *   `input_invalid`, …) when it refuses the input.
 */
export async function admitInput(
  store: ProjectionStore,
  temporal: TemporalContext,
  meta: SessionMeta,
  prompt: string,
  live: boolean,
  existing: SessionRow | null,
  clientMessageId?: string,
): Promise<AdmittedInput> {
  const req = clientMessageId !== undefined ? { text: prompt, clientMessageId } : { text: prompt };
  if (live) return admitToOpenRun(temporal, meta.sessionId, req);
  if (existing) await refuseBeforeWatchReport(store, existing.id);
  try {
    const reopen = existing ? await reopenState(store, existing) : undefined;
    return await startSession(temporal.client, temporal.baseQueue, meta, req, {
      exitWhenIdle: true,
      ...(reopen ? { reopen } : {}),
    });
  } catch (err) {
    throw refusalOf(err, meta.sessionId);
  }
}

/**
 * Issue 31: the session of a watched Goal is started by the Goal when its
 * watch reports; a prompt before that would start it early, past the watch.
 * @throws ZunoError `session_not_started` naming the Goal.
 */
async function refuseBeforeWatchReport(store: ProjectionStore, sessionId: string): Promise<void> {
  const goal = await store.goalOfSession(sessionId);
  const w = goal?.snapshot.watch;
  if (!goal || !w || w.sessionStarted) return;
  throw new ZunoError(
    'session_not_started',
    `session ${sessionId} belongs to goal ${goal.id}, which waits on its release watch: the session starts when the watch reports (zuno goal show ${goal.id}; zuno goal cancel ${goal.id} to drop it)`,
  );
}

/**
 * Admits input to the open run of a running session (`submitInput`, SE1);
 * a repeated `clientMessageId` returns the original receipt (SE2).
 * @throws ZunoError with the session's own rejection code when it refuses the input.
 */
export async function admitToOpenRun(
  temporal: TemporalContext,
  sessionId: string,
  req: SubmitInputRequest,
): Promise<AdmittedInput> {
  const workflowId = sessionWorkflowId(sessionId);
  try {
    const receipt = await submitInput(temporal.client, sessionId, req);
    return { receipt, workflowId, result: () => sessionResultOf(temporal.client.workflow.getHandle(workflowId)) };
  } catch (err) {
    throw refusalOf(err, sessionId);
  }
}

/** A refused Update as a ZunoError with the session's own code (`session_paused`, `input_invalid`, …); other errors as they are. */
function refusalOf(err: unknown, sessionId: string): unknown {
  if (!(err instanceof WorkflowUpdateFailedError)) return err;
  const cause = err.cause as { type?: string; message?: string } | undefined;
  const code = asErrorCode(cause?.type) ?? 'input_rejected';
  return new ZunoError(code, `session ${sessionId} refused the input: ${cause?.message ?? err.message}`);
}
