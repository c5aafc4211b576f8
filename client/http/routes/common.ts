/**
 * Pieces every route declaration of `zuno serve` shares: JSON request and
 * response content, and the documented failures (`{error: {code,
 * message}}`) by status.
 */
import type { z } from '@hono/zod-openapi';
import { ErrorSchema } from '../schemas.js';

/** What each failure status means, for the OpenAPI document. */
const FAILURE_WORDS = {
  400: 'bad input (request_invalid, *_invalid, usage_error, …)',
  401: 'no valid token (unauthorized)',
  404: 'not found (*_not_found)',
  409: 'conflict with the current state (*_stale_revision, *_already_*, *_conflict, session_not_running, …)',
  413: 'body too large (body_too_large)',
  429: 'rate limited (rate_limited)',
  503: 'Temporal or a worker is unavailable (temporal_unreachable, no_worker)',
} as const;

/** A failure status a route documents. */
export type FailureStatus = keyof typeof FAILURE_WORDS;

/** The documented failure responses of a route: the given statuses plus 401 and 429, which every route can answer. */
export function failures<S extends FailureStatus>(...statuses: S[]) {
  const out = {} as Record<
    S | 401 | 429,
    { description: string; content: { 'application/json': { schema: typeof ErrorSchema } } }
  >;
  for (const s of [...statuses, 401, 429] as (S | 401 | 429)[])
    out[s] = { description: FAILURE_WORDS[s], content: { 'application/json': { schema: ErrorSchema } } };
  return out;
}

/** A JSON response of `schema`. */
export function jsonContent<T extends z.ZodType>(schema: T, description: string) {
  return { description, content: { 'application/json': { schema } } };
}

/** A required JSON request body of `schema`. */
export function jsonBody<T extends z.ZodType>(schema: T) {
  return { required: true, content: { 'application/json': { schema } } };
}
