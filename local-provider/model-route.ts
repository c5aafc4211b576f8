/**
 * A model request on the local provider server, from body to reply: admit
 * it (size, JSON, the surface's required fields, the script's API key),
 * refuse it when it exceeds the script's `contextWindow` (`context-limit.ts`),
 * pick its scripted reply (`reply-book.ts`), fire the reply's fault, then
 * answer — JSON, a recorded replay, or an SSE stream, whole or cut short.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { WireSurface } from '../core/messages.js';
import { MAX_REQUEST_BYTES, type Exchange } from './exchange.js';
import { contextLimitError, requestTokens } from './context-limit.js';
import { fillReceiptsFromRequest } from './placeholders.js';
import type { Replay } from './replay.js';
import type { FaultTaken, ReplyBook } from './reply-book.js';
import type { Script, ScriptReply } from './script.js';
import { frame, type RenderCtx, type WireEvent } from './surface.js';
import { toTurn } from './turn.js';

/**
 * A parsed model-request JSON body, as received. Chat Completions and
 * Anthropic requests carry `messages`, Responses requests `input`.
 */
export interface CapturedRequest {
  model: string;
  messages?: Array<Record<string, unknown>>;
  input?: unknown;
  tools?: Array<Record<string, unknown>>;
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  [key: string]: unknown;
}

/** What every model request of one server shares. */
export interface ModelRoute {
  script: Script;
  /** The replies of the script and its threads, flattened (`flattenThreads`). */
  replies: ScriptReply[];
  /** Recorded replays by reply index. */
  replays: Map<number, Replay>;
  book: ReplyBook;
  /** Captured requests, headers and surfaces, index-aligned (see `LocalProvider`). */
  requests: CapturedRequest[];
  requestHeaders: IncomingHttpHeaders[];
  requestSurfaces: WireSurface[];
}

/** A reply ready to send: its index, the script reply (receipts filled), its log label and the fault fired, if any. */
interface ChosenReply {
  index: number;
  reply: ScriptReply;
  label: string;
  partial?: Exclude<FaultTaken['kind'], 'status'>;
}

/** Answers one model request (see `startLocalProvider` for the routes and errors). Never throws for bad input. */
export async function handleModelRequest(route: ModelRoute, ex: Exchange): Promise<void> {
  const body = await admit(route, ex);
  if (body === undefined) return;
  const window = route.script.contextWindow;
  if (window !== undefined) {
    const used = requestTokens(ex.codec, body);
    if (used > window) {
      const e = contextLimitError(ex.codec, used, window);
      return ex.refuse(400, e.message, e.code, `context window exceeded: ${used} > ${window} tokens`);
    }
  }
  const chosen = choose(route, ex, body);
  if (chosen === undefined) return;
  await sendReply(route, ex, body, chosen);
}

/** The request's JSON object, captured; undefined once it was refused (413, 400, 401). */
async function admit(route: ModelRoute, ex: Exchange): Promise<Record<string, unknown> | undefined> {
  const raw = await ex.readBody();
  if (raw === undefined)
    return void ex.refuse(
      413,
      `request body larger than ${MAX_REQUEST_BYTES} bytes`,
      'request_too_large',
      'body too large',
    );
  let body: unknown;
  try {
    body = JSON.parse(raw) as unknown;
  } catch {
    return void ex.refuse(400, 'We could not parse the JSON body of your request.', 'invalid_json', 'invalid JSON');
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    return void ex.refuse(400, 'The request body must be a JSON object.', 'invalid_request', 'not an object');
  const b = body as Record<string, unknown>;
  const refusal = ex.codec.validate(b, ex.req.headers);
  if (refusal !== undefined) return void ex.refuse(refusal.status, refusal.message, refusal.code, refusal.message);
  route.requests.push(b as CapturedRequest);
  route.requestHeaders.push(ex.req.headers);
  route.requestSurfaces.push(ex.codec.surface);
  const given = route.script.apiKey === undefined ? undefined : ex.codec.wrongKey(ex.req.headers, route.script.apiKey);
  if (given !== undefined) return void ex.refuse(401, ex.codec.wrongKeyMessage(given), undefined, 'wrong API key');
  return b;
}

/** The reply this request gets, its fault fired; undefined once answered (exhausted, bad placeholder, status fault). */
function choose(route: ModelRoute, ex: Exchange, body: Record<string, unknown>): ChosenReply | undefined {
  const picked = route.book.pick(ex.codec, body);
  if (picked.index === undefined) {
    const message = `zuno local provider: script exhausted: all ${picked.of} scripted replies were given out; request #${ex.n}${picked.at} has no reply`;
    return void ex.refuse(500, message, 'script_exhausted', `script exhausted${picked.at}`);
  }
  const index = picked.index;
  // `{{receipt:<callId>}}` becomes the receipt id the call's row got, read from this request's conversation.
  const filled = fillReceiptsFromRequest(route.replies[index]!, ex.codec.surface, body);
  if ('missing' in filled) {
    const message = `zuno local provider: reply ${index + 1}${picked.at} cites the receipt of ${filled.missing.join(', ')}, but the conversation holds no result of that call with a [verification rcp_…] line`;
    return void ex.refuse(400, message, 'script_invalid', 'unresolved receipt placeholder');
  }
  const reply = filled.reply;
  const fault = reply.fault;
  const label = `reply ${index + 1}/${route.replies.length}${picked.at}`;
  const taken = route.book.takeFault(index, fault);
  if (taken?.kind === 'context-limit') {
    const used = requestTokens(ex.codec, body);
    const e = contextLimitError(ex.codec, used, route.script.contextWindow ?? Math.max(1, used - 1));
    ex.answer(400, ex.codec.errorBody(400, ex.rid, e.message, e.code));
    ex.logLine(`400 context limit (${label}, fault ${taken.use}/${fault?.times ?? 1})`);
    return undefined;
  }
  if (taken?.kind === 'status') {
    const extra: Record<string, string> = fault?.retryAfter !== undefined ? { 'retry-after': fault.retryAfter } : {};
    ex.answer(fault!.status!, ex.codec.errorBody(fault!.status!, ex.rid, fault!.message, fault!.code), extra);
    ex.logLine(`${fault!.status} (${label}, fault ${taken.use}/${fault!.times ?? 1})`);
    return undefined;
  }
  if (taken === undefined) route.book.markServed(index);
  return { index, reply, label, ...(taken ? { partial: taken.kind } : {}) };
}

/** Sends the chosen reply: after a scripted header delay, as a JSON replay, a JSON object or an SSE stream. */
async function sendReply(route: ModelRoute, ex: Exchange, body: Record<string, unknown>, chosen: ChosenReply) {
  const { index, reply, label, partial } = chosen;
  const fault = reply.fault;
  const delay = partial === undefined && fault?.delayMs !== undefined ? fault.delayMs : 0;
  const between = fault?.between ?? 'headers';
  if (delay > 0 && between === 'headers' && !(await ex.wait(delay))) return;
  const replay = route.replays.get(index);
  if (replay?.kind === 'json') {
    ex.answer(replay.status, replay.body);
    return ex.logLine(`${replay.status} JSON replay (${label})`);
  }
  const ctx: RenderCtx = {
    replyIndex: index,
    n: ex.n,
    model: (body as CapturedRequest).model,
    created: Math.floor(Date.now() / 1000),
    body,
  };
  const turn = toTurn(replay === undefined ? reply : {}, index);
  if (!ex.codec.wantsStream(body)) {
    ex.answer(200, JSON.stringify(ex.codec.json(turn, ctx)));
    return ex.logLine(`200 JSON (${label})`);
  }
  const { content, terminal } =
    replay !== undefined
      ? {
          content: replay.events.map((ev) => ex.codec.replayEvent(ev)),
          terminal: ex.codec.replayClosing(reply.done !== false),
        }
      : ex.codec.render(turn, ctx);
  ex.openStream(delay > 0 && between === 'chunks' ? delay : 0);
  if (partial !== undefined) {
    const fired = `fault ${route.book.faultUses(index)}/${fault?.times ?? 1}`;
    return streamPartial(ex, ctx, content, partial, reply, `${label}, ${fired}`);
  }
  for (const ev of [...content, ...terminal]) if (!(await ex.write(frame(ev)))) return;
  await ex.end();
  ex.logLine(`200 SSE ${content.length + terminal.length} events (${label}${replay?.file ? `, ${replay.file}` : ''})`);
}

/** A stream cut short by a fault: half the events (one for `malformed`), then the fault's ending. */
async function streamPartial(
  ex: Exchange,
  ctx: RenderCtx,
  content: WireEvent[],
  partial: NonNullable<ChosenReply['partial']>,
  reply: ScriptReply,
  label: string,
): Promise<void> {
  const keep = partial === 'malformed' ? 1 : Math.max(1, Math.ceil(content.length / 2));
  for (const ev of content.slice(0, keep)) if (!(await ex.write(frame(ev)))) return;
  if (partial === 'malformed' && !(await ex.write(ex.codec.malformed(ctx)))) return;
  if (partial === 'stream-error') {
    for (const ev of ex.codec.streamError(ctx, keep, reply.fault?.message, reply.fault?.code))
      if (!(await ex.write(frame(ev)))) return;
  }
  await ex.end(partial === 'cut-destroy');
  ex.logLine(`200 SSE ${partial} after ${keep} events (${label})`);
}
