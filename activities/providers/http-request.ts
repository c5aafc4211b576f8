/**
 * One provider HTTP request up to its 2xx response headers (PR2, PR3, PR5,
 * PR6): authentication header per surface, the PR5 header deadline, and the
 * mapping of every non-2xx answer to a typed {@link ProviderError} (with
 * `Retry-After`). Shared by the SSE and the JSON transports.
 */
import { request, type Dispatcher } from 'undici';
import { codeForHttpStatus, extractProviderError, parseRetryAfter } from './errors.js';
import { urlSecrets } from './endpoint.js';
import { abortReason, providerFailure, type FailureContext, type FailureExtra } from './failure.js';
import { requestError, timeoutError } from './transport-errors.js';
import type { ProviderConfig } from './types.js';
import { Watchdog } from './watchdog.js';

/** Bytes of a non-2xx (or unexpected) response body read to find the error message; the rest is discarded. */
export const ERROR_BODY_LIMIT_BYTES = 64 * 1024;

/**
 * How the API key (`process.env[cfg.apiKeyEnv]`) is sent:
 * `bearer` → `Authorization: Bearer <key>` (OpenAI Chat Completions, Responses);
 * `x-api-key` → `x-api-key: <key>` (Anthropic Messages; the adapter adds
 * `anthropic-version` through {@link ProviderHttpRequest.headers});
 * `none` → no credential even when `cfg.apiKeyEnv` is set.
 */
export type AuthScheme = 'bearer' | 'x-api-key' | 'none';

/** One POST to a provider endpoint. */
export interface ProviderHttpRequest {
  /** Full endpoint URL (build it with `endpointUrl`); only its host ever appears in a diagnostic. */
  url: URL;
  /** Request body, already serialized (JSON text). */
  body: string;
  /** Extra request headers (lower-case names), e.g. `{ 'anthropic-version': '2023-06-01' }`. Not secrets. */
  headers?: Readonly<Record<string, string>>;
  /** Credential header style; default `bearer`. */
  auth?: AuthScheme;
}

/** Callbacks shared by every transport; all optional. */
export interface TransportHandlers {
  /** Aborts the request; the promise then rejects with the signal's reason (not a ProviderError). */
  signal?: AbortSignal;
  /** Called for every body chunk received (used to heartbeat). */
  onChunk?(): void;
}

/** A 2xx response whose headers arrived; the body is still unread. */
export interface OpenedResponse {
  res: Dispatcher.ResponseData<unknown>;
  headers: Record<string, string | string[] | undefined>;
  /** Failure context, with `status` and the header request id filled in. */
  ctx: FailureContext;
  /** `x-request-id` (OpenAI) or `request-id` (Anthropic) header, when sent and non-empty. */
  headerRequestId: string | undefined;
  /** The deadline timer, disarmed; the body reader re-arms it per chunk. */
  watchdog: Watchdog;
  /** The caller's signal (aborts win over every other outcome). */
  signal: AbortSignal | undefined;
}

/** First value of a response header. */
export function headerValue(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const v = headers[name];
  if (typeof v === 'string') return v;
  if (Array.isArray(v) && typeof v[0] === 'string') return v[0];
  return undefined;
}

/** Server-requested delay in ms: `retry-after-ms` (OpenAI), else a valid `Retry-After` (PR2). */
export function retryAfterFrom(headers: Record<string, string | string[] | undefined>): number | undefined {
  const ms = headerValue(headers, 'retry-after-ms');
  if (ms !== undefined && /^\d+(\.\d+)?$/.test(ms.trim())) {
    const n = Number(ms.trim());
    if (Number.isFinite(n)) return Math.round(n);
  }
  return parseRetryAfter(headers['retry-after']);
}

/** Parse JSON text without throwing. */
export function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

/** Read at most `limit` bytes of a body (the rest is discarded and the body destroyed); never throws. */
export async function readCapped(
  body: Dispatcher.ResponseData<unknown>['body'],
  limit: number,
  onChunk?: () => void,
): Promise<{ text: string; bytes: number; complete: boolean }> {
  const parts: Buffer[] = [];
  let bytes = 0;
  let complete = false;
  try {
    for await (const chunk of body as AsyncIterable<Buffer>) {
      onChunk?.();
      const room = limit - bytes;
      if (room > 0) parts.push(chunk.length > room ? chunk.subarray(0, room) : chunk);
      bytes += chunk.length;
      if (bytes > limit) break;
    }
    complete = bytes <= limit;
  } catch {
    // ignore: the caller decides what a short body means
  } finally {
    body.destroy();
  }
  return { text: Buffer.concat(parts).toString('utf8'), bytes, complete };
}

/**
 * The body of an opened 2xx response, chunk by chunk, each read under the
 * PR5 chunk deadline (`cfg.chunkTimeoutMs` of silence); `handlers.onChunk`
 * runs for every chunk received. However the iteration ends (done, failed, or left
 * early by the consumer), the watchdog is disarmed and the body destroyed.
 *
 * A failed read throws the abort reason of `opened.signal` when it aborted;
 * otherwise `onBreak(err)` decides: the error to throw, or undefined to end
 * the iteration quietly.
 */
export async function* readBodyChunks(
  opened: Pick<OpenedResponse, 'res' | 'watchdog' | 'signal'>,
  cfg: ProviderConfig,
  handlers: Pick<TransportHandlers, 'onChunk'>,
  onBreak: (err: unknown) => Error | undefined,
): AsyncGenerator<Buffer, void, undefined> {
  const { res, watchdog, signal } = opened;
  const body = (res.body as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
  try {
    for (;;) {
      let step: IteratorResult<Buffer>;
      watchdog.arm('chunk', cfg.chunkTimeoutMs);
      try {
        step = await body.next();
      } catch (err) {
        if (signal?.aborted) throw abortReason(signal);
        const failure = onBreak(err);
        if (failure === undefined) return;
        throw failure;
      } finally {
        watchdog.disarm();
      }
      if (step.done) return;
      handlers.onChunk?.();
      yield step.value;
    }
  } finally {
    watchdog.disarm();
    if (!res.body.destroyed) res.body.destroy();
  }
}

/**
 * Read an error body (≤ {@link ERROR_BODY_LIMIT_BYTES}, under the chunk
 * deadline) and extract the provider's message and code; never the raw body.
 */
export async function readErrorBody(
  opened: Pick<OpenedResponse, 'res' | 'watchdog' | 'signal'>,
  cfg: ProviderConfig,
): Promise<{ parsed: boolean; bytes: number; message?: string; code?: string; status?: number }> {
  opened.watchdog.arm('chunk', cfg.chunkTimeoutMs);
  const { text, bytes } = await readCapped(opened.res.body, ERROR_BODY_LIMIT_BYTES).finally(() =>
    opened.watchdog.disarm(),
  );
  if (opened.signal?.aborted) throw abortReason(opened.signal);
  const parsed = parseJson(text);
  const ex = parsed.ok ? extractProviderError(parsed.value) : {};
  return { parsed: parsed.ok, bytes, ...ex };
}

/**
 * Send `req` and wait for the response headers.
 *
 * Headers sent: `content-type: application/json`, `accept: <accept>`, then
 * `req.headers`, then the credential per `req.auth` when `cfg.apiKeyEnv` is
 * set. The PR5 header deadline is `cfg.headerTimeoutMs` (ms, native timer;
 * also passed to undici as `headersTimeout`, with `bodyTimeout` =
 * `cfg.chunkTimeoutMs`).
 *
 * @returns the opened 2xx response (body unread)
 * @throws ProviderError
 *   `provider_auth` (401/403; or `cfg.apiKeyEnv` set but the variable unset/empty: code `api_key_missing`),
 *   `provider_bad_request` (400/404/413/422/other 4xx), `provider_rate_limited` (429, with
 *   `retryAfterMs` from `Retry-After`/`retry-after-ms`), `provider_unavailable` (5xx/409),
 *   `provider_timeout` (header deadline, HTTP 408), `provider_connection` (refused/reset/DNS),
 *   `provider_protocol` (malformed HTTP). The diagnostic carries the status, the provider's
 *   error code and message (redacted, ≤ 300 chars) and the request id; never the body or the URL.
 * @throws the abort reason of `handlers.signal` when it aborts.
 */
export async function sendProviderRequest(
  cfg: ProviderConfig,
  req: ProviderHttpRequest,
  accept: string,
  handlers: TransportHandlers = {},
): Promise<OpenedResponse> {
  const signal = handlers.signal;
  if (signal?.aborted) throw abortReason(signal);
  const ctx: FailureContext = { providerId: cfg.id, host: req.url.host, secrets: urlSecrets(req.url) };

  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept,
    ...req.headers,
  };
  const auth = req.auth ?? 'bearer';
  if (auth !== 'none' && cfg.apiKeyEnv !== undefined && cfg.apiKeyEnv !== '') {
    const key = process.env[cfg.apiKeyEnv];
    if (key === undefined || key.trim() === '') {
      throw providerFailure('provider_auth', ctx, `API key variable ${cfg.apiKeyEnv} is not set`, {
        code: 'api_key_missing',
      });
    }
    ctx.secrets.push(key, key.trim());
    if (auth === 'bearer') headers.authorization = `Bearer ${key.trim()}`;
    else headers['x-api-key'] = key.trim();
  }

  const watchdog = new Watchdog();
  const combined =
    signal !== undefined ? AbortSignal.any([signal, watchdog.controller.signal]) : watchdog.controller.signal;
  let res: Dispatcher.ResponseData<unknown>;
  watchdog.arm('headers', cfg.headerTimeoutMs);
  try {
    res = await request(req.url, {
      method: 'POST',
      headers,
      body: req.body,
      headersTimeout: cfg.headerTimeoutMs,
      bodyTimeout: cfg.chunkTimeoutMs,
      signal: combined,
    });
  } catch (err) {
    if (signal?.aborted) throw abortReason(signal);
    if (watchdog.fired !== undefined) throw timeoutError(watchdog.fired, ctx, cfg);
    throw requestError(err, ctx, cfg);
  } finally {
    watchdog.disarm();
  }

  const resHeaders = res.headers as Record<string, string | string[] | undefined>;
  const rid = headerValue(resHeaders, 'x-request-id') ?? headerValue(resHeaders, 'request-id');
  const headerRequestId = rid !== undefined && rid !== '' ? rid : undefined;
  if (headerRequestId !== undefined) ctx.requestId = headerRequestId;
  ctx.status = res.statusCode;
  const opened: OpenedResponse = { res, headers: resHeaders, ctx, headerRequestId, watchdog, signal };

  if (res.statusCode < 200 || res.statusCode > 299) {
    const ex = await readErrorBody(opened, cfg);
    const reason =
      ex.message !== undefined && ex.message.trim() !== ''
        ? `HTTP ${res.statusCode}: ${ex.message}`
        : `HTTP ${res.statusCode} from ${ctx.host} (${ex.parsed ? 'no error message' : `non-JSON body, ${ex.bytes} bytes`})`;
    const extra: FailureExtra = {};
    if (ex.code !== undefined) extra.code = ex.code;
    const retryAfterMs = retryAfterFrom(resHeaders);
    if (retryAfterMs !== undefined) extra.retryAfterMs = retryAfterMs;
    throw providerFailure(codeForHttpStatus(res.statusCode), ctx, reason, extra);
  }
  return opened;
}
