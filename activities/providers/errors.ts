/**
 * Typed provider failures (PR3, PR4, PR5, PR6).
 *
 * Every failure of a model request surfaces as one {@link ProviderError} with a
 * stable `code`, a `retryable` verdict, an optional server-requested delay
 * (`retryAfterMs`, from a valid `Retry-After` header) and a bounded, redacted
 * {@link ProviderDiagnostic}. The caller (the `modelStep` activity) turns these
 * into Temporal terms; this module only classifies.
 *
 * PR6: nothing built here ever contains an API key, an `Authorization` header,
 * a URL with its query string or userinfo, or a raw response body. The only
 * body text that can appear is the short `error.message` extracted from a JSON
 * error body, redacted and cut to {@link MAX_REASON_CHARS} characters.
 */
import { ZunoError } from '../../core/errors.js';
import { redact } from '../infra/redact.js';
import type { ProviderDiagnostic } from './types.js';
import { RETRYABLE_BY_CODE, type ProviderErrorCode } from '../../core/provider-error-codes.js';

/** PR6: upper bound of `diagnostic.reason` (characters). */
export const MAX_REASON_CHARS = 300;
/** Upper bound of the provider error `code` copied into a diagnostic (characters). */
const MAX_CODE_CHARS = 80;
/** Upper bound of a request id copied into a diagnostic (characters). */
const MAX_REQUEST_ID_CHARS = 200;

/** Options of {@link ProviderError}. */
export interface ProviderErrorInit {
  /** Diagnostic; `reason` is redacted and bounded again here, whatever the caller passed. */
  diagnostic: ProviderDiagnostic;
  /** Server-requested delay before a retry, ms (only from a valid `Retry-After`). */
  retryAfterMs?: number;
  /** Configured provider id (e.g. `openrouter`), for messages. Not a secret. */
  providerId?: string;
  /** Extra strings to scrub from every text (e.g. the API key). Never stored. */
  secrets?: readonly string[];
  /** CP8: a context-limit error's figures, parsed from the provider's message (code `provider_context_limit`). */
  contextLimit?: ContextLimitFigures;
}

/** CP8: the provider's own figures of a context-limit error, in tokens (absent when its message does not say). */
export interface ContextLimitFigures {
  used?: number;
  limit?: number;
}

/**
 * A classified provider failure. `code` is stable; branch on it (or on
 * `retryable`), never on `message`.
 *
 * - `retryable`: whether the same request may be replayed (from {@link RETRYABLE_BY_CODE}).
 * - `retryAfterMs`: delay in ms the server asked for (`Retry-After`), only when valid.
 * - `diagnostic`: PR6 bounded/redacted status, provider error code, request id, reason (≤ 300 chars).
 *
 * `message` is `"provider <id>: <reason>"` (just the reason without a
 * provider id) and obeys the same redaction; it never repeats `code`, so a
 * surface printing `<code>: <message>` says the code once.
 */
export class ProviderError extends ZunoError {
  declare readonly code: ProviderErrorCode;
  readonly retryable: boolean;
  readonly retryAfterMs?: number;
  readonly diagnostic: ProviderDiagnostic;
  /** CP8: set on a `provider_context_limit` error (possibly empty when the message gave no figures). */
  readonly contextLimit?: ContextLimitFigures;

  constructor(code: ProviderErrorCode, init: ProviderErrorInit) {
    const diagnostic = sanitizeDiagnostic(init.diagnostic, init.secrets ?? []);
    const where =
      init.providerId !== undefined ? `provider ${redact(init.providerId, init.secrets ?? []).slice(0, 60)}: ` : '';
    const retryAfterMs =
      init.retryAfterMs !== undefined && Number.isFinite(init.retryAfterMs) && init.retryAfterMs >= 0
        ? Math.round(init.retryAfterMs)
        : undefined;
    const details: Record<string, unknown> = { diagnostic, retryable: RETRYABLE_BY_CODE[code] };
    if (retryAfterMs !== undefined) details.retryAfterMs = retryAfterMs;
    if (init.providerId !== undefined) details.providerId = init.providerId;
    if (init.contextLimit !== undefined) details.contextLimit = init.contextLimit;
    super(code, `${where}${diagnostic.reason}`, details);
    this.name = 'ProviderError';
    this.retryable = RETRYABLE_BY_CODE[code];
    if (retryAfterMs !== undefined) this.retryAfterMs = retryAfterMs;
    this.diagnostic = diagnostic;
    if (init.contextLimit !== undefined) this.contextLimit = init.contextLimit;
  }
}

/** Provider error codes (`error.code` / Anthropic error type) that name a request over the context window. */
const CONTEXT_LIMIT_CODES = new Set(['context_length_exceeded', 'request_too_large', 'string_above_max_length']);
/** Messages that name a request over the context window (OpenAI, Anthropic, common OpenAI-compatible servers). */
const CONTEXT_LIMIT_TEXT = /maximum context length|context_length_exceeded|prompt is too long|request_too_large/i;

/**
 * CP8: whether a provider failure is an explicit context-limit error, and
 * its figures: OpenAI `context_length_exceeded` ("This model's maximum
 * context length is L tokens. However, your messages resulted in U
 * tokens…"), Anthropic `prompt is too long: U tokens > L maximum` and
 * `request_too_large`. `code` is the provider's error code or type, `text`
 * its message. Undefined when it is not one; `{}` when it is one without figures.
 */
export function contextLimitOf(code: string | undefined, text: string | undefined): ContextLimitFigures | undefined {
  const t = text ?? '';
  if (!(code !== undefined && CONTEXT_LIMIT_CODES.has(code)) && !CONTEXT_LIMIT_TEXT.test(t)) return undefined;
  const num = (s: string | undefined) => (s === undefined ? undefined : Number(s.replace(/[,_\s]/g, '')));
  const out: ContextLimitFigures = {};
  const anthropic = /(\d[\d,]*) tokens? > (\d[\d,]*)/.exec(t);
  const limit = anthropic?.[2] ?? /maximum context length is (\d[\d,]*)/i.exec(t)?.[1];
  const used =
    anthropic?.[1] ?? /resulted in (\d[\d,]*) tokens/i.exec(t)?.[1] ?? /requested (\d[\d,]*) tokens/i.exec(t)?.[1];
  if (num(limit) !== undefined && Number.isFinite(num(limit))) out.limit = num(limit)!;
  if (num(used) !== undefined && Number.isFinite(num(used))) out.used = num(used)!;
  return out;
}

/** True when `err` is a {@link ProviderError} (also across module copies: checks `name` + `code`). */
export function isProviderError(err: unknown): err is ProviderError {
  return (
    err instanceof ProviderError ||
    (err instanceof Error &&
      err.name === 'ProviderError' &&
      typeof (err as { code?: unknown }).code === 'string' &&
      (err as unknown as { code: string }).code in RETRYABLE_BY_CODE)
  );
}

/**
 * Parse a `Retry-After` header value (RFC 9110 §10.2.3) into a delay in ms.
 *
 * Accepts delta-seconds (`"3"` → 3000; digits only, no sign or fraction) or an
 * HTTP-date (`"Wed, 21 Oct 2015 07:28:00 GMT"` → ms until that instant, 0 if
 * already past). Anything else (empty, negative, fractional, garbage, an
 * array of conflicting values) yields `undefined` and is ignored (PR2 honours
 * only a valid value; clamping to the retry max is the caller's job).
 *
 * @param value header value as received (undici may give a string or string[])
 * @param nowMs current time in ms since the epoch (injectable for tests)
 */
export function parseRetryAfter(
  value: string | readonly string[] | undefined | null,
  nowMs: number = Date.now(),
): number | undefined {
  if (value === undefined || value === null) return undefined;
  let raw: string;
  if (typeof value === 'string') raw = value;
  else if (value.length === 1 && typeof value[0] === 'string') raw = value[0];
  else return undefined;
  const v = raw.trim();
  if (v === '') return undefined;
  if (/^\d+$/.test(v)) {
    const seconds = Number(v);
    if (!Number.isSafeInteger(seconds)) return undefined;
    return seconds * 1000;
  }
  // HTTP-date: IMF-fixdate and the two obsolete forms all carry a weekday name and "GMT"/a year.
  if (!/^[A-Za-z]{3,9},? /.test(v)) return undefined;
  const at = Date.parse(v);
  if (!Number.isFinite(at)) return undefined;
  return Math.max(0, at - nowMs);
}

/**
 * Map an HTTP status of a failed (non-2xx) response to a code.
 *
 * 401/403 → `provider_auth`; 408 → `provider_timeout`; 429 → `provider_rate_limited`;
 * 409 and every 5xx → `provider_unavailable`; any other status (400, 404, 413, 422, …)
 * → `provider_bad_request`.
 */
export function codeForHttpStatus(status: number): ProviderErrorCode {
  if (status === 401 || status === 403) return 'provider_auth';
  if (status === 408) return 'provider_timeout';
  if (status === 429) return 'provider_rate_limited';
  if (status === 409 || (status >= 500 && status <= 599)) return 'provider_unavailable';
  return 'provider_bad_request';
}

/**
 * HTTP statuses OpenAI-style APIs answer with for the error codes they also
 * send inside a stream (Chat Completions and Responses alike), so an in-stream
 * error is typed like the same error over HTTP
 * (e.g. `rate_limit_exceeded` → 429 → `provider_rate_limited`). Codes not
 * listed keep the transport's default (`provider_unavailable`, retryable).
 */
export const STATUS_OF_ERROR_CODE: Readonly<Record<string, number>> = Object.freeze({
  rate_limit_exceeded: 429,
  insufficient_quota: 429,
  server_error: 500,
  server_is_overloaded: 503,
  invalid_prompt: 400,
  context_length_exceeded: 400,
  invalid_request_error: 400,
  authentication_error: 401,
  permission_error: 403,
  rate_limit_error: 429,
  overloaded_error: 503,
});

/** The short, safe parts of a provider's JSON error body. */
export interface ExtractedProviderError {
  /** `error.message` (or top-level `message`/`detail`), untrimmed; redact before use. */
  message?: string;
  /** `error.code` (string or number, stringified), else `error.type`. */
  code?: string;
  /** A numeric HTTP-like status inside the body (`error.status` / numeric `error.code`), if any. */
  status?: number;
}

/**
 * Extract the provider error message and code from a parsed JSON error body.
 * Understands OpenAI (`{error:{message,type,code}}`), OpenRouter
 * (`{error:{code:429,message}}`), string errors (`{error:"..."}`) and
 * FastAPI-style `{detail:"..."}` / `{message:"..."}`. Never returns the raw body.
 */
export function extractProviderError(body: unknown): ExtractedProviderError {
  const out: ExtractedProviderError = {};
  if (body === null || typeof body !== 'object') return out;
  const b = body as Record<string, unknown>;
  const e = b.error;
  if (typeof e === 'string') {
    out.message = e;
  } else if (e !== null && typeof e === 'object') {
    const eo = e as Record<string, unknown>;
    if (typeof eo.message === 'string') out.message = eo.message;
    if (typeof eo.code === 'string' && eo.code !== '') out.code = eo.code;
    else if (typeof eo.code === 'number' && Number.isInteger(eo.code)) {
      out.code = String(eo.code);
      if (eo.code >= 100 && eo.code <= 599) out.status = eo.code;
    }
    if (out.code === undefined && typeof eo.type === 'string' && eo.type !== '') out.code = eo.type;
    if (typeof eo.status === 'number' && Number.isInteger(eo.status) && eo.status >= 100 && eo.status <= 599) {
      out.status = eo.status;
    }
  }
  if (out.message === undefined) {
    if (typeof b.message === 'string') out.message = b.message;
    else if (typeof b.detail === 'string') out.message = b.detail;
  }
  if (out.code === undefined && typeof b.code === 'string' && b.code !== '') out.code = b.code;
  return out;
}

/** Redact and cut a text to at most `max` characters (an ellipsis marks a cut). */
export function boundedReason(text: string, secrets: readonly string[] = [], max: number = MAX_REASON_CHARS): string {
  const r = redact(text, secrets).trim();
  if (r.length <= max) return r;
  return `${r.slice(0, max - 1)}…`;
}

/** Re-apply the PR6 bounds to a diagnostic (idempotent). */
export function sanitizeDiagnostic(d: ProviderDiagnostic, secrets: readonly string[] = []): ProviderDiagnostic {
  const out: ProviderDiagnostic = { reason: boundedReason(d.reason, secrets) };
  if (d.status !== undefined && Number.isInteger(d.status)) out.status = d.status;
  if (d.code !== undefined && d.code !== '') out.code = boundedReason(d.code, secrets, MAX_CODE_CHARS);
  if (d.requestId !== undefined && d.requestId !== '')
    out.requestId = boundedReason(d.requestId, secrets, MAX_REQUEST_ID_CHARS);
  return out;
}
