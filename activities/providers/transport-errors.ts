/**
 * Classification of low-level transport failures (undici / socket errors and
 * PR5 deadlines) into typed {@link ProviderError}s. Messages name the host
 * only (PR6).
 */
import type { ProviderError } from './errors.js';
import { providerFailure, type FailureContext } from './failure.js';
import type { ProviderConfig } from './types.js';
import type { DeadlineKind } from './watchdog.js';

/** First string `code` found on an error, its `errors[]` (AggregateError) or its `cause` chain. */
export function errorCodeOf(err: unknown): string | undefined {
  if (err === null || typeof err !== 'object') return undefined;
  const e = err as { code?: unknown; errors?: unknown; cause?: unknown };
  if (typeof e.code === 'string') return e.code;
  if (Array.isArray(e.errors)) {
    for (const inner of e.errors) {
      const c = errorCodeOf(inner);
      if (c !== undefined) return c;
    }
  }
  if (e.cause !== undefined && e.cause !== err) return errorCodeOf(e.cause);
  return undefined;
}

const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EHOSTDOWN',
  'ENETDOWN',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_DESTROYED',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/**
 * PR5 timeout as `provider_timeout` (retryable): diagnostic code
 * `header_timeout` (no response headers within `cfg.headerTimeoutMs`) or
 * `chunk_timeout` (no body chunk within `cfg.chunkTimeoutMs`; `events` = SSE
 * events received before the silence, when known).
 */
export function timeoutError(
  kind: DeadlineKind,
  ctx: FailureContext,
  cfg: ProviderConfig,
  events?: number,
): ProviderError {
  return kind === 'headers'
    ? providerFailure(
        'provider_timeout',
        ctx,
        `no response headers from ${ctx.host} within ${cfg.headerTimeoutMs} ms`,
        {
          code: 'header_timeout',
        },
      )
    : providerFailure(
        'provider_timeout',
        ctx,
        `no stream chunk from ${ctx.host} within ${cfg.chunkTimeoutMs} ms${events !== undefined ? ` (after ${events} events)` : ''}`,
        { code: 'chunk_timeout' },
      );
}

/**
 * Classify an error raised before the response headers arrived:
 * undici header/body timeouts → `provider_timeout`; connect timeout,
 * refused/reset/DNS failures → `provider_connection` (retryable); malformed
 * HTTP (`HPE_*`, header overflow) → `provider_protocol`; invalid request
 * options → `provider_bad_request`; anything else → `provider_connection`.
 */
export function requestError(err: unknown, ctx: FailureContext, cfg: ProviderConfig): ProviderError {
  const code = errorCodeOf(err);
  switch (code) {
    case 'UND_ERR_HEADERS_TIMEOUT':
      return timeoutError('headers', ctx, cfg);
    case 'UND_ERR_BODY_TIMEOUT':
      return timeoutError('chunk', ctx, cfg);
    case 'UND_ERR_CONNECT_TIMEOUT':
      return providerFailure('provider_connection', ctx, `connect timeout to ${ctx.host}`, { code: 'connect_timeout' });
    case 'UND_ERR_HEADERS_OVERFLOW':
    case 'UND_ERR_RES_EXCEEDED_MAX_SIZE':
      return providerFailure('provider_protocol', ctx, `malformed HTTP response from ${ctx.host} (${code})`, { code });
    case 'UND_ERR_INVALID_ARG':
      return providerFailure('provider_bad_request', ctx, 'invalid request options', { code });
    default:
      break;
  }
  if (code !== undefined && code.startsWith('HPE_')) {
    return providerFailure('provider_protocol', ctx, `malformed HTTP response from ${ctx.host} (${code})`, { code });
  }
  if (code !== undefined && CONNECTION_CODES.has(code)) {
    const what =
      code === 'ECONNREFUSED'
        ? 'connection refused'
        : code === 'ENOTFOUND' || code === 'EAI_AGAIN'
          ? 'host name did not resolve'
          : code === 'UND_ERR_SOCKET' || code === 'ECONNRESET'
            ? 'connection closed before the response'
            : 'connection failed';
    return providerFailure('provider_connection', ctx, `${what}: ${ctx.host} (${code})`, { code });
  }
  const name = err instanceof Error ? err.name : typeof err;
  return providerFailure(
    'provider_connection',
    ctx,
    `request to ${ctx.host} failed (${code ?? name})`,
    code !== undefined ? { code } : {},
  );
}

/**
 * Classify an error raised while reading the body of a 2xx stream before its
 * terminal marker (PR4): undici body timeout → `provider_timeout`; anything
 * else → `upstream_stream_incomplete` (retryable; the caller discards the
 * partial output).
 *
 * @param terminal words naming the surface's terminal marker, e.g. `finish_reason or [DONE]`
 */
export function streamBreakError(
  err: unknown,
  ctx: FailureContext,
  cfg: ProviderConfig,
  events: number,
  terminal: string,
): ProviderError {
  const code = errorCodeOf(err);
  if (code === 'UND_ERR_BODY_TIMEOUT') return timeoutError('chunk', ctx, cfg, events);
  return providerFailure(
    'upstream_stream_incomplete',
    ctx,
    `stream from ${ctx.host} broke after ${events} events without ${terminal} (${code ?? (err instanceof Error ? err.name : 'error')})`,
    { code: 'stream_incomplete' },
  );
}
