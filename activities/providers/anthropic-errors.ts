/**
 * Anthropic error types (`{type:'error', error:{type, message}}`, sent as an
 * HTTP error body or as an `error` event inside a 200 stream) to typed
 * {@link ProviderError} codes (PR3, PR6). HTTP statuses are mapped by the
 * shared transport (`codeForHttpStatus`, e.g. 529 → `provider_unavailable`);
 * this module types the in-stream errors, which arrive with status 200.
 */
import { extractProviderError, type ProviderError } from './errors.js';
import type { ProviderErrorCode } from '../../core/provider-error-codes.js';
import type { FailureExtra } from './failure.js';

/** Code per documented Anthropic error type; any other type is `provider_unavailable` (retryable). */
const CODE_BY_TYPE: Readonly<Record<string, ProviderErrorCode>> = Object.freeze({
  invalid_request_error: 'provider_bad_request',
  not_found_error: 'provider_bad_request',
  request_too_large: 'provider_bad_request',
  billing_error: 'provider_bad_request',
  authentication_error: 'provider_auth',
  permission_error: 'provider_auth',
  rate_limit_error: 'provider_rate_limited',
  timeout_error: 'provider_timeout',
  api_error: 'provider_unavailable',
  overloaded_error: 'provider_unavailable',
});

/**
 * The code for an Anthropic error type: `invalid_request_error`,
 * `not_found_error`, `request_too_large`, `billing_error` →
 * `provider_bad_request` (never retried); `authentication_error`,
 * `permission_error` → `provider_auth`; `rate_limit_error` →
 * `provider_rate_limited`; `timeout_error` → `provider_timeout`;
 * `api_error`, `overloaded_error` and unknown or missing types →
 * `provider_unavailable` (retryable).
 */
export function codeForAnthropicErrorType(type: string | undefined): ProviderErrorCode {
  return (type !== undefined ? CODE_BY_TYPE[type] : undefined) ?? 'provider_unavailable';
}

/**
 * Type an Anthropic error payload `{type:'error', error:{type, message}}`
 * (also a bare `{type, message}`): the code from its error type, the type
 * as the diagnostic code, its message (redacted and bounded by
 * `ProviderError`) in the reason.
 *
 * @param fail builds the error with the request's redacted context (an
 *   `EventStream.fail` or an equivalent)
 * @param where words for the reason, e.g. `error inside the stream`
 */
export function anthropicError(
  payload: unknown,
  fail: (code: ProviderErrorCode, reason: string, extra?: FailureExtra) => ProviderError,
  where: string,
): ProviderError {
  const p = payload !== null && typeof payload === 'object' ? (payload as Record<string, unknown>) : {};
  const inner = (p.error !== null && typeof p.error === 'object' ? p.error : p) as Record<string, unknown>;
  const ex = extractProviderError({ error: inner });
  const type = typeof inner.type === 'string' && inner.type !== '' ? inner.type : undefined;
  const extra: FailureExtra = {};
  if (type !== undefined) extra.code = type;
  else if (ex.code !== undefined) extra.code = ex.code;
  return fail(codeForAnthropicErrorType(type), `${where}: ${ex.message ?? '(no message)'}`, extra);
}
