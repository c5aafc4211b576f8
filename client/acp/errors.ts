/**
 * JSON-RPC errors of `zuno acp` (SF9, SF12; the codes beyond -32005 are a
 * SEED-GAP decided here and listed in docs/acp.md "Errors"). Every failure
 * a handler meets becomes one of these, never a crash of the process.
 */
import { RequestError } from '@agentclientprotocol/sdk';
import { messageWithoutCode, ZunoError } from '../../core/errors.js';
import { knownFailure } from '../known-errors.js';
import type { PromptEnd } from '../surface/index.js';

/** SF9: the prompt was admitted, but the turn stopped at an execution gate (paused): recovery is needed. */
export const EXECUTION_GATED = -32005;
/** A Zuno refusal or failure (`data.code` names the Zuno error code); -32000 is ACP's auth error, so not that. */
export const ZUNO_ERROR = -32010;
/** The prompt's turn ended failed or blocked (`data.status`, `data.code`). */
export const TURN_FAILED = -32011;
/** ACP's resource-not-found code, used for an unknown session. */
export const NOT_FOUND = -32002;

/** Zuno codes that mean the request's parameters are wrong (-32602). */
const INVALID_PARAMS: ReadonlySet<string> = new Set([
  'session_id_invalid',
  'input_rejected',
  'workspace_invalid',
  'agent_invalid',
  'model_invalid',
  'options_conflict',
  'usage_error',
]);

/**
 * The JSON-RPC error for a failure: a RequestError as it is; a ZunoError
 * (or a known Temporal failure) as -32002 (`session_not_found`), -32602
 * (bad parameters) or -32010, with `data: {code}`; anything else -32603 with
 * its first line (a bug in zuno: the process goes on).
 */
export function toRequestError(err: unknown): RequestError {
  if (err instanceof RequestError) return err;
  const known = err instanceof ZunoError ? err : knownFailure(err, undefined);
  if (known) {
    const message = messageWithoutCode(known.message, known.code);
    if (known.code === 'session_not_found') return new RequestError(NOT_FOUND, message, { code: known.code });
    const code = INVALID_PARAMS.has(known.code) ? -32602 : ZUNO_ERROR;
    return new RequestError(code, message, { code: known.code });
  }
  const first = String((err as Error)?.message ?? err).split('\n')[0];
  return RequestError.internalError({ code: 'unexpected' }, first);
}

/**
 * The error a prompt whose turn did not complete answers with: -32005 for a
 * paused turn (SF9: `admission: accepted`, `reason: executionGated`,
 * `recoveryRequired: true`, the receipt — the client must not resend), -32011
 * for a failed or blocked one. null for `completed`, `interrupted` and
 * `cancelled` (those answer with a stop reason).
 */
export function promptEndError(end: PromptEnd, receipt: unknown): RequestError | null {
  if (end.status === 'paused') {
    return new RequestError(EXECUTION_GATED, `the turn paused: ${end.error?.message ?? 'a person must act'}`, {
      admission: 'accepted',
      reason: 'executionGated',
      recoveryRequired: true,
      receipt,
      ...(end.error ? { code: end.error.code } : {}),
    });
  }
  if (end.status === 'failed' || end.status === 'blocked') {
    return new RequestError(TURN_FAILED, `the turn ${end.status}: ${end.error?.message ?? 'no reason recorded'}`, {
      status: end.status,
      code: end.error?.code ?? null,
    });
  }
  return null;
}
