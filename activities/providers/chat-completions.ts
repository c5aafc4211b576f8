/**
 * OpenAI-compatible Chat Completions streaming adapter (PR4, PR5, PR6, PR11).
 *
 * One call = one HTTP request `POST {baseUrl}/chat/completions` with
 * `stream: true` and `stream_options.include_usage: true`, read as
 * server-sent events and assembled into a provider-neutral {@link ModelResponse}.
 * Every failure is a typed {@link ProviderError}; the caller decides retries.
 */
import { createParser, type EventSourceMessage, type ParseError } from 'eventsource-parser';
import { request, type Dispatcher } from 'undici';
import type {
  AssistantPart,
  FinishReason,
  ModelMessage,
  ToolCallRequest,
  ToolSpec,
  Usage,
} from '../../core/messages.js';
import {
  ProviderError,
  codeForHttpStatus,
  extractProviderError,
  parseRetryAfter,
  RETRYABLE_BY_CODE,
  type ProviderErrorCode,
} from './errors.js';
import type { ModelRequest, ModelResponse, ProviderConfig, StreamHandlers } from './types.js';

/** Bytes of a non-2xx (or non-SSE) response body read to find the error message; the rest is discarded. */
export const ERROR_BODY_LIMIT_BYTES = 64 * 1024;
/** Largest single SSE event (characters) accepted before the stream is declared a protocol error. */
export const MAX_EVENT_CHARS = 16 * 1024 * 1024;

// ---------------------------------------------------------------------------
// Request mapping (pure)
// ---------------------------------------------------------------------------

/** One message of the Chat Completions wire format, as this adapter sends it. */
export type ChatWireMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string }
  | {
      role: 'assistant';
      content: string | null;
      tool_calls?: Array<{ id: string; type: 'function'; function: { name: string; arguments: string } }>;
    }
  | { role: 'tool'; tool_call_id: string; content: string };

/** One tool of the Chat Completions wire format. */
export interface ChatWireTool {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

/** The JSON body this adapter POSTs. `tools` is omitted when empty (some servers reject `[]`). */
export interface ChatCompletionRequestBody {
  model: string;
  messages: ChatWireMessage[];
  tools?: ChatWireTool[];
  stream: true;
  stream_options: { include_usage: true };
}

/**
 * Map provider-neutral messages to Chat Completions messages.
 *
 * - assistant tool calls → `tool_calls[{id, type:'function', function:{name, arguments}}]`,
 *   `arguments` = the model's raw `argsJson` bytes, never re-serialized (PR8/PR10 spirit);
 *   `content` is `null` when the assistant only called tools.
 * - tool results → `{role:'tool', tool_call_id, content}`.
 */
export function toChatMessages(messages: readonly ModelMessage[]): ChatWireMessage[] {
  return messages.map((m): ChatWireMessage => {
    switch (m.role) {
      case 'system':
        return { role: 'system', content: m.text };
      case 'user':
        return { role: 'user', content: m.text };
      case 'assistant': {
        if (m.toolCalls.length === 0) return { role: 'assistant', content: m.text };
        return {
          role: 'assistant',
          content: m.text === '' ? null : m.text,
          tool_calls: m.toolCalls.map((c) => ({
            id: c.callId,
            type: 'function' as const,
            function: { name: c.name, arguments: c.argsJson },
          })),
        };
      }
      case 'tool':
        return { role: 'tool', tool_call_id: m.callId, content: m.content };
    }
  });
}

/** Map tool specs to Chat Completions `tools` entries. */
export function toChatTools(tools: readonly ToolSpec[]): ChatWireTool[] {
  return tools.map((t) => ({
    type: 'function',
    function: { name: t.name, description: t.description, parameters: t.parameters },
  }));
}

/** Build the full streaming request body for `req` (pure). */
export function buildChatCompletionBody(req: ModelRequest): ChatCompletionRequestBody {
  const body: ChatCompletionRequestBody = {
    model: req.model,
    messages: toChatMessages(req.messages),
    stream: true,
    stream_options: { include_usage: true },
  };
  if (req.tools.length > 0) body.tools = toChatTools(req.tools);
  return body;
}

/**
 * `{baseUrl}/chat/completions`, keeping any query string of the base URL
 * (e.g. Azure `?api-version=`) after the path. Throws `provider_bad_request`
 * (not retryable) for an unparseable or non-HTTP(S) base URL.
 */
export function chatCompletionsUrl(baseUrl: string, providerId?: string): URL {
  let u: URL;
  try {
    u = new URL(baseUrl);
  } catch {
    throw new ProviderError('provider_bad_request', {
      providerId,
      diagnostic: { reason: 'provider baseUrl is not a valid URL' },
    });
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') {
    throw new ProviderError('provider_bad_request', {
      providerId,
      diagnostic: { reason: `provider baseUrl must be http(s), got ${u.protocol}` },
    });
  }
  u.pathname = `${u.pathname.replace(/\/+$/, '')}/chat/completions`;
  u.hash = '';
  return u;
}

/** Normalize a wire `finish_reason` to {@link FinishReason}; unknown values become `other`. */
export function normalizeFinishReason(raw: string): FinishReason {
  switch (raw) {
    case 'stop':
    case 'eos':
    case 'end_turn':
    case 'stop_sequence':
      return 'stop';
    case 'tool_calls':
    case 'function_call':
    case 'tool_use':
      return 'tool_calls';
    case 'length':
    case 'max_tokens':
    case 'model_length':
      return 'length';
    case 'content_filter':
    case 'safety':
      return 'content_filter';
    default:
      return 'other';
  }
}

/**
 * Map a wire `usage` object to {@link Usage} (PR11: a field not sent stays
 * undefined, never 0). `prompt_tokens` → inputTokens (OpenAI counts cached
 * tokens inside it), `completion_tokens` → outputTokens,
 * `prompt_tokens_details.cached_tokens` → cachedInputTokens,
 * `completion_tokens_details.reasoning_tokens` → reasoningTokens,
 * `total_tokens` → totalTokens. Returns undefined when no field is known.
 */
export function mapWireUsage(wire: unknown): Usage | undefined {
  if (wire === null || typeof wire !== 'object') return undefined;
  const w = wire as Record<string, unknown>;
  const num = (v: unknown): number | undefined =>
    typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : undefined;
  const sub = (v: unknown, k: string): number | undefined =>
    v !== null && typeof v === 'object' ? num((v as Record<string, unknown>)[k]) : undefined;
  const u: Usage = {};
  const input = num(w.prompt_tokens);
  const output = num(w.completion_tokens);
  const cached = sub(w.prompt_tokens_details, 'cached_tokens');
  const reasoning = sub(w.completion_tokens_details, 'reasoning_tokens');
  const total = num(w.total_tokens);
  if (input !== undefined) u.inputTokens = input;
  if (output !== undefined) u.outputTokens = output;
  if (cached !== undefined) u.cachedInputTokens = cached;
  if (reasoning !== undefined) u.reasoningTokens = reasoning;
  if (total !== undefined) u.totalTokens = total;
  return Object.keys(u).length > 0 ? u : undefined;
}

// ---------------------------------------------------------------------------
// Streaming
// ---------------------------------------------------------------------------

interface ToolSlot {
  index: number;
  order: number;
  id?: string;
  name?: string;
  args: string;
}

interface ErrCtx {
  providerId: string;
  host: string;
  secrets: string[];
  requestId?: string;
  status?: number;
}

function headerValue(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const v = headers[name];
  if (typeof v === 'string') return v;
  if (Array.isArray(v) && typeof v[0] === 'string') return v[0];
  return undefined;
}

function fail(
  code: ProviderErrorCode,
  ctx: ErrCtx,
  reason: string,
  extra: { status?: number; code?: string; retryAfterMs?: number } = {},
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
  if (extra.retryAfterMs !== undefined && RETRYABLE_BY_CODE[code]) init.retryAfterMs = extra.retryAfterMs;
  return new ProviderError(code, init);
}

function errorCodeOf(err: unknown): string | undefined {
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

function abortReason(signal: AbortSignal | undefined): unknown {
  if (signal === undefined) return undefined;
  return signal.reason ?? Object.assign(new Error('The operation was aborted'), { name: 'AbortError' });
}

/** Largest delay Node's setTimeout accepts (ms). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Precise PR5 deadlines on native timers (undici's own `headersTimeout` /
 * `bodyTimeout` tick at ~1 s resolution and stay armed as a backstop). On
 * expiry it aborts the internal signal handed to undici, which fails the
 * pending request or body read; `fired` tells which deadline it was.
 */
class Watchdog {
  readonly controller = new AbortController();
  fired: 'headers' | 'chunk' | undefined;
  private timer: NodeJS.Timeout | undefined;

  arm(kind: 'headers' | 'chunk', ms: number): void {
    this.disarm();
    if (!(ms > 0)) return;
    this.timer = setTimeout(
      () => {
        this.fired = kind;
        this.controller.abort(new Error(`${kind} timeout`));
      },
      Math.min(ms, MAX_TIMER_MS),
    );
  }

  disarm(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }
}

function timeoutError(kind: 'headers' | 'chunk', ctx: ErrCtx, cfg: ProviderConfig, events?: number): ProviderError {
  return kind === 'headers'
    ? fail('provider_timeout', ctx, `no response headers from ${ctx.host} within ${cfg.headerTimeoutMs} ms`, {
        code: 'header_timeout',
      })
    : fail(
        'provider_timeout',
        ctx,
        `no stream chunk from ${ctx.host} within ${cfg.chunkTimeoutMs} ms${events !== undefined ? ` (after ${events} events)` : ''}`,
        { code: 'chunk_timeout' },
      );
}

/** Classify an error raised before response headers arrived. */
function transportError(err: unknown, ctx: ErrCtx, cfg: ProviderConfig): ProviderError {
  const code = errorCodeOf(err);
  switch (code) {
    case 'UND_ERR_HEADERS_TIMEOUT':
      return timeoutError('headers', ctx, cfg);
    case 'UND_ERR_BODY_TIMEOUT':
      return timeoutError('chunk', ctx, cfg);
    case 'UND_ERR_CONNECT_TIMEOUT':
      return fail('provider_connection', ctx, `connect timeout to ${ctx.host}`, { code: 'connect_timeout' });
    case 'UND_ERR_HEADERS_OVERFLOW':
    case 'UND_ERR_RES_EXCEEDED_MAX_SIZE':
      return fail('provider_protocol', ctx, `malformed HTTP response from ${ctx.host} (${code})`, { code });
    case 'UND_ERR_INVALID_ARG':
      return fail('provider_bad_request', ctx, 'invalid request options', { code });
    default:
      break;
  }
  if (code !== undefined && code.startsWith('HPE_')) {
    return fail('provider_protocol', ctx, `malformed HTTP response from ${ctx.host} (${code})`, { code });
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
    return fail('provider_connection', ctx, `${what}: ${ctx.host} (${code})`, { code });
  }
  const name = err instanceof Error ? err.name : typeof err;
  return fail(
    'provider_connection',
    ctx,
    `request to ${ctx.host} failed (${code ?? name})`,
    code !== undefined ? { code } : {},
  );
}

/** Read at most `limit` bytes of a body; never throws. */
async function readCapped(
  body: Dispatcher.ResponseData<unknown>['body'],
  limit: number,
): Promise<{ text: string; bytes: number }> {
  const parts: Buffer[] = [];
  let bytes = 0;
  try {
    for await (const chunk of body as AsyncIterable<Buffer>) {
      const room = limit - bytes;
      if (room > 0) parts.push(chunk.length > room ? chunk.subarray(0, room) : chunk);
      bytes += chunk.length;
      if (bytes >= limit) break;
    }
  } catch {
    // ignore: we only want the error message, if any
  } finally {
    body.destroy();
  }
  return { text: Buffer.concat(parts).toString('utf8'), bytes };
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

/**
 * Stream one Chat Completions request and assemble the answer.
 *
 * Wire: `POST {cfg.baseUrl}/chat/completions` (query string of the base URL
 * kept), JSON body from {@link buildChatCompletionBody}, `Accept:
 * text/event-stream`, `Authorization: Bearer <process.env[cfg.apiKeyEnv]>` when
 * `cfg.apiKeyEnv` is set. Timeouts (PR5), both in ms: `cfg.headerTimeoutMs`
 * until the response headers arrive, `cfg.chunkTimeoutMs` of silence allowed
 * between body chunks (enforced with native timers to the ms, and also passed
 * to undici as `headersTimeout` / `bodyTimeout`).
 *
 * Assembly: text deltas (`delta.content`) and reasoning deltas
 * (`delta.reasoning_content`, else `delta.reasoning`) are concatenated and
 * forwarded in order to `handlers.onTextDelta` / `onReasoningDelta`;
 * `handlers.onChunk` runs for every body chunk (heartbeat). Tool calls are
 * accumulated by `index` (id/name from the first delta that carries them,
 * `arguments` concatenated as the raw text the model produced — malformed JSON
 * is kept verbatim), returned in index order; a call without an id gets
 * `call_<index>`. `finish_reason` is normalized ({@link normalizeFinishReason});
 * usage comes from the last `usage` object seen ({@link mapWireUsage});
 * `requestId` is the `x-request-id` header, else the first chunk `id`.
 *
 * PR4: the stream ended properly iff a `finish_reason` or `data: [DONE]`
 * arrived (with only `[DONE]`, finishReason is `tool_calls` if tool calls were
 * streamed, else `stop`). A stream that ends or breaks without either is
 * `upstream_stream_incomplete`; one that breaks after `finish_reason` is
 * returned as is (usage may then be missing).
 *
 * @throws ProviderError
 *   `provider_auth` (401/403, or `cfg.apiKeyEnv` set but the variable unset/empty),
 *   `provider_bad_request` (400/404/422/other 4xx, invalid base URL),
 *   `provider_rate_limited` (429, `retryAfterMs` from `Retry-After`/`retry-after-ms`),
 *   `provider_unavailable` (5xx/409, or an `error` object inside the stream),
 *   `provider_timeout` (header or chunk timeout, HTTP 408),
 *   `provider_connection` (refused/reset/DNS/connect timeout before a response),
 *   `upstream_stream_incomplete` (PR4), `provider_protocol` (non-SSE success body,
 *   unparseable chunk JSON, oversize event), `content_filtered`
 *   (`finish_reason: content_filter` with no text and no tool calls).
 *   Diagnostics are bounded and redacted (PR6).
 * @throws the abort reason of `handlers.signal` (not a ProviderError) when it aborts.
 * Errors thrown by a handler callback propagate unchanged.
 */
export async function streamChatCompletion(
  cfg: ProviderConfig,
  req: ModelRequest,
  handlers: StreamHandlers = {},
): Promise<ModelResponse> {
  const signal = handlers.signal;
  if (signal?.aborted) throw abortReason(signal);

  const url = chatCompletionsUrl(cfg.baseUrl, cfg.id);
  const ctx: ErrCtx = { providerId: cfg.id, host: url.host, secrets: [] };

  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'text/event-stream',
  };
  if (cfg.apiKeyEnv !== undefined && cfg.apiKeyEnv !== '') {
    const key = process.env[cfg.apiKeyEnv];
    if (key === undefined || key.trim() === '') {
      throw fail('provider_auth', ctx, `API key variable ${cfg.apiKeyEnv} is not set`, { code: 'api_key_missing' });
    }
    ctx.secrets.push(key, key.trim());
    headers.authorization = `Bearer ${key.trim()}`;
  }
  // Credentials embedded in the base URL are secrets too.
  for (const part of [url.username, url.password, url.search.slice(1)]) {
    if (part === '') continue;
    ctx.secrets.push(part);
    try {
      ctx.secrets.push(decodeURIComponent(part));
    } catch {
      // malformed percent-encoding: the raw form is scrubbed already
    }
  }

  const body = JSON.stringify(buildChatCompletionBody(req));

  const watchdog = new Watchdog();
  const combined =
    signal !== undefined ? AbortSignal.any([signal, watchdog.controller.signal]) : watchdog.controller.signal;
  let res: Dispatcher.ResponseData<unknown>;
  watchdog.arm('headers', cfg.headerTimeoutMs);
  try {
    const opts: Parameters<typeof request>[1] = {
      method: 'POST',
      headers,
      body,
      headersTimeout: cfg.headerTimeoutMs,
      bodyTimeout: cfg.chunkTimeoutMs,
      signal: combined,
    };
    res = await request(url, opts);
  } catch (err) {
    if (signal?.aborted) throw abortReason(signal);
    if (watchdog.fired !== undefined) throw timeoutError(watchdog.fired, ctx, cfg);
    throw transportError(err, ctx, cfg);
  } finally {
    watchdog.disarm();
  }

  const resHeaders = res.headers as Record<string, string | string[] | undefined>;
  const headerRequestId = headerValue(resHeaders, 'x-request-id') ?? headerValue(resHeaders, 'request-id');
  if (headerRequestId !== undefined && headerRequestId !== '') ctx.requestId = headerRequestId;
  ctx.status = res.statusCode;

  if (res.statusCode < 200 || res.statusCode > 299) {
    watchdog.arm('chunk', cfg.chunkTimeoutMs);
    const { text, bytes } = await readCapped(res.body, ERROR_BODY_LIMIT_BYTES).finally(() => watchdog.disarm());
    if (signal?.aborted) throw abortReason(signal);
    const parsed = parseJson(text);
    const ex = parsed.ok ? extractProviderError(parsed.value) : {};
    const code = codeForHttpStatus(res.statusCode);
    const retryAfterMs = retryAfterFrom(resHeaders);
    const reason =
      ex.message !== undefined && ex.message.trim() !== ''
        ? `HTTP ${res.statusCode}: ${ex.message}`
        : `HTTP ${res.statusCode} from ${ctx.host} (${parsed.ok ? 'no error message' : `non-JSON body, ${bytes} bytes`})`;
    const extra: { code?: string; retryAfterMs?: number } = {};
    if (ex.code !== undefined) extra.code = ex.code;
    if (retryAfterMs !== undefined) extra.retryAfterMs = retryAfterMs;
    throw fail(code, ctx, reason, extra);
  }

  const contentType = (headerValue(resHeaders, 'content-type') ?? '').toLowerCase();
  if (contentType !== '' && !contentType.includes('text/event-stream')) {
    watchdog.arm('chunk', cfg.chunkTimeoutMs);
    const { text, bytes } = await readCapped(res.body, ERROR_BODY_LIMIT_BYTES).finally(() => watchdog.disarm());
    if (signal?.aborted) throw abortReason(signal);
    const parsed = contentType.includes('json') ? parseJson(text) : { ok: false as const };
    if (parsed.ok) {
      const ex = extractProviderError(parsed.value);
      if (ex.message !== undefined || ex.code !== undefined) {
        const code = ex.status !== undefined ? codeForHttpStatus(ex.status) : 'provider_unavailable';
        const extra: { code?: string; status?: number } = {};
        if (ex.code !== undefined) extra.code = ex.code;
        if (ex.status !== undefined) extra.status = ex.status;
        throw fail(code, ctx, `error body with HTTP ${res.statusCode}: ${ex.message ?? '(no message)'}`, extra);
      }
    }
    const ctShort = contentType.split(';')[0] ?? contentType;
    throw fail('provider_protocol', ctx, `expected text/event-stream, got ${ctShort.slice(0, 60)} (${bytes} bytes)`, {
      code: 'not_event_stream',
    });
  }

  return readStream(res, ctx, cfg, handlers, headerRequestId, watchdog);
}

function retryAfterFrom(headers: Record<string, string | string[] | undefined>): number | undefined {
  const ms = headerValue(headers, 'retry-after-ms');
  if (ms !== undefined && /^\d+(\.\d+)?$/.test(ms.trim())) {
    const n = Number(ms.trim());
    if (Number.isFinite(n)) return Math.round(n);
  }
  return parseRetryAfter(headers['retry-after']);
}

async function readStream(
  res: Dispatcher.ResponseData<unknown>,
  ctx: ErrCtx,
  cfg: ProviderConfig,
  handlers: StreamHandlers,
  headerRequestId: string | undefined,
  watchdog: Watchdog,
): Promise<ModelResponse> {
  const signal = handlers.signal;
  const decoder = new TextDecoder('utf-8');
  const pending: EventSourceMessage[] = [];
  let parseFailure: ParseError | undefined;
  const parser = createParser({
    onEvent: (e) => pending.push(e),
    onError: (e) => {
      // Unknown fields / bad `retry:` are ignored as the SSE spec says; only an oversize event is fatal.
      if (e.type === 'max-buffer-size-exceeded') parseFailure = e;
    },
    maxBufferSize: MAX_EVENT_CHARS,
  });

  let text = '';
  let reasoning = '';
  const slots = new Map<number, ToolSlot>();
  let lastSlot: ToolSlot | undefined;
  let finishRaw: string | undefined;
  let sawDone = false;
  let wireUsage: unknown;
  let chunkId: string | undefined;
  let events = 0;

  const onText = (t: string): void => {
    if (t === '') return;
    text += t;
    handlers.onTextDelta?.(t);
  };
  const onReasoning = (t: string): void => {
    if (t === '') return;
    reasoning += t;
    handlers.onReasoningDelta?.(t);
  };

  const slotFor = (raw: Record<string, unknown>, position: number): ToolSlot => {
    let index: number;
    if (typeof raw.index === 'number' && Number.isInteger(raw.index)) index = raw.index;
    else if (typeof raw.id === 'string' && raw.id !== '') {
      const known = [...slots.values()].find((s) => s.id === raw.id);
      index = known?.index ?? (slots.size === 0 ? 0 : Math.max(...slots.keys()) + 1);
    } else if (lastSlot !== undefined && position === 0) index = lastSlot.index;
    else index = position;
    let slot = slots.get(index);
    if (slot === undefined) {
      slot = { index, order: slots.size, args: '' };
      slots.set(index, slot);
    }
    lastSlot = slot;
    return slot;
  };

  const handleEvent = (e: EventSourceMessage): void => {
    events += 1;
    const data = e.data;
    if (data.trim() === '[DONE]') {
      sawDone = true;
      return;
    }
    if (data.trim() === '') return;
    const parsed = parseJson(data);
    if (!parsed.ok) {
      throw fail('provider_protocol', ctx, `stream event ${events} is not valid JSON (${data.length} chars)`, {
        code: 'invalid_chunk_json',
      });
    }
    const chunk = parsed.value;
    if (chunk === null || typeof chunk !== 'object' || Array.isArray(chunk)) {
      throw fail('provider_protocol', ctx, `stream event ${events} is not a JSON object`, { code: 'invalid_chunk' });
    }
    const c = chunk as Record<string, unknown>;
    if (e.event === 'error' || (c.error !== undefined && c.error !== null)) {
      const ex = extractProviderError(e.event === 'error' && c.error === undefined ? { error: c } : c);
      const code = ex.status !== undefined ? codeForHttpStatus(ex.status) : 'provider_unavailable';
      const extra: { code?: string; status?: number } = {};
      if (ex.code !== undefined) extra.code = ex.code;
      if (ex.status !== undefined) extra.status = ex.status;
      throw fail(code, ctx, `error inside the stream: ${ex.message ?? '(no message)'}`, extra);
    }
    if (chunkId === undefined && typeof c.id === 'string' && c.id !== '') chunkId = c.id;
    if (c.usage !== undefined && c.usage !== null) wireUsage = c.usage;
    if (!Array.isArray(c.choices)) return;
    const choice = (c.choices as unknown[]).find(
      (ch) =>
        ch !== null &&
        typeof ch === 'object' &&
        ((ch as { index?: unknown }).index === 0 || (ch as { index?: unknown }).index === undefined),
    ) as Record<string, unknown> | undefined;
    if (choice === undefined) return;
    const delta = choice.delta;
    if (delta !== null && typeof delta === 'object') {
      const d = delta as Record<string, unknown>;
      if (typeof d.reasoning_content === 'string') onReasoning(d.reasoning_content);
      else if (typeof d.reasoning === 'string') onReasoning(d.reasoning);
      if (typeof d.content === 'string') onText(d.content);
      else if (Array.isArray(d.content)) {
        // Mistral-style content parts: text parts are text, thinking parts are reasoning.
        for (const part of d.content as unknown[]) {
          if (part === null || typeof part !== 'object') continue;
          const p = part as Record<string, unknown>;
          if (p.type === 'text' && typeof p.text === 'string') onText(p.text);
          else if (p.type === 'thinking' && Array.isArray(p.thinking)) {
            for (const t of p.thinking as unknown[]) {
              if (t !== null && typeof t === 'object' && typeof (t as { text?: unknown }).text === 'string') {
                onReasoning((t as { text: string }).text);
              }
            }
          }
        }
      }
      if (Array.isArray(d.tool_calls)) {
        (d.tool_calls as unknown[]).forEach((tc, position) => {
          if (tc === null || typeof tc !== 'object') return;
          const t = tc as Record<string, unknown>;
          const slot = slotFor(t, position);
          if (slot.id === undefined && typeof t.id === 'string' && t.id !== '') slot.id = t.id;
          const fn = t.function;
          if (fn !== null && typeof fn === 'object') {
            const f = fn as Record<string, unknown>;
            if (slot.name === undefined && typeof f.name === 'string' && f.name !== '') slot.name = f.name;
            if (typeof f.arguments === 'string') slot.args += f.arguments;
            else if (f.arguments !== undefined && f.arguments !== null) slot.args += JSON.stringify(f.arguments);
          }
        });
      }
    }
    if (typeof choice.finish_reason === 'string' && choice.finish_reason !== '') finishRaw = choice.finish_reason;
  };

  const iterator = (res.body as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
  try {
    for (;;) {
      let step: IteratorResult<Buffer>;
      watchdog.arm('chunk', cfg.chunkTimeoutMs);
      try {
        step = await iterator.next();
      } catch (err) {
        if (signal?.aborted) throw abortReason(signal);
        // PR4: after finish_reason the answer is complete; a broken tail (e.g. lost usage chunk) is not a failure.
        if (finishRaw !== undefined || sawDone) break;
        if (watchdog.fired !== undefined) throw timeoutError(watchdog.fired, ctx, cfg, events);
        throw bodyError(err, ctx, cfg, events);
      } finally {
        watchdog.disarm();
      }
      if (step.done) break;
      handlers.onChunk?.();
      parser.feed(decoder.decode(step.value, { stream: true }));
      if (parseFailure !== undefined) {
        throw fail('provider_protocol', ctx, `stream event larger than ${MAX_EVENT_CHARS} characters`, {
          code: 'event_too_large',
        });
      }
      while (pending.length > 0 && !sawDone) handleEvent(pending.shift() as EventSourceMessage);
      if (sawDone) break;
    }
  } finally {
    watchdog.disarm();
    if (!res.body.destroyed) res.body.destroy();
  }

  if (chunkId !== undefined && ctx.requestId === undefined) ctx.requestId = chunkId;

  if (finishRaw === undefined && !sawDone) {
    throw fail(
      'upstream_stream_incomplete',
      ctx,
      `stream from ${ctx.host} ended after ${events} events without finish_reason or [DONE]`,
      { code: 'stream_incomplete' },
    );
  }

  const toolCalls: ToolCallRequest[] = [...slots.values()]
    .sort((a, b) => a.index - b.index)
    .map((s) => ({ callId: s.id ?? `call_${s.index}`, name: s.name ?? '', argsJson: s.args }));

  const finishReason: FinishReason =
    finishRaw !== undefined ? normalizeFinishReason(finishRaw) : toolCalls.length > 0 ? 'tool_calls' : 'stop';

  if (finishReason === 'content_filter' && text === '' && toolCalls.length === 0) {
    throw fail('content_filtered', ctx, 'the provider filtered the answer (finish_reason content_filter, no output)', {
      code: 'content_filter',
    });
  }

  // Chat Completions streams reasoning_content before content, and tool calls last.
  const parts: AssistantPart[] = [
    ...(reasoning !== '' ? [{ kind: 'reasoning' as const, text: reasoning }] : []),
    ...(text !== '' ? [{ kind: 'text' as const, text }] : []),
    ...toolCalls.map((c) => ({ kind: 'tool_call' as const, ...c })),
  ];
  const response: ModelResponse = { parts, text, reasoning, toolCalls, finishReason };
  const usage = mapWireUsage(wireUsage);
  if (usage !== undefined) response.usage = usage;
  const requestId = headerRequestId !== undefined && headerRequestId !== '' ? headerRequestId : chunkId;
  if (requestId !== undefined) response.requestId = requestId;
  return response;
}

/** Classify an error raised while reading the body of a 2xx stream (before any terminal marker). */
function bodyError(err: unknown, ctx: ErrCtx, cfg: ProviderConfig, events: number): ProviderError {
  const code = errorCodeOf(err);
  if (code === 'UND_ERR_BODY_TIMEOUT') return timeoutError('chunk', ctx, cfg, events);
  return fail(
    'upstream_stream_incomplete',
    ctx,
    `stream from ${ctx.host} broke after ${events} events without finish_reason or [DONE] (${code ?? (err instanceof Error ? err.name : 'error')})`,
    { code: 'stream_incomplete' },
  );
}
