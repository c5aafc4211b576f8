/**
 * Non-streaming provider requests (a whole JSON response body), with the
 * same typed errors and deadlines as the SSE transport. For surfaces or
 * calls that do not stream (e.g. a one-shot summary request).
 */
import { providerFailure } from './failure.js';
import {
  parseJson,
  readBodyChunks,
  sendProviderRequest,
  type ProviderHttpRequest,
  type TransportHandlers,
} from './http-request.js';
import { errorCodeOf, timeoutError } from './transport-errors.js';
import type { ProviderConfig } from './types.js';

/** Largest JSON response body accepted (bytes). */
export const MAX_JSON_BODY_BYTES = 32 * 1024 * 1024;

/** A parsed 2xx JSON response. */
export interface JsonResponse {
  status: number;
  /** `x-request-id` / `request-id` response header, when sent. */
  headerRequestId: string | undefined;
  /** The body, a JSON object. */
  body: Record<string, unknown>;
}

/**
 * POST `req` with `Accept: application/json` and read the whole JSON body.
 *
 * Deadlines (PR5, ms): `cfg.headerTimeoutMs` for the headers, then
 * `cfg.chunkTimeoutMs` of silence allowed between body chunks.
 *
 * @throws ProviderError as `sendProviderRequest` for the request and non-2xx
 *   statuses; then `provider_timeout` (`chunk_timeout`), `upstream_stream_incomplete`
 *   (`body_incomplete`: the body broke off; retryable), `provider_protocol` (`body_too_large` over
 *   {@link MAX_JSON_BODY_BYTES}, `invalid_json`, or a body that is not a JSON object).
 * @throws the abort reason of `handlers.signal` when it aborts.
 */
export async function requestJson(
  cfg: ProviderConfig,
  req: ProviderHttpRequest,
  handlers: TransportHandlers = {},
): Promise<JsonResponse> {
  const opened = await sendProviderRequest(cfg, req, 'application/json', handlers);
  const { watchdog, ctx } = opened;
  const parts: Buffer[] = [];
  let bytes = 0;
  const chunks = readBodyChunks(opened, cfg, handlers, (err) => {
    if (watchdog.fired !== undefined) return timeoutError(watchdog.fired, ctx, cfg);
    const code = errorCodeOf(err);
    if (code === 'UND_ERR_BODY_TIMEOUT') return timeoutError('chunk', ctx, cfg);
    return providerFailure(
      'upstream_stream_incomplete',
      ctx,
      `response body from ${ctx.host} broke off after ${bytes} bytes (${code ?? (err instanceof Error ? err.name : 'error')})`,
      { code: 'body_incomplete' },
    );
  });
  for await (const chunk of chunks) {
    bytes += chunk.length;
    if (bytes > MAX_JSON_BODY_BYTES) {
      throw providerFailure('provider_protocol', ctx, `response body larger than ${MAX_JSON_BODY_BYTES} bytes`, {
        code: 'body_too_large',
      });
    }
    parts.push(chunk);
  }
  const text = Buffer.concat(parts).toString('utf8');
  const parsed = parseJson(text);
  if (!parsed.ok) {
    throw providerFailure('provider_protocol', ctx, `response body is not valid JSON (${bytes} bytes)`, {
      code: 'invalid_json',
    });
  }
  const v = parsed.value;
  if (v === null || typeof v !== 'object' || Array.isArray(v)) {
    throw providerFailure('provider_protocol', ctx, 'response body is not a JSON object', { code: 'invalid_json' });
  }
  return { status: opened.res.statusCode, headerRequestId: opened.headerRequestId, body: v as Record<string, unknown> };
}
