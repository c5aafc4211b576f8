/**
 * Server-sent-event transport shared by every streaming wire adapter (Chat
 * Completions, Responses, Anthropic Messages): PR4 stream completeness, PR5
 * header and chunk deadlines, PR6 redacted typed errors. The adapter only
 * sees `{event, data}` messages and decides what they mean.
 */
import { createParser, type EventSourceMessage, type ParseError } from 'eventsource-parser';
import type { ProviderError } from './errors.js';
import type { ProviderErrorCode } from '../../core/provider-error-codes.js';
import { codeForHttpStatus, extractProviderError, STATUS_OF_ERROR_CODE } from './errors.js';
import { abortReason, providerFailure, type FailureContext, type FailureExtra } from './failure.js';
import {
  ERROR_BODY_LIMIT_BYTES,
  headerValue,
  parseJson,
  readBodyChunks,
  readCapped,
  sendProviderRequest,
  type OpenedResponse,
  type ProviderHttpRequest,
  type TransportHandlers,
} from './http-request.js';
import { streamBreakError, timeoutError } from './transport-errors.js';
import type { ProviderConfig } from './types.js';

/** Largest single SSE event (characters) accepted before the stream is declared a protocol error. */
export const MAX_EVENT_CHARS = 16 * 1024 * 1024;

/** One server-sent event as received. */
export interface SseEvent {
  /** The `event:` field (Responses / Anthropic event type); undefined when the server sent none (Chat Completions). */
  event?: string;
  /** The `data:` payload (lines joined with `\n`), unparsed. */
  data: string;
  /** The `id:` field, if any. */
  id?: string;
  /** 1-based position of this event in the stream. */
  seq: number;
}

/** What the transport needs to know about the surface's stream. */
export interface EventStreamRequest extends ProviderHttpRequest {
  /**
   * Words naming the surface's terminal marker, used in PR4 messages, e.g.
   * `finish_reason or [DONE]`, `response.completed`, `message_stop`.
   */
  terminal: string;
  /**
   * True once the adapter has seen a proper end (PR4). Asked when the body
   * ends or breaks: a complete stream ends the iteration quietly (a broken
   * tail after the terminal marker is not a failure), an incomplete one is
   * `upstream_stream_incomplete`.
   */
  isComplete(): boolean;
}

/** An open 2xx event stream. Iterate it once; leaving the loop early (break/throw) closes the connection. */
export interface EventStream extends AsyncIterable<SseEvent> {
  /** HTTP status of the response (2xx). */
  readonly status: number;
  /** `host[:port]` of the endpoint (the only URL part diagnostics may show). */
  readonly host: string;
  /** `x-request-id` / `request-id` response header, when sent. */
  readonly headerRequestId: string | undefined;
  /** Events received so far. */
  readonly events: number;
  /**
   * Record a request id found in the body (e.g. the first chunk `id`, the
   * Responses `response.id`, the Anthropic `message.id`) so later failures
   * carry it; ignored when one is known already.
   */
  noteRequestId(id: string | undefined): void;
  /** Build a typed error with this stream's redacted context (host, status, request id, secrets). */
  fail(code: ProviderErrorCode, reason: string, extra?: FailureExtra): ProviderError;
  /**
   * Parse an event's data as a JSON object.
   * @throws ProviderError `provider_protocol` (`invalid_chunk_json` / `invalid_chunk`), not retryable.
   */
  json(ev: SseEvent): Record<string, unknown>;
  /**
   * Type an error object sent inside the stream (`{error:{…}}`, an `event:
   * error` payload, Anthropic `{type:'error', error:{type, message}}`): by
   * its numeric status when present, else `provider_unavailable`
   * (retryable), with the provider's code and message in the diagnostic.
   */
  streamError(payload: unknown): ProviderError;
}

/**
 * POST `req` with `Accept: text/event-stream` and open its event stream.
 *
 * Resolves once 2xx headers of an SSE response arrived (PR5 header deadline
 * `cfg.headerTimeoutMs`, ms). Iterating yields each event in order; before
 * every body chunk the PR5 chunk deadline `cfg.chunkTimeoutMs` (ms of silence)
 * is armed; `handlers.onChunk` runs for every chunk. Events are parsed with
 * eventsource-parser (unknown fields and bad `retry:` lines are ignored, as
 * the SSE spec says); an event over {@link MAX_EVENT_CHARS} is fatal.
 *
 * @throws ProviderError from opening: see `sendProviderRequest` (auth, HTTP
 *   status mapping with Retry-After, header timeout, connection), plus
 *   `provider_protocol` (`not_event_stream`) for a 2xx body that is not
 *   `text/event-stream` — or, when that body is a JSON error object, the code
 *   of its status (`provider_unavailable` without one).
 * @throws ProviderError from iterating: `provider_timeout` (`chunk_timeout`),
 *   `upstream_stream_incomplete` (`stream_incomplete`: the body ended or broke
 *   while `req.isComplete()` was false, PR4), `provider_protocol`
 *   (`event_too_large`).
 * @throws the abort reason of `handlers.signal` when it aborts (at any point).
 */
export async function openEventStream(
  cfg: ProviderConfig,
  req: EventStreamRequest,
  handlers: TransportHandlers = {},
): Promise<EventStream> {
  const opened = await sendProviderRequest(cfg, req, 'text/event-stream', handlers);
  const contentType = (headerValue(opened.headers, 'content-type') ?? '').toLowerCase();
  if (contentType !== '' && !contentType.includes('text/event-stream')) {
    throw await notEventStream(opened, cfg, contentType);
  }
  return new SseStream(opened, cfg, req, handlers);
}

async function notEventStream(
  opened: OpenedResponse,
  cfg: ProviderConfig,
  contentType: string,
): Promise<ProviderError> {
  const { ctx, watchdog, signal, res } = opened;
  watchdog.arm('chunk', cfg.chunkTimeoutMs);
  const { text, bytes } = await readCapped(res.body, ERROR_BODY_LIMIT_BYTES).finally(() => watchdog.disarm());
  if (signal?.aborted) throw abortReason(signal);
  const parsed = contentType.includes('json') ? parseJson(text) : { ok: false as const };
  if (parsed.ok) {
    const ex = extractProviderError(parsed.value);
    if (ex.message !== undefined || ex.code !== undefined) {
      const status = ex.status ?? (ex.code !== undefined ? STATUS_OF_ERROR_CODE[ex.code] : undefined);
      const code = status !== undefined ? codeForHttpStatus(status) : 'provider_unavailable';
      const extra: FailureExtra = {};
      if (ex.code !== undefined) extra.code = ex.code;
      if (ex.status !== undefined) extra.status = ex.status;
      return providerFailure(
        code,
        ctx,
        `error body with HTTP ${res.statusCode}: ${ex.message ?? '(no message)'}`,
        extra,
      );
    }
  }
  const ctShort = contentType.split(';')[0] ?? contentType;
  return providerFailure(
    'provider_protocol',
    ctx,
    `expected text/event-stream, got ${ctShort.slice(0, 60)} (${bytes} bytes)`,
    { code: 'not_event_stream' },
  );
}

class SseStream implements EventStream {
  private iterated = false;
  private count = 0;

  constructor(
    private readonly opened: OpenedResponse,
    private readonly cfg: ProviderConfig,
    private readonly req: EventStreamRequest,
    private readonly handlers: TransportHandlers,
  ) {}

  get status(): number {
    return this.opened.res.statusCode;
  }
  get host(): string {
    return this.opened.ctx.host;
  }
  get headerRequestId(): string | undefined {
    return this.opened.headerRequestId;
  }
  get events(): number {
    return this.count;
  }
  private get ctx(): FailureContext {
    return this.opened.ctx;
  }

  noteRequestId(id: string | undefined): void {
    if (id !== undefined && id !== '' && this.ctx.requestId === undefined) this.ctx.requestId = id;
  }

  fail(code: ProviderErrorCode, reason: string, extra: FailureExtra = {}): ProviderError {
    return providerFailure(code, this.ctx, reason, extra);
  }

  json(ev: SseEvent): Record<string, unknown> {
    const parsed = parseJson(ev.data);
    if (!parsed.ok) {
      throw this.fail('provider_protocol', `stream event ${ev.seq} is not valid JSON (${ev.data.length} chars)`, {
        code: 'invalid_chunk_json',
      });
    }
    const v = parsed.value;
    if (v === null || typeof v !== 'object' || Array.isArray(v)) {
      throw this.fail('provider_protocol', `stream event ${ev.seq} is not a JSON object`, { code: 'invalid_chunk' });
    }
    return v as Record<string, unknown>;
  }

  streamError(payload: unknown): ProviderError {
    const ex = extractProviderError(payload);
    const status = ex.status ?? (ex.code !== undefined ? STATUS_OF_ERROR_CODE[ex.code] : undefined);
    const code = status !== undefined ? codeForHttpStatus(status) : 'provider_unavailable';
    const extra: FailureExtra = {};
    if (ex.code !== undefined) extra.code = ex.code;
    if (ex.status !== undefined) extra.status = ex.status;
    return this.fail(code, `error inside the stream: ${ex.message ?? '(no message)'}`, extra);
  }

  [Symbol.asyncIterator](): AsyncIterator<SseEvent> {
    if (this.iterated) throw new Error('an EventStream can be iterated only once');
    this.iterated = true;
    return this.read();
  }

  private async *read(): AsyncGenerator<SseEvent, void, undefined> {
    const { watchdog, signal } = this.opened;
    const { cfg, req } = this;
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
    const chunks = readBodyChunks(this.opened, cfg, this.handlers, (err) => {
      // PR4: after the terminal marker the answer is complete; a broken tail (e.g. a lost usage chunk) is not a failure.
      if (req.isComplete()) return undefined;
      if (watchdog.fired !== undefined) return timeoutError(watchdog.fired, this.ctx, cfg, this.count);
      return streamBreakError(err, this.ctx, cfg, this.count, req.terminal);
    });
    for await (const chunk of chunks) {
      parser.feed(decoder.decode(chunk, { stream: true }));
      if (parseFailure !== undefined) {
        throw this.fail('provider_protocol', `stream event larger than ${MAX_EVENT_CHARS} characters`, {
          code: 'event_too_large',
        });
      }
      while (pending.length > 0) {
        const e = pending.shift() as EventSourceMessage;
        this.count += 1;
        const ev: SseEvent = { data: e.data, seq: this.count };
        if (e.event !== undefined) ev.event = e.event;
        if (e.id !== undefined) ev.id = e.id;
        yield ev;
      }
    }
    // An unterminated last event (no blank line) is dropped, as the SSE spec says.
    if (signal?.aborted) throw abortReason(signal);
    if (!req.isComplete()) {
      throw this.fail(
        'upstream_stream_incomplete',
        `stream from ${this.host} ended after ${this.count} events without ${req.terminal}`,
        { code: 'stream_incomplete' },
      );
    }
  }
}
