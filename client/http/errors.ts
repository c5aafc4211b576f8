/**
 * How `zuno serve` answers a failure (issue 29, SF6): every failure is the
 * JSON body `{error: {code, message}}` with a status that says what kind of
 * failure it is — never a stack trace. A ZunoError keeps its code; a known
 * Temporal failure becomes its typed code (client/known-errors.ts); anything
 * else is `internal_error` (500), with the stack written to the server's
 * own stderr for its operator only.
 */
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { ZunoError } from '../../core/errors.js';
import { knownFailure } from '../known-errors.js';
import { temporalAddressInUse } from '../temporal-outage.js';

/** The body of every failed response. */
export interface ErrorBody {
  error: { code: string; message: string };
}

/** HTTP statuses the error mapping uses. */
export type ErrorStatus = 400 | 401 | 404 | 409 | 413 | 429 | 500 | 503;

/** Codes that are conflicts with the current state (409), beyond the `*_stale_revision`/`*_conflict`/`already_*` families. */
const CONFLICT = new Set([
  'session_paused',
  'session_not_running',
  'session_delegated',
  'session_closed',
  'session_not_paused',
  'approval_ambiguous',
  'question_ambiguous',
  'question_session_ending',
  'goal_closed',
  'goal_not_active',
  'council_closed',
]);

/** Codes of an unavailable dependency (503): Temporal, a worker, the projection. */
const UNAVAILABLE = new Set(['temporal_unreachable', 'no_worker', 'projection_unavailable', 'home_lock_timeout']);

/**
 * The HTTP status of an error code: 401 `unauthorized`, 404 `*_not_found`,
 * 409 conflicts and stale revisions, 413 `body_too_large`, 429
 * `rate_limited`, 503 an unavailable dependency, 500 `internal_error`, 400
 * everything else (bad input). Pure.
 */
export function statusOf(code: string): ErrorStatus {
  if (code === 'unauthorized') return 401;
  if (code === 'body_too_large') return 413;
  if (code === 'rate_limited') return 429;
  if (code === 'internal_error') return 500;
  if (code.endsWith('_not_found') || code === 'not_found') return 404;
  if (UNAVAILABLE.has(code)) return 503;
  if (CONFLICT.has(code) || code.endsWith('stale_revision') || code.endsWith('_conflict') || /_already_/.test(code))
    return 409;
  return 400;
}

/** `{error: {code, message}}`. Pure. */
export function errorBody(code: string, message: string): ErrorBody {
  return { error: { code, message } };
}

/**
 * The typed form of any thrown value: a ZunoError as is, a known Temporal
 * failure as its code, anything else `internal_error` (its stack goes to
 * `log`, never to the client).
 */
export function typedFailure(err: unknown, log: (line: string) => void): ZunoError {
  if (err instanceof ZunoError) return err;
  // Hono's own refusals (malformed JSON in a body): bad input, said in its words.
  if (err instanceof HTTPException && err.status < 500)
    return new ZunoError(err.status === 413 ? 'body_too_large' : 'request_invalid', err.message || 'bad request');
  const known = knownFailure(err, temporalAddressInUse());
  if (known) return known;
  log(`zuno serve: unexpected error: ${String((err as Error)?.stack ?? err)}`);
  return new ZunoError('internal_error', 'an unexpected error inside zuno serve (its log has the details)');
}

/** A JSON error response for `err` (see {@link typedFailure}, {@link statusOf}). */
export function errorResponse(c: Context, err: unknown, log: (line: string) => void): Response {
  const e = typedFailure(err, log);
  return c.json(errorBody(e.code, e.message), statusOf(e.code));
}
