/**
 * What the local provider needs to know about one wire surface (Chat
 * Completions, Responses, Anthropic Messages): its route, request checks,
 * credential header, error bodies and how a scripted turn is rendered as
 * server-sent events. One implementation per file (`surface-*.ts`).
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { WireSurface } from '../core/messages.js';
import type { RecordedEvent } from './replay.js';
import type { ScriptedTurn } from './turn.js';

/** One server-sent event to write: optional `event:` line, one `data:` line (no newlines inside). */
export interface WireEvent {
  event?: string;
  data: string;
}

/** The bytes of one event: `event: <name>\n` (when named) + `data: <data>\n\n`. */
export function frame(ev: WireEvent): string {
  return `${ev.event !== undefined ? `event: ${ev.event}\n` : ''}data: ${ev.data}\n\n`;
}

/** A JSON event, named (Responses / Anthropic) or not (Chat Completions). */
export function jsonEvent(obj: Record<string, unknown>, named: boolean): WireEvent {
  const ev: WireEvent = { data: JSON.stringify(obj) };
  if (named && typeof obj.type === 'string') ev.event = obj.type;
  return ev;
}

/** Per-request facts a renderer may use. */
export interface RenderCtx {
  /** 0-based index of the reply being served. */
  replyIndex: number;
  /** 1-based request number on this server (ids: `…_local_<n>`). */
  n: number;
  /** The model the request named (echoed back). */
  model: string;
  /** Unix seconds. */
  created: number;
  /** The parsed request body. */
  body: Record<string, unknown>;
}

/** Events of a rendered turn: `content` may be cut by faults; `terminal` closes the stream. */
export interface RenderedStream {
  content: WireEvent[];
  terminal: WireEvent[];
}

/** A request the surface refuses before any reply is consumed. */
export interface Refusal {
  status: number;
  message: string;
  code: string;
}

/** One wire surface of the local provider. */
export interface SurfaceCodec {
  readonly surface: WireSurface;
  /** The path suffix routed to this surface, e.g. `/chat/completions` (any prefix, usually `/v1`). */
  readonly route: string;
  /** Response header carrying the request id (`x-request-id` or Anthropic `request-id`). */
  readonly requestIdHeader: string;
  /** Check the parsed body and headers; a refusal is answered with {@link errorBody}. */
  validate(body: Record<string, unknown>, headers: IncomingHttpHeaders): Refusal | undefined;
  /**
   * With a script `apiKey`: undefined when the request carries it in the
   * surface's credential header, else the credential received (`''` if none).
   */
  wrongKey(headers: IncomingHttpHeaders, apiKey: string): string | undefined;
  /** The 401 message for a wrong key; echoes what was received, as some providers do. */
  wrongKeyMessage(given: string): string;
  /** JSON error body in the surface's shape; `code` overrides the default code (Anthropic: the error type). */
  errorBody(status: number, requestId: string, message?: string, code?: string): string;
  /** Whether the request asked for a stream. */
  wantsStream(body: Record<string, unknown>): boolean;
  /** Characters of the prompt (messages, system text, tool schemas), for usage estimates and context limits. */
  promptChars(body: Record<string, unknown>): number;
  /** Stream events of a scripted turn. */
  render(turn: ScriptedTurn, ctx: RenderCtx): RenderedStream;
  /** The non-streaming JSON body of a scripted turn. */
  json(turn: ScriptedTurn, ctx: RenderCtx): Record<string, unknown>;
  /** A recorded event framed for this surface (data byte-for-byte). */
  replayEvent(ev: RecordedEvent): WireEvent;
  /** What closes a replayed stream (Chat: `[DONE]` unless `done` is false; others: nothing). */
  replayClosing(done: boolean): WireEvent[];
  /** The in-stream error events after `sent` events (fault `streamError`). */
  streamError(ctx: RenderCtx, sent: number, message?: string, code?: string): WireEvent[];
  /** Raw bytes of an event whose data is not valid JSON (fault `malformedChunk`). */
  malformed(ctx: RenderCtx): string;
}
