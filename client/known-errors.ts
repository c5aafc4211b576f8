/**
 * Known failures of Temporal's client, as Zuno's typed one-line errors
 * (issue 25): what `zuno` prints instead of `unexpected error` and a stack.
 * Recognised by the errors' names and fields only, so the CLI's entry point
 * loads no Temporal code to print them.
 */
import { ZunoError } from '../core/errors.js';
import { isTemporalUnreachable } from './temporal-outage.js';
import { asErrorCode, isErrorCode } from '../core/error-codes.js';

type Named = { name?: unknown; message?: unknown; cause?: unknown; type?: unknown; workflowId?: unknown };

/**
 * `err` as a typed Zuno error when it is a known failure, else null:
 * - `WorkflowUpdateFailedError` → the update's own failure: its ApplicationFailure
 *   type as the code when catalogued (`session_not_running`, `input_invalid`, …; `update_rejected`
 *   when it has none) and its message;
 * - `WorkflowNotFoundError` → `not_found`, naming the workflow;
 * - `WorkflowFailedError` caused by a TerminatedFailure → `workflow_terminated`,
 *   a CancelledFailure → `workflow_cancelled`, a TimeoutFailure →
 *   `workflow_timed_out`, an ApplicationFailure whose type is a catalogued
 *   code (core/error-codes.ts) → that code;
 * - Temporal unreachable (gRPC UNAVAILABLE, a `ServiceError` caused by it, a
 *   refused connection, `Channel has been shut down`) → `temporal_unreachable`
 *   naming `address` (when known) and what to do.
 * A ZunoError is returned as is. Pure.
 */
export function knownFailure(err: unknown, address?: string): ZunoError | null {
  if (err instanceof ZunoError) return err;
  if (err === null || typeof err !== 'object') return null;
  const e = err as Named;
  const cause = (e.cause ?? undefined) as Named | undefined;
  const causeMessage = firstLine(cause?.message ?? e.message);
  switch (e.name) {
    case 'WorkflowUpdateFailedError': {
      const code = asErrorCode(cause?.type) ?? 'update_rejected';
      return new ZunoError(code, `the workflow refused the request: ${causeMessage}`);
    }
    case 'WorkflowNotFoundError': {
      const id = typeof e.workflowId === 'string' && e.workflowId !== '' ? `workflow ${e.workflowId}` : 'the workflow';
      return new ZunoError('not_found', `${id} is not in Temporal (wrong id, another namespace or server, or deleted)`);
    }
    case 'WorkflowFailedError': {
      const named = failedWorkflow(cause, causeMessage);
      if (named) return named;
      break;
    }
  }
  if (isTemporalUnreachable(err)) {
    const at = address ? ` at ${address}` : '';
    return new ZunoError(
      'temporal_unreachable',
      `the Temporal server${at} did not answer (${firstLine(e.message)}): start it (\`zuno dev up\` for the embedded ` +
        'one) or point Zuno at a running one (TEMPORAL_ADDRESS, temporal.yaml server.address), then run the command again',
      address ? { address } : undefined,
    );
  }
  return null;
}

/** The typed error of a workflow that ended without a result, by the failure that ended it; null when unknown. */
function failedWorkflow(cause: Named | undefined, message: string): ZunoError | null {
  switch (cause?.name) {
    case 'TerminatedFailure':
      return new ZunoError('workflow_terminated', `the workflow was terminated (${message})`);
    case 'CancelledFailure':
      return new ZunoError('workflow_cancelled', `the workflow was cancelled (${message})`);
    case 'TimeoutFailure':
      return new ZunoError('workflow_timed_out', `the workflow timed out (${message})`);
    case 'ApplicationFailure':
      return isErrorCode(cause.type) ? new ZunoError(cause.type, message) : null;
  }
  return null;
}

/** The first line of a message, at most 300 characters. */
function firstLine(m: unknown): string {
  return String(m ?? '')
    .split('\n')[0]!
    .slice(0, 300);
}

/**
 * Whether `zuno` shows stacks: `ZUNO_DEBUG=1` (or `true`). Without it an
 * unexpected error is one line; with it the stack follows every error line.
 */
export function debugEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.ZUNO_DEBUG === '1' || env.ZUNO_DEBUG === 'true';
}
