import type { AdmissionReceipt } from '../core/session/inbox.js';
import type { SessionPhase } from '../core/session/state.js';
import type { SubmitInputRequest } from '../core/session/updates.js';
import { utf8ByteLength } from '../core/utf8.js';
import type { ClientIdTable } from './client-ids.js';

/**
 * Largest accepted input text, in UTF-8 bytes. The text travels in the
 * Update's payload and, while queued, in the continue-as-new payload, both
 * under Temporal's 2 MiB payload limit; a larger text would fail the
 * workflow task over and over instead of being refused.
 */
export const MAX_INPUT_BYTES = 512 * 1024;
/** Most UTF-8 bytes of input text the inbox holds while inputs wait (carried across continue-as-new). */
export const MAX_QUEUED_BYTES = 1024 * 1024;
/** The fields a `submitInput` payload may carry. */
const INPUT_FIELDS = new Set(['text', 'clientMessageId']);

/** What the session looks like to an arriving input. */
export interface AdmissionView {
  phase: SessionPhase;
  /** true while a running turn will still take a steered input at its next step (SE1). */
  turnTakesSteering: boolean;
  /** Inputs already waiting in the inbox. */
  queued: number;
  /** UTF-8 bytes of the texts waiting in the inbox. */
  queuedBytes: number;
  clientIds: ClientIdTable;
  /** The receipt an earlier run gave this very Update (redelivered across continue-as-new), if any. */
  redelivered?: AdmissionReceipt;
}

/** The decision for one `submitInput` Update (SE1, SE2). */
export type AdmissionDecision =
  | {
      kind: 'reject';
      code: 'input_invalid' | 'session_closed' | 'session_paused' | 'client_ids_exhausted' | 'inbox_full';
      message: string;
    }
  | { kind: 'duplicate'; receipt: AdmissionReceipt }
  | { kind: 'admit'; status: AdmissionReceipt['status'] };

/**
 * Input admission (SE1, SE2), one pure function: rejects a malformed payload
 * or an input for a session that is ending; returns the original receipt for
 * an Update delivered again or a client message id seen before (never a
 * second admission); otherwise admits with the status the receipt reports:
 * `steered` when a running turn will take it at its next step, `driven` when
 * it drives the next turn at once, `pending` when it queues behind others.
 * An Update delivered again (temporalio/temporal#6375) gets its first
 * receipt unchanged (`duplicate: false`: it is the same request); a resent
 * client message id is a new request and gets the original receipt with
 * `duplicate: true`.
 * Called by the Update's validator (a `reject` throws there, nothing is
 * recorded) and again by its handler.
 */
export function decideAdmission(req: unknown, view: AdmissionView): AdmissionDecision {
  if (typeof req !== 'object' || req === null || Array.isArray(req)) {
    return { kind: 'reject', code: 'input_invalid', message: 'input must be an object {text, clientMessageId?}' };
  }
  const unknown = Object.keys(req).find((k) => !INPUT_FIELDS.has(k));
  if (unknown !== undefined) {
    return {
      kind: 'reject',
      code: 'input_invalid',
      message: `input.${unknown.slice(0, 60)} is not a field of an input (text, clientMessageId)`,
    };
  }
  const { text, clientMessageId } = req as Partial<Record<keyof SubmitInputRequest, unknown>>;
  if (typeof text !== 'string' || text.trim() === '') {
    return { kind: 'reject', code: 'input_invalid', message: 'input.text must be a non-empty string' };
  }
  const bytes = utf8ByteLength(text);
  if (bytes > MAX_INPUT_BYTES) {
    return {
      kind: 'reject',
      code: 'input_invalid',
      message: `input.text is ${bytes} bytes; at most ${MAX_INPUT_BYTES} bytes (UTF-8) are accepted — put large material in a file and refer to it`,
    };
  }
  if (clientMessageId !== undefined && (typeof clientMessageId !== 'string' || clientMessageId === '')) {
    return {
      kind: 'reject',
      code: 'input_invalid',
      message: 'input.clientMessageId must be a non-empty string when given',
    };
  }
  // The same Update delivered again: its caller never saw the first answer, so it gets that answer as it was.
  if (view.redelivered) return { kind: 'duplicate', receipt: view.redelivered };
  const seen = clientMessageId !== undefined ? view.clientIds.lookup(clientMessageId) : undefined;
  if (seen) return { kind: 'duplicate', receipt: seen };
  if (view.phase === 'paused') {
    return {
      kind: 'reject',
      code: 'session_paused',
      message:
        'the session is paused until its cause is fixed; resume it (zuno session resume) before sending more input',
    };
  }
  if (view.phase === 'closed' || view.phase === 'blocked') {
    return { kind: 'reject', code: 'session_closed', message: `the session is ${view.phase}; it takes no more input` };
  }
  if (view.queuedBytes + bytes > MAX_QUEUED_BYTES) {
    return {
      kind: 'reject',
      code: 'inbox_full',
      message: `the session already holds ${view.queuedBytes} bytes of waiting input (at most ${MAX_QUEUED_BYTES}); send it again once the queue drains`,
    };
  }
  if (clientMessageId !== undefined && view.clientIds.full()) {
    return {
      kind: 'reject',
      code: 'client_ids_exhausted',
      message: 'this session has remembered as many client message ids as it can; start a new session',
    };
  }
  return { kind: 'admit', status: admissionStatusOf(view) };
}

/**
 * The admission status of an input that is admitted now (SE1): `steered`
 * while a running turn will take it at its next step, else `driven` when
 * nothing waits before it, else `pending`. Also used for background reports
 * the workflow admits itself (BG6).
 */
export function admissionStatusOf(
  view: Pick<AdmissionView, 'turnTakesSteering' | 'queued'>,
): AdmissionReceipt['status'] {
  return view.turnTakesSteering ? 'steered' : view.queued === 0 ? 'driven' : 'pending';
}
