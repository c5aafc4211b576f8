import {
  ApplicationFailure,
  CancelledFailure,
  ChildWorkflowFailure,
  ParentClosePolicy,
  ChildWorkflowCancellationType,
  TerminatedFailure,
  TimeoutFailure,
  startChild,
  workflowInfo,
  type ChildWorkflowHandle,
} from '@temporalio/workflow';
import type { ChildEnd } from '../core/delegation/contract.js';
import { sessionWorkflowId } from '../core/ids.js';
import {
  DEFAULT_AGENT,
  ZunoAgent,
  ZunoKind,
  ZunoModel,
  ZunoParentSession,
  ZunoRootSession,
  ZunoSessionId,
  ZunoStatus,
} from '../core/search-attributes.js';
import type { SessionMeta, SessionWorkflowInput } from '../core/session/meta.js';
import type { SessionResult } from '../core/session/outcome.js';
import { markdownLiteral } from '../core/ui-text.js';

/** The session workflow's type name (started by name: this module does not import the session workflow). */
const SESSION_WORKFLOW = 'sessionWorkflow';

/** How a child session is started (see {@link startChildSession}). */
export interface ChildSessionStart {
  meta: SessionMeta;
  /** The child's first input: admitted to its inbox by its start (it drives the first turn). */
  prompt: string;
  /** The Temporal UI's summary of the child (`task explore: find the parser`, `seat 2/3 security-review · 3 m 12 s left`). */
  summary: string;
  /**
   * `WAIT_CANCELLATION_COMPLETED` (default): cancelling the scope waits until
   * the child has closed; `TRY_CANCEL`: the request is sent and the wait ends
   * at once (a Council seat settled at its deadline, DC26).
   */
  cancellationType?: ChildWorkflowCancellationType;
}

/**
 * Starts a child `session` workflow, id `session/<childId>` (issue 12,
 * DC1–DC4): on the parent's workflow task queue, its first input carried
 * in its start (no update-with-start from a workflow: the input is already
 * admitted, `in_0`, `driven`), `exitWhenIdle` (it closes after its turn),
 * search attributes `ZunoKind=session`, `ZunoAgent`, `ZunoParentSession`,
 * `ZunoRootSession`. The child is cancelled — not abandoned — when the
 * parent closes (`REQUEST_CANCEL`), and cancelling the caller's scope asks it
 * to stop (the session workflow turns a cancellation into an interrupt and
 * closes Cancelled). Resolves once the child has started.
 */
export async function startChildSession(
  start: ChildSessionStart,
): Promise<ChildWorkflowHandle<(i: SessionWorkflowInput) => Promise<SessionResult>>> {
  const { meta } = start;
  const link = meta.delegation;
  const input: SessionWorkflowInput = {
    meta,
    exitWhenIdle: true,
    carried: {
      nextTurn: 0,
      nextInputSeq: 1,
      pending: [{ inputId: 'in_0', text: start.prompt, admission: 'driven', admittedAtMs: Date.now() }],
      seenClientIds: [],
      lastFinalText: null,
    },
  };
  return startChild<(i: SessionWorkflowInput) => Promise<SessionResult>>(SESSION_WORKFLOW, {
    workflowId: sessionWorkflowId(meta.sessionId),
    taskQueue: workflowInfo().taskQueue,
    args: [input],
    parentClosePolicy: ParentClosePolicy.REQUEST_CANCEL,
    cancellationType: start.cancellationType ?? ChildWorkflowCancellationType.WAIT_CANCELLATION_COMPLETED,
    staticSummary: markdownLiteral(start.summary),
    staticDetails: markdownLiteral(
      `${meta.agent ?? DEFAULT_AGENT} · model ${meta.provider.id}/${meta.model} · workspace ${meta.workspace}` +
        (link ? ` · delegated by ${link.parentSessionId} (depth ${link.depth})` : ''),
    ),
    typedSearchAttributes: [
      { key: ZunoKind, value: 'session' },
      { key: ZunoSessionId, value: meta.sessionId },
      { key: ZunoModel, value: `${meta.provider.id}/${meta.model}` },
      { key: ZunoAgent, value: meta.agent ?? DEFAULT_AGENT },
      { key: ZunoStatus, value: 'running' },
      ...(link
        ? [
            { key: ZunoParentSession, value: link.parentSessionId },
            { key: ZunoRootSession, value: link.rootSessionId },
          ]
        : []),
    ],
  });
}

/** How a child session ended, from its workflow's result (completed / interrupted). */
export function childEndOfResult(r: SessionResult): ChildEnd {
  if (r.status === 'completed') return { status: 'completed' };
  return { status: r.status, ...(r.error ? { code: r.error.code, message: r.error.message } : {}) };
}

/**
 * How a child session ended, from the failure its handle's `result()`
 * rejected with: a failed/paused/blocked session (ApplicationFailure with
 * its SessionResult), a cancelled one (`cancelled`), a terminated or timed
 * out one (`uncertain`: its work may have happened; nothing says how it ended).
 */
export function childEndOfFailure(err: unknown): ChildEnd {
  const cause = err instanceof ChildWorkflowFailure ? err.cause : err;
  if (cause instanceof CancelledFailure) return { status: 'cancelled', message: cause.message };
  if (cause instanceof ApplicationFailure) {
    const d = cause.details?.[0] as Partial<SessionResult> | undefined;
    const status = d?.status === 'failed' || d?.status === 'blocked' || d?.status === 'paused' ? d.status : 'failed';
    return { status, code: cause.type ?? 'session_failed', message: cause.message };
  }
  if (cause instanceof TerminatedFailure)
    return { status: 'uncertain', code: 'TerminatedFailure', message: cause.message };
  if (cause instanceof TimeoutFailure) return { status: 'uncertain', code: 'TimeoutFailure', message: cause.message };
  const e = cause as Error | undefined;
  return { status: 'uncertain', code: e?.name ?? 'unknown', message: e?.message ?? String(cause) };
}
