/**
 * The provider failure codes (PR3–PR6) and whether each may be retried: the
 * part of the provider error model that is plain data, shared by the
 * provider adapters (activities/providers/errors.ts `ProviderError`) and the
 * CLI's log filter. Each code is in the catalogue (core/error-codes.ts):
 * `ProviderError.code` narrows `ZunoError.code` to this union.
 */

/** Stable codes of provider failures. */
export type ProviderErrorCode =
  /** 401/403, or the configured API key variable is unset. Not retryable (PR3: pause). */
  | 'provider_auth'
  /** 400/404/413/422 and other non-transient 4xx. Not retryable (PR3: a 400 is never blindly retried). */
  | 'provider_bad_request'
  /** 429. Retryable; honours `Retry-After` (PR2). */
  | 'provider_rate_limited'
  /** 5xx (and 409), or an error object sent inside the stream. Retryable. */
  | 'provider_unavailable'
  /** PR4: the stream ended (or broke) without `finish_reason` or `[DONE]`. Retryable; partial output is discarded. */
  | 'upstream_stream_incomplete'
  /** PR5: response headers or the next body chunk did not arrive in time (also HTTP 408). Retryable. */
  | 'provider_timeout'
  /** Connection refused / reset / DNS failure / connect timeout before any response. Retryable. */
  | 'provider_connection'
  /**
   * CP8: the provider refused the request as larger than the model's context
   * window (OpenAI `context_length_exceeded`, Anthropic `prompt is too long` /
   * `request_too_large`). Not retried as is: the workflow compacts first.
   */
  | 'provider_context_limit'
  /** Unparseable stream, chunk JSON or non-SSE success body. Not retryable (PR3: invalid protocol → block). */
  | 'provider_protocol'
  /** `finish_reason: content_filter` with no text and no tool calls: typed terminal refusal, not retryable (PR3). */
  | 'content_filtered';

/** Retry verdict per code (the single source of truth for `ProviderError.retryable`). */
export const RETRYABLE_BY_CODE: Readonly<Record<ProviderErrorCode, boolean>> = Object.freeze({
  provider_auth: false,
  provider_bad_request: false,
  provider_rate_limited: true,
  provider_unavailable: true,
  upstream_stream_incomplete: true,
  provider_timeout: true,
  provider_connection: true,
  provider_context_limit: false,
  provider_protocol: false,
  content_filtered: false,
});
