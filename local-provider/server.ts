/**
 * Local provider server: a loopback HTTP server speaking the real wire
 * formats of OpenAI Chat Completions, OpenAI Responses and Anthropic
 * Messages (JSON requests, SSE streams), replaying a {@link Script}: each
 * model request gets the reply of its conversation position (a retried step
 * gets the same reply; `replyBy: "arrival"`: the next reply), rendered for
 * the surface called, or a recorded stream replayed byte-for-byte. Backs provider tests and the
 * offline demo (DESIGN.md §6 "Models"); exercises PR2/PR4/PR5/PR6 through faults.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { WireSurface } from '../core/messages.js';
import { openAiErrorBody } from './openai-errors.js';
import { fillReceiptsFromRequest } from './placeholders.js';
import { conversationPosition, firstUserText, positionKey } from './position.js';
import { loadReplays, type Replay } from './replay.js';
import { freshReplyState, loadReplyState, saveReplyState } from './reply-state.js';
import {
  flattenThreads,
  loadScript,
  parseScript,
  withReplayPathsFrom,
  type Script,
  type ScriptReply,
} from './script.js';
import { frame, type RenderCtx, type SurfaceCodec, type WireEvent } from './surface.js';
import { anthropicSurface } from './surface-anthropic.js';
import { chatSurface } from './surface-chat.js';
import { responsesSurface } from './surface-responses.js';
import { toTurn } from './turn.js';

export { splitDeltas, splitPieces } from './turn.js';

/** Largest request body accepted (bytes); larger bodies get 413. */
export const MAX_REQUEST_BYTES = 32 * 1024 * 1024;

/** The surfaces served, by route suffix. */
const SURFACES: readonly SurfaceCodec[] = [chatSurface, responsesSurface, anthropicSurface];

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

/** Options of {@link startLocalProvider}. */
export interface LocalProviderOptions {
  /** A validated or inline script object, or the path of a script file (see `loadScript`). */
  script: Script | string;
  /** Interface to bind; default `127.0.0.1` (loopback only). */
  host?: string;
  /** TCP port; default 0 (an ephemeral port, read it back from `port`). */
  port?: number;
  /** Receives one human-readable line per request (for `zuno dev provider`). */
  onLog?: (line: string) => void;
  /**
   * Keep the reply bookkeeping in this file (`reply-state.ts`): a server
   * started again with the same file goes on where the last one stopped.
   * Absent: in memory only.
   */
  stateFile?: string;
}

/** A running local provider. */
export interface LocalProvider {
  /** Base URL ending in `/v1`, e.g. `http://127.0.0.1:41234/v1` (use as `ProviderConfig.baseUrl`). */
  url: string;
  port: number;
  /** Parsed JSON bodies of every model request on any surface (faulted ones too), in arrival order. */
  requests: CapturedRequest[];
  /** Request headers of the same requests, index-aligned with `requests`. */
  requestHeaders: IncomingHttpHeaders[];
  /** The surface each request came on, index-aligned with `requests`. */
  requestSurfaces: WireSurface[];
  /** Number of distinct replies served in full so far (0..script.replies.length). */
  readonly served: number;
  /** Stop listening, drop open connections and pending delays. Idempotent. */
  close(): Promise<void>;
}

/**
 * Start a local provider on loopback.
 *
 * Routes (any path prefix, normally `/v1`): `POST …/chat/completions` (Chat
 * Completions), `POST …/responses` (Responses), `POST …/messages` (Anthropic
 * Messages) each take a scripted reply (by conversation position, see
 * `ScriptSchema.replyBy` and `position.ts`) — SSE when the body has
 * `stream: true`, else the surface's JSON object; `GET …/models` lists
 * `script.model ?? 'zuno-local'`; anything else is a 404 JSON error.
 *
 * A body that is not JSON, or misses what the surface requires (Chat:
 * `model` + `messages`; Responses: `model` + `input`; Anthropic: `model` +
 * `messages` + `max_tokens` and an `anthropic-version` header) gets 400 in
 * the surface's error shape. A request for which no reply is left (a new
 * position once every reply is given out; `arrival`: once every reply is
 * served) gets HTTP 500 with code (Anthropic: type) `script_exhausted` at
 * once (never a hang). Each response carries `x-request-id: req_local_<n>` (Anthropic:
 * `request-id`), n = 1-based request number.
 *
 * Reply/fault semantics: see `ScriptReplySchema` / `ScriptFaultSchema` in
 * `script.ts`; recorded replays: `replay.ts`.
 *
 * @returns the base URL (`http://host:port/v1`), port, captured requests and `close()`.
 * @throws ZunoError `script_invalid` for an invalid script (file or inline) or
 *   an unusable replay file (naming `replies[i].chunks`); the listen error
 *   (e.g. EADDRINUSE) if the port cannot be bound.
 */
export async function startLocalProvider(opts: LocalProviderOptions): Promise<LocalProvider> {
  const fromFile = typeof opts.script === 'string';
  const script =
    typeof opts.script === 'string'
      ? await loadScript(opts.script)
      : withReplayPathsFrom(parseScript(opts.script), process.cwd());
  const replays = await loadReplays(
    { ...script, replies: flattenThreads(script).replies },
    fromFile ? (opts.script as string) : '<inline script>',
    process.cwd(),
  );
  const host = opts.host ?? '127.0.0.1';
  const log = opts.onLog ?? ((): void => undefined);
  const requests: CapturedRequest[] = [];
  const requestHeaders: IncomingHttpHeaders[] = [];
  const requestSurfaces: WireSurface[] = [];
  const life = new AbortController();
  const { replies: all, ranges } = flattenThreads(script);
  const fresh = freshReplyState(ranges.map((r) => r.start));
  const stateFile = opts.stateFile;
  /**
   * Per conversation (0: top level, i+1: `threads[i]`): position → reply index in `all`;
   * `cursors`: per conversation, the next reply no position holds yet (`arrival`: the next reply not yet served in full).
   */
  const state = stateFile ? loadReplyState(stateFile, fresh) : fresh;
  const { byPosition, cursors, faultUses, served } = state;
  const remember = (): void => {
    if (stateFile) saveReplyState(stateFile, state);
  };
  let requestNo = 0;

  /** The reply a request gets (see `ScriptSchema.replyBy` and `threads`), or undefined when its conversation has none left. */
  const pickReply = (
    codec: SurfaceCodec,
    body: Record<string, unknown>,
  ): { index?: number; at: string; of: number } => {
    if (script.replyBy === 'arrival')
      return { index: cursors[0]! < script.replies.length ? cursors[0] : undefined, at: '', of: script.replies.length };
    const first = ranges.length > 1 ? firstUserText(codec.surface, body) : '';
    const t = Math.max(
      0,
      ranges.findIndex((r, i) => i > 0 && r.match !== undefined && first.includes(r.match)),
    );
    const range = ranges[t]!;
    const key = positionKey(conversationPosition(codec.surface, body));
    const at = `${t > 0 ? ` in thread ${JSON.stringify(range.match)}` : ''} at position ${key}`;
    const of = range.end - range.start;
    const held = byPosition[t]!.get(key);
    if (held !== undefined) return { index: held, at, of };
    if (cursors[t]! >= range.end) return { at, of };
    byPosition[t]!.set(key, cursors[t]!);
    cursors[t]! += 1;
    remember();
    return { index: cursors[t]! - 1, at, of };
  };

  const handleModel = async (
    codec: SurfaceCodec,
    req: IncomingMessage,
    res: ServerResponse,
    n: number,
    rid: string,
    path: string,
  ): Promise<void> => {
    const what = `#${n} POST ${path}`;
    const answer = (status: number, body: string, extra: Record<string, string> = {}): void => {
      res.writeHead(status, { 'content-type': 'application/json', [codec.requestIdHeader]: rid, ...extra });
      res.end(body);
    };
    const raw = await readBody(req);
    if (raw === undefined) {
      answer(
        413,
        codec.errorBody(413, rid, `request body larger than ${MAX_REQUEST_BYTES} bytes`, 'request_too_large'),
      );
      log(`${what} -> 413 body too large`);
      return;
    }
    let body: unknown;
    try {
      body = JSON.parse(raw) as unknown;
    } catch {
      answer(400, codec.errorBody(400, rid, 'We could not parse the JSON body of your request.', 'invalid_json'));
      log(`${what} -> 400 invalid JSON`);
      return;
    }
    if (body === null || typeof body !== 'object' || Array.isArray(body)) {
      answer(400, codec.errorBody(400, rid, 'The request body must be a JSON object.', 'invalid_request'));
      log(`${what} -> 400 not an object`);
      return;
    }
    const b = body as Record<string, unknown>;
    const refusal = codec.validate(b, req.headers);
    if (refusal !== undefined) {
      answer(refusal.status, codec.errorBody(refusal.status, rid, refusal.message, refusal.code));
      log(`${what} -> ${refusal.status} ${refusal.message}`);
      return;
    }
    const captured = b as CapturedRequest;
    requests.push(captured);
    requestHeaders.push(req.headers);
    requestSurfaces.push(codec.surface);

    if (script.apiKey !== undefined) {
      const given = codec.wrongKey(req.headers, script.apiKey);
      if (given !== undefined) {
        answer(401, codec.errorBody(401, rid, codec.wrongKeyMessage(given)));
        log(`${what} -> 401 wrong API key`);
        return;
      }
    }

    const picked = pickReply(codec, b);
    if (picked.index === undefined) {
      answer(
        500,
        codec.errorBody(
          500,
          rid,
          `zuno local provider: script exhausted: all ${picked.of} scripted replies were given out; request #${n}${picked.at} has no reply`,
          'script_exhausted',
        ),
      );
      log(`${what} -> 500 script exhausted${picked.at}`);
      return;
    }

    const replyIndex = picked.index;
    // `{{receipt:<callId>}}` becomes the receipt id the call's row got, read from this request's conversation.
    const filled = fillReceiptsFromRequest(all[replyIndex] as ScriptReply, codec.surface, b);
    if ('missing' in filled) {
      const message = `zuno local provider: reply ${replyIndex + 1}${picked.at} cites the receipt of ${filled.missing.join(', ')}, but the conversation holds no result of that call with a [verification rcp_…] line`;
      answer(400, codec.errorBody(400, rid, message, 'script_invalid'));
      log(`${what} -> 400 unresolved receipt placeholder`);
      return;
    }
    const reply = filled.reply;
    const fault = reply.fault;
    const label = `reply ${replyIndex + 1}/${all.length}${picked.at}`;

    // Repeating faults (status / cutStream / malformedChunk / streamError): the reply stays current.
    let partial: 'cut-end' | 'cut-destroy' | 'malformed' | 'stream-error' | undefined;
    if (fault !== undefined && fault.delayMs === undefined) {
      const used = faultUses.get(replyIndex) ?? 0;
      if (used < (fault.times ?? 1)) {
        faultUses.set(replyIndex, used + 1);
        remember();
        if (fault.status !== undefined) {
          const extra: Record<string, string> = {};
          if (fault.retryAfter !== undefined) extra['retry-after'] = fault.retryAfter;
          answer(fault.status, codec.errorBody(fault.status, rid, fault.message, fault.code), extra);
          log(`${what} -> ${fault.status} (${label}, fault ${used + 1}/${fault.times ?? 1})`);
          return;
        }
        partial =
          fault.cutStream === true
            ? fault.mode === 'destroy'
              ? 'cut-destroy'
              : 'cut-end'
            : fault.streamError === true
              ? 'stream-error'
              : 'malformed';
      }
    }
    if (partial === undefined) {
      served.add(replyIndex);
      if (script.replyBy === 'arrival') cursors[0]! += 1;
      remember();
    }

    const closed = new AbortController();
    res.on('close', () => closed.abort());
    const signal = AbortSignal.any([closed.signal, life.signal]);
    const wait = async (ms: number): Promise<boolean> => {
      try {
        await sleep(ms, undefined, { signal });
        return true;
      } catch {
        return false;
      }
    };

    const delay = partial === undefined && fault?.delayMs !== undefined ? fault.delayMs : 0;
    const delayBetween = fault?.between ?? 'headers';
    if (delay > 0 && delayBetween === 'headers' && !(await wait(delay))) return;

    const replay: Replay | undefined = replays.get(replyIndex);
    if (replay?.kind === 'json') {
      answer(replay.status, replay.body);
      log(`${what} -> ${replay.status} JSON replay (${label})`);
      return;
    }

    const ctx: RenderCtx = {
      replyIndex,
      n,
      model: captured.model,
      created: Math.floor(Date.now() / 1000),
      body: b,
    };
    const turn = toTurn(replay === undefined ? reply : {}, replyIndex);

    if (!codec.wantsStream(b)) {
      answer(200, JSON.stringify(codec.json(turn, ctx)));
      log(`${what} -> 200 JSON (${label})`);
      return;
    }

    let content: WireEvent[];
    let terminal: WireEvent[];
    if (replay !== undefined) {
      content = replay.events.map((ev) => codec.replayEvent(ev));
      terminal = codec.replayClosing(reply.done !== false);
    } else {
      ({ content, terminal } = codec.render(turn, ctx));
    }

    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      [codec.requestIdHeader]: rid,
    });
    let first = true;
    const write = async (text: string): Promise<boolean> => {
      if (!first && delay > 0 && delayBetween === 'chunks' && !(await wait(delay))) return false;
      first = false;
      if (res.destroyed || signal.aborted) return false;
      res.write(text);
      return true;
    };

    if (partial !== undefined) {
      const keep = partial === 'malformed' ? 1 : Math.max(1, Math.ceil(content.length / 2));
      for (const ev of content.slice(0, keep)) if (!(await write(frame(ev)))) return;
      if (partial === 'malformed' && !(await write(codec.malformed(ctx)))) return;
      if (partial === 'stream-error') {
        for (const ev of codec.streamError(ctx, keep, fault?.message, fault?.code))
          if (!(await write(frame(ev)))) return;
      }
      if (partial === 'cut-destroy') {
        // Let the written bytes leave before the socket is destroyed.
        await wait(20);
        res.socket?.destroy();
      } else {
        res.end();
      }
      log(
        `${what} -> 200 SSE ${partial} after ${keep} events (${label}, fault ${faultUses.get(replyIndex)}/${fault?.times ?? 1})`,
      );
      return;
    }

    for (const ev of [...content, ...terminal]) if (!(await write(frame(ev)))) return;
    res.end();
    log(
      `${what} -> 200 SSE ${content.length + terminal.length} events (${label}${replay?.file ? `, ${replay.file}` : ''})`,
    );
  };

  const server = createServer((req, res) => {
    requestNo += 1;
    const n = requestNo;
    const rid = `req_local_${n}`;
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const run = async (): Promise<void> => {
      const codec = req.method === 'POST' ? SURFACES.find((s) => path.endsWith(s.route)) : undefined;
      if (codec !== undefined) return handleModel(codec, req, res, n, rid, path);
      req.resume();
      if (req.method === 'GET' && path.endsWith('/models')) {
        res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': rid });
        res.end(
          JSON.stringify({
            object: 'list',
            data: [{ id: script.model ?? 'zuno-local', object: 'model', created: 0, owned_by: 'zuno-local' }],
          }),
        );
        return;
      }
      res.writeHead(404, { 'content-type': 'application/json', 'x-request-id': rid });
      res.end(openAiErrorBody(404, `Unknown route: ${req.method ?? '?'} ${path}`, 'not_found'));
      log(`#${n} ${req.method ?? '?'} ${path} -> 404`);
    };
    run().catch((err: unknown) => {
      log(`#${n} internal error: ${err instanceof Error ? err.message : String(err)}`);
      if (!res.headersSent) {
        res.writeHead(500, { 'content-type': 'application/json', 'x-request-id': rid });
        res.end(openAiErrorBody(500, 'zuno local provider internal error', 'internal_error'));
      } else {
        res.destroy();
      }
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const hostInUrl = host.includes(':') ? `[${host}]` : host;
  let closing: Promise<void> | undefined;

  return {
    url: `http://${hostInUrl}:${port}/v1`,
    port,
    requests,
    requestHeaders,
    requestSurfaces,
    get served() {
      return served.size;
    },
    close(): Promise<void> {
      if (closing === undefined) {
        life.abort();
        closing = new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
      }
      return closing;
    },
  };
}

/** Read a request body as UTF-8; undefined when it exceeds {@link MAX_REQUEST_BYTES}. */
async function readBody(req: IncomingMessage): Promise<string | undefined> {
  const parts: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    bytes += chunk.length;
    if (bytes > MAX_REQUEST_BYTES) {
      req.resume();
      return undefined;
    }
    parts.push(chunk);
  }
  return Buffer.concat(parts).toString('utf8');
}
