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
import type { WireSurface } from '../core/messages.js';
import { Exchange } from './exchange.js';
import { handleModelRequest, type CapturedRequest, type ModelRoute } from './model-route.js';
import { openAiErrorBody } from './openai-errors.js';
import { loadReplays } from './replay.js';
import { ReplyBook } from './reply-book.js';
import { flattenThreads, loadScript, parseScript, withReplayPathsFrom, type Script } from './script.js';
import type { SurfaceCodec } from './surface.js';
import { anthropicSurface } from './surface-anthropic.js';
import { chatSurface } from './surface-chat.js';
import { responsesSurface } from './surface-responses.js';

export { splitDeltas, splitPieces } from './turn.js';
export { MAX_REQUEST_BYTES } from './exchange.js';
export type { CapturedRequest } from './model-route.js';

/** The surfaces served, by route suffix. */
const SURFACES: readonly SurfaceCodec[] = [chatSurface, responsesSurface, anthropicSurface];

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
  const route = await modelRoute(opts);
  const host = opts.host ?? '127.0.0.1';
  const log = opts.onLog ?? ((): void => undefined);
  const life = new AbortController();
  let requestNo = 0;
  const server = createServer((req, res) => {
    requestNo += 1;
    const n = requestNo;
    serveRequest(route, req, res, n, life.signal, log).catch((err: unknown) => {
      log(`#${n} internal error: ${err instanceof Error ? err.message : String(err)}`);
      if (res.headersSent) return void res.destroy();
      res.writeHead(500, { 'content-type': 'application/json', 'x-request-id': `req_local_${n}` });
      res.end(openAiErrorBody(500, 'zuno local provider internal error', 'internal_error'));
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
  let closing: Promise<void> | undefined;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}/v1`,
    port,
    requests: route.requests,
    requestHeaders: route.requestHeaders,
    requestSurfaces: route.requestSurfaces,
    get served() {
      return route.book.servedCount;
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

/** The script (file or inline, validated), its recorded replays and a fresh or restored reply book. */
async function modelRoute(opts: LocalProviderOptions): Promise<ModelRoute> {
  const script: Script =
    typeof opts.script === 'string'
      ? await loadScript(opts.script)
      : withReplayPathsFrom(parseScript(opts.script), process.cwd());
  const replies = flattenThreads(script).replies;
  const source = typeof opts.script === 'string' ? opts.script : '<inline script>';
  const replays = await loadReplays({ ...script, replies }, source, process.cwd());
  const requests: CapturedRequest[] = [];
  const requestHeaders: IncomingHttpHeaders[] = [];
  const requestSurfaces: WireSurface[] = [];
  return {
    script,
    replies,
    replays,
    book: new ReplyBook(script, opts.stateFile),
    requests,
    requestHeaders,
    requestSurfaces,
  };
}

/** Routes one request: a model surface, `GET …/models`, or a 404. */
async function serveRequest(
  route: ModelRoute,
  req: IncomingMessage,
  res: ServerResponse,
  n: number,
  life: AbortSignal,
  log: (line: string) => void,
): Promise<void> {
  const rid = `req_local_${n}`;
  const path = (req.url ?? '/').split('?')[0] ?? '/';
  const codec = req.method === 'POST' ? SURFACES.find((s) => path.endsWith(s.route)) : undefined;
  if (codec !== undefined) return handleModelRequest(route, new Exchange(codec, req, res, n, rid, path, life, log));
  req.resume();
  if (req.method === 'GET' && path.endsWith('/models')) {
    res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': rid });
    const id = route.script.model ?? 'zuno-local';
    res.end(JSON.stringify({ object: 'list', data: [{ id, object: 'model', created: 0, owned_by: 'zuno-local' }] }));
    return;
  }
  res.writeHead(404, { 'content-type': 'application/json', 'x-request-id': rid });
  res.end(openAiErrorBody(404, `Unknown route: ${req.method ?? '?'} ${path}`, 'not_found'));
  log(`#${n} ${req.method ?? '?'} ${path} -> 404`);
}
