/**
 * Local provider server: a loopback HTTP server speaking the real OpenAI
 * Chat Completions wire format (JSON requests, SSE `chat.completion.chunk`
 * streams), replaying a {@link Script}. Backs provider tests and the offline
 * demo (DESIGN.md §6 "Models"); exercises PR2/PR4/PR5/PR6 through faults.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { loadScript, parseScript, type Script, type ScriptReply } from './script.js';

/** Largest request body accepted (bytes); larger bodies get 413. */
export const MAX_REQUEST_BYTES = 32 * 1024 * 1024;

/** A parsed `POST /v1/chat/completions` JSON body, as received (in arrival order). */
export interface CapturedRequest {
  model: string;
  messages: Array<Record<string, unknown>>;
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
}

/** A running local provider. */
export interface LocalProvider {
  /** Base URL ending in `/v1`, e.g. `http://127.0.0.1:41234/v1` (use as `ProviderConfig.baseUrl`). */
  url: string;
  port: number;
  /** Parsed JSON bodies of every chat-completions request (including faulted ones), in arrival order. */
  requests: CapturedRequest[];
  /** Request headers of the same requests, index-aligned with `requests`. */
  requestHeaders: IncomingHttpHeaders[];
  /** Number of replies fully consumed so far (0..script.replies.length). */
  readonly served: number;
  /** Stop listening, drop open connections and pending delays. Idempotent. */
  close(): Promise<void>;
}

interface WireChunk {
  id: string;
  object: 'chat.completion.chunk';
  created: number;
  model: string;
  choices: Array<{ index: 0; delta: Record<string, unknown>; finish_reason: string | null }>;
  usage?: Record<string, unknown>;
}

/**
 * Split a text into several deltas, word by word (whitespace kept with the
 * following word); a single word of ≥ 2 code points is cut in two. The pieces
 * always join back to exactly `text`. Empty text → no pieces.
 */
export function splitDeltas(text: string): string[] {
  if (text === '') return [];
  const words = text.match(/\s*\S+|\s+$/g) ?? [text];
  if (words.join('') !== text) return [text];
  if (words.length >= 2) return words;
  return splitPieces(text, 2);
}

/** Split a string into `n` (≤ its code-point length) non-empty pieces on code-point boundaries. */
export function splitPieces(s: string, n: number): string[] {
  const cps = Array.from(s);
  if (cps.length < 2 || n < 2) return [s];
  const k = Math.min(n, cps.length);
  const out: string[] = [];
  for (let i = 0; i < k; i++) {
    out.push(cps.slice(Math.floor((i * cps.length) / k), Math.floor(((i + 1) * cps.length) / k)).join(''));
  }
  return out;
}

function argsText(args: string | Record<string, unknown>): string {
  return typeof args === 'string' ? args : JSON.stringify(args);
}

function estimateTokens(chars: number): number {
  return Math.max(1, Math.ceil(chars / 4));
}

interface BuildCtx {
  replyIndex: number;
  id: string;
  model: string;
  created: number;
  includeUsage: boolean;
  promptChars: number;
}

/**
 * Build the `chat.completion.chunk` objects of a normal (non-`chunks`) reply:
 * `content` = chunks before the terminal ones, `terminal` = the finish_reason
 * chunk and the usage chunk (each present only when applicable).
 */
export function buildReplyChunks(reply: ScriptReply, c: BuildCtx): { content: WireChunk[]; terminal: WireChunk[] } {
  const mk = (delta: Record<string, unknown>, finish: string | null = null): WireChunk => ({
    id: c.id,
    object: 'chat.completion.chunk',
    created: c.created,
    model: c.model,
    choices: [{ index: 0, delta, finish_reason: finish }],
  });
  const content: WireChunk[] = [mk({ role: 'assistant', content: '' })];
  for (const piece of splitDeltas(reply.reasoning ?? '')) content.push(mk({ reasoning_content: piece }));
  for (const piece of splitDeltas(reply.text ?? '')) content.push(mk({ content: piece }));

  const calls = (reply.toolCalls ?? []).map((tc, i) => ({
    index: i,
    id: tc.id ?? `call_${c.replyIndex}_${i}`,
    name: tc.name,
    pieces: argsText(tc.arguments) === '' ? [''] : splitPieces(argsText(tc.arguments), 3),
  }));
  const header = (call: (typeof calls)[number]): WireChunk =>
    mk({
      tool_calls: [{ index: call.index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }],
    });
  const argChunk = (call: (typeof calls)[number], piece: string): WireChunk =>
    mk({ tool_calls: [{ index: call.index, function: { arguments: piece } }] });
  if (reply.interleaveToolCalls === true) {
    for (const call of calls) content.push(header(call));
    const maxPieces = Math.max(0, ...calls.map((x) => x.pieces.length));
    for (let p = 0; p < maxPieces; p++) {
      for (const call of calls) {
        const piece = call.pieces[p];
        if (piece !== undefined) content.push(argChunk(call, piece));
      }
    }
  } else {
    for (const call of calls) {
      content.push(header(call));
      for (const piece of call.pieces) content.push(argChunk(call, piece));
    }
  }

  const terminal: WireChunk[] = [];
  const finish = reply.finishReason === undefined ? (calls.length > 0 ? 'tool_calls' : 'stop') : reply.finishReason;
  if (finish !== null) terminal.push(mk({}, finish));
  if (c.includeUsage && reply.usage !== null) {
    let usage: Record<string, unknown>;
    if (reply.usage === undefined) {
      const outChars =
        (reply.text ?? '').length +
        (reply.reasoning ?? '').length +
        calls.reduce((n, x) => n + x.name.length + x.pieces.join('').length, 0);
      const prompt = estimateTokens(c.promptChars);
      const completion = estimateTokens(outChars);
      usage = { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
    } else {
      const u = reply.usage;
      usage = {};
      if (u.inputTokens !== undefined) usage.prompt_tokens = u.inputTokens;
      if (u.outputTokens !== undefined) usage.completion_tokens = u.outputTokens;
      if (u.totalTokens !== undefined) usage.total_tokens = u.totalTokens;
      if (u.cachedInputTokens !== undefined) usage.prompt_tokens_details = { cached_tokens: u.cachedInputTokens };
      if (u.reasoningTokens !== undefined) usage.completion_tokens_details = { reasoning_tokens: u.reasoningTokens };
    }
    terminal.push({
      id: c.id,
      object: 'chat.completion.chunk',
      created: c.created,
      model: c.model,
      choices: [],
      usage,
    });
  }
  return { content, terminal };
}

const STATUS_DEFAULTS: Record<number, { type: string; code: string; message: string }> = {
  400: { type: 'invalid_request_error', code: 'invalid_request', message: 'Invalid request (scripted fault).' },
  401: {
    type: 'invalid_request_error',
    code: 'invalid_api_key',
    message: 'Incorrect API key provided (scripted fault).',
  },
  403: { type: 'invalid_request_error', code: 'forbidden', message: 'Forbidden (scripted fault).' },
  404: {
    type: 'invalid_request_error',
    code: 'model_not_found',
    message: 'The model does not exist (scripted fault).',
  },
  422: { type: 'invalid_request_error', code: 'unprocessable', message: 'Unprocessable request (scripted fault).' },
  429: { type: 'rate_limit_error', code: 'rate_limit_exceeded', message: 'Rate limit reached (scripted fault).' },
  500: { type: 'server_error', code: 'server_error', message: 'The server had an error (scripted fault).' },
  502: { type: 'server_error', code: 'bad_gateway', message: 'Bad gateway (scripted fault).' },
  503: { type: 'server_error', code: 'overloaded', message: 'The engine is overloaded (scripted fault).' },
};

function errorBody(status: number, message?: string, code?: string): string {
  const d = STATUS_DEFAULTS[status] ?? {
    type: status >= 500 ? 'server_error' : 'invalid_request_error',
    code: `http_${status}`,
    message: `HTTP ${status} (scripted fault).`,
  };
  return JSON.stringify({ error: { message: message ?? d.message, type: d.type, param: null, code: code ?? d.code } });
}

function sse(obj: unknown): string {
  return `data: ${typeof obj === 'string' ? obj : JSON.stringify(obj)}\n\n`;
}

/**
 * Start a local provider on loopback.
 *
 * Routes: `POST /v1/chat/completions` (next scripted reply; `stream: true`
 * gets SSE, otherwise a `chat.completion` JSON object), `GET /v1/models`
 * (`{object:'list', data:[{id: script.model ?? 'zuno-local'}]}`), anything
 * else 404 JSON. A body that is not JSON or lacks `model`/`messages` gets 400
 * `invalid_request_error`. Once every reply is served, further requests get
 * HTTP 500 `{error:{code:'script_exhausted', message:'…script exhausted…'}}`
 * at once (never a hang). Each response carries `x-request-id: req_local_<n>`
 * (n = 1-based request number).
 *
 * Reply/fault semantics: see `ScriptReplySchema` / `ScriptFaultSchema` in `script.ts`.
 *
 * @returns the base URL (`http://host:port/v1`), port, captured requests and `close()`.
 * @throws ZunoError `script_invalid` for an invalid script (file or inline);
 *   the listen error (e.g. EADDRINUSE) if the port cannot be bound.
 */
export async function startLocalProvider(opts: LocalProviderOptions): Promise<LocalProvider> {
  const script = typeof opts.script === 'string' ? await loadScript(opts.script) : parseScript(opts.script);
  const host = opts.host ?? '127.0.0.1';
  const log = opts.onLog ?? ((): void => undefined);
  const requests: CapturedRequest[] = [];
  const requestHeaders: IncomingHttpHeaders[] = [];
  const faultUses = new Map<number, number>();
  const life = new AbortController();
  let cursor = 0;
  let requestNo = 0;

  const handleChat = async (req: IncomingMessage, res: ServerResponse, n: number, rid: string): Promise<void> => {
    const raw = await readBody(req);
    if (raw === undefined) {
      res.writeHead(413, { 'content-type': 'application/json', 'x-request-id': rid });
      res.end(errorBody(413, `request body larger than ${MAX_REQUEST_BYTES} bytes`, 'request_too_large'));
      log(`#${n} POST /v1/chat/completions -> 413 body too large`);
      return;
    }
    let body: unknown;
    try {
      body = JSON.parse(raw) as unknown;
    } catch {
      res.writeHead(400, { 'content-type': 'application/json', 'x-request-id': rid });
      res.end(errorBody(400, 'We could not parse the JSON body of your request.', 'invalid_json'));
      log(`#${n} POST /v1/chat/completions -> 400 invalid JSON`);
      return;
    }
    const b = body as Partial<CapturedRequest> | null;
    if (b === null || typeof b !== 'object' || typeof b.model !== 'string' || !Array.isArray(b.messages)) {
      res.writeHead(400, { 'content-type': 'application/json', 'x-request-id': rid });
      res.end(errorBody(400, "The request needs a string 'model' and an array 'messages'.", 'invalid_request'));
      log(`#${n} POST /v1/chat/completions -> 400 missing model/messages`);
      return;
    }
    const captured = b as CapturedRequest;
    requests.push(captured);
    requestHeaders.push(req.headers);

    if (script.apiKey !== undefined) {
      const auth = req.headers.authorization ?? '';
      if (auth !== `Bearer ${script.apiKey}`) {
        const given = auth.replace(/^Bearer\s+/i, '');
        res.writeHead(401, { 'content-type': 'application/json', 'x-request-id': rid });
        res.end(errorBody(401, `Incorrect API key provided: ${given === '' ? '(none)' : given}.`, 'invalid_api_key'));
        log(`#${n} POST /v1/chat/completions -> 401 wrong API key`);
        return;
      }
    }

    if (cursor >= script.replies.length) {
      res.writeHead(500, { 'content-type': 'application/json', 'x-request-id': rid });
      res.end(
        errorBody(
          500,
          `zuno local provider: script exhausted: all ${script.replies.length} scripted replies were served; request #${n} has no reply`,
          'script_exhausted',
        ),
      );
      log(`#${n} POST /v1/chat/completions -> 500 script exhausted`);
      return;
    }

    const replyIndex = cursor;
    const reply = script.replies[replyIndex] as ScriptReply;
    const fault = reply.fault;
    const label = `reply ${replyIndex + 1}/${script.replies.length}`;

    // Repeating faults (status / cutStream / malformedChunk): the reply stays current.
    let partial: 'cut-end' | 'cut-destroy' | 'malformed' | undefined;
    if (fault !== undefined && fault.delayMs === undefined) {
      const used = faultUses.get(replyIndex) ?? 0;
      if (used < (fault.times ?? 1)) {
        faultUses.set(replyIndex, used + 1);
        if (fault.status !== undefined) {
          const headers: Record<string, string> = { 'content-type': 'application/json', 'x-request-id': rid };
          if (fault.retryAfter !== undefined) headers['retry-after'] = fault.retryAfter;
          res.writeHead(fault.status, headers);
          res.end(errorBody(fault.status, fault.message, fault.code));
          log(`#${n} POST /v1/chat/completions -> ${fault.status} (${label}, fault ${used + 1}/${fault.times ?? 1})`);
          return;
        }
        partial = fault.cutStream === true ? (fault.mode === 'destroy' ? 'cut-destroy' : 'cut-end') : 'malformed';
      }
    }
    if (partial === undefined) cursor += 1;

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

    const created = Math.floor(Date.now() / 1000);
    const chunkCtx: BuildCtx = {
      replyIndex,
      id: `chatcmpl-local-${n}`,
      model: captured.model,
      created,
      includeUsage: captured.stream_options?.include_usage === true,
      promptChars: JSON.stringify(captured.messages).length,
    };

    if (captured.stream !== true) {
      res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': rid });
      res.end(JSON.stringify(nonStreaming(reply, chunkCtx)));
      log(`#${n} POST /v1/chat/completions -> 200 JSON (${label})`);
      return;
    }

    let content: unknown[];
    let terminal: unknown[];
    if (reply.chunks !== undefined) {
      content = reply.chunks;
      terminal = [];
    } else {
      ({ content, terminal } = buildReplyChunks(reply, chunkCtx));
    }

    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      'x-request-id': rid,
    });
    const write = async (text: string, first: boolean): Promise<boolean> => {
      if (!first && delay > 0 && delayBetween === 'chunks' && !(await wait(delay))) return false;
      if (res.destroyed || signal.aborted) return false;
      res.write(text);
      return true;
    };

    if (partial !== undefined) {
      const keep = partial === 'malformed' ? 1 : Math.max(1, Math.ceil(content.length / 2));
      let first = true;
      for (const chunk of content.slice(0, keep)) {
        if (!(await write(sse(chunk), first))) return;
        first = false;
      }
      if (partial === 'malformed') {
        await write(
          `data: {"id":"chatcmpl-local-${n}","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"x"\n\n`,
          false,
        );
      }
      if (partial === 'cut-destroy') {
        // Let the written bytes leave before the socket is destroyed.
        await wait(20);
        res.socket?.destroy();
      } else {
        res.end();
      }
      log(
        `#${n} POST /v1/chat/completions -> 200 SSE ${partial} after ${keep} chunks (${label}, fault ${faultUses.get(replyIndex)}/${fault?.times ?? 1})`,
      );
      return;
    }

    let first = true;
    for (const chunk of [...content, ...terminal]) {
      if (!(await write(sse(chunk), first))) return;
      first = false;
    }
    if (reply.done !== false && !(await write(sse('[DONE]'), first))) return;
    res.end();
    log(`#${n} POST /v1/chat/completions -> 200 SSE ${content.length + terminal.length} chunks (${label})`);
  };

  const server = createServer((req, res) => {
    requestNo += 1;
    const n = requestNo;
    const rid = `req_local_${n}`;
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const run = async (): Promise<void> => {
      if (req.method === 'POST' && path === '/v1/chat/completions') return handleChat(req, res, n, rid);
      req.resume();
      if (req.method === 'GET' && path === '/v1/models') {
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
      res.end(errorBody(404, `Unknown route: ${req.method ?? '?'} ${path}`, 'not_found'));
      log(`#${n} ${req.method ?? '?'} ${path} -> 404`);
    };
    run().catch((err: unknown) => {
      log(`#${n} internal error: ${err instanceof Error ? err.message : String(err)}`);
      if (!res.headersSent) {
        res.writeHead(500, { 'content-type': 'application/json', 'x-request-id': rid });
        res.end(errorBody(500, 'zuno local provider internal error', 'internal_error'));
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
    get served() {
      return cursor;
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

/** The non-streaming `chat.completion` object of a reply (`stream` not true in the request). */
function nonStreaming(reply: ScriptReply, c: BuildCtx): Record<string, unknown> {
  const { content, terminal } =
    reply.chunks !== undefined
      ? { content: [] as WireChunk[], terminal: [] as WireChunk[] }
      : buildReplyChunks(reply, { ...c, includeUsage: true });
  const calls = (reply.toolCalls ?? []).map((tc, i) => ({
    id: tc.id ?? `call_${c.replyIndex}_${i}`,
    type: 'function',
    function: { name: tc.name, arguments: argsText(tc.arguments) },
  }));
  const message: Record<string, unknown> = { role: 'assistant', content: reply.text ?? (calls.length > 0 ? null : '') };
  if (reply.reasoning !== undefined) message.reasoning_content = reply.reasoning;
  if (calls.length > 0) message.tool_calls = calls;
  const finish = [...content, ...terminal].map((x) => x.choices[0]?.finish_reason).find((f) => f != null) ?? null;
  const usage = terminal.find((x) => x.usage !== undefined)?.usage;
  const out: Record<string, unknown> = {
    id: c.id,
    object: 'chat.completion',
    created: c.created,
    model: c.model,
    choices: [{ index: 0, message, finish_reason: finish }],
  };
  if (usage !== undefined) out.usage = usage;
  return out;
}
