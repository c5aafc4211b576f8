/**
 * The context every transport failure is built from (PR6): which provider,
 * which host (never the full URL), which secrets to scrub, and what is known
 * so far about the response (status, request id).
 */
import { contextLimitOf, ProviderError } from './errors.js';
import { RETRYABLE_BY_CODE, type ProviderErrorCode } from '../../core/provider-error-codes.js';

/** What a {@link ProviderError} built during one request may say about it. */
export interface FailureContext {
  /** Configured provider id (not a secret). */
  providerId: string;
  /** `host[:port]` of the endpoint; the only part of the URL a diagnostic shows. */
  host: string;
  /** Strings scrubbed from every text: the API key, URL userinfo and query string. */
  secrets: string[];
  /** Provider request id once known (`x-request-id`/`request-id` header, else a body id). */
  requestId?: string;
  /** HTTP status once the response headers arrived. */
  status?: number;
}

/** Optional fields of a failure beyond its reason. */
export interface FailureExtra {
  /** HTTP (or HTTP-like, from an error body) status; default `ctx.status`. */
  status?: number;
  /** Provider or transport error code (e.g. `rate_limit_exceeded`, `chunk_timeout`). */
  code?: string;
  /** Server-requested delay in ms; kept only when `code` is retryable. */
  retryAfterMs?: number;
}

/**
 * Build a typed {@link ProviderError} carrying a PR6 diagnostic (status,
 * code, request id, reason), redacted with `ctx.secrets` and bounded by
 * `ProviderError` itself. A `provider_bad_request` or `provider_unavailable`
 * whose provider code or reason names a context-limit error (errors.ts
 * `contextLimitOf`) becomes `provider_context_limit` with the figures (CP8).
 *
 * @param code stable error code (decides `retryable`)
 * @param ctx request context (host only, never the URL)
 * @param reason short human text; must not contain a raw body
 */
export function providerFailure(
  code: ProviderErrorCode,
  ctx: FailureContext,
  reason: string,
  extra: FailureExtra = {},
): ProviderError {
  const diagnostic: { status?: number; code?: string; requestId?: string; reason: string } = { reason };
  const status = extra.status ?? ctx.status;
  if (status !== undefined) diagnostic.status = status;
  if (extra.code !== undefined) diagnostic.code = extra.code;
  if (ctx.requestId !== undefined) diagnostic.requestId = ctx.requestId;
  const init: ConstructorParameters<typeof ProviderError>[1] = {
    diagnostic,
    providerId: ctx.providerId,
    secrets: ctx.secrets,
  };
  // CP8: an explicit context-limit error (HTTP or inside the stream) is its own code, with the provider's figures.
  const limit =
    code === 'provider_bad_request' || code === 'provider_unavailable' ? contextLimitOf(extra.code, reason) : undefined;
  if (limit !== undefined) {
    init.contextLimit = limit;
    return new ProviderError('provider_context_limit', init);
  }
  if (extra.retryAfterMs !== undefined && RETRYABLE_BY_CODE[code]) init.retryAfterMs = extra.retryAfterMs;
  return new ProviderError(code, init);
}

/** The rejection value for an aborted `signal`: its reason, or a DOM-style `AbortError`. */
export function abortReason(signal: AbortSignal | undefined): unknown {
  if (signal === undefined) return undefined;
  return signal.reason ?? Object.assign(new Error('The operation was aborted'), { name: 'AbortError' });
}
