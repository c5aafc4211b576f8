/**
 * Helpers for the `zuno serve` tests: spawn the real server (`node
 * bin/zuno.mjs serve --port 0`) on a fresh home, call it over real HTTP
 * (fetch) with its token, and read its SSE streams with eventsource-parser.
 */
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { waitFor } from '../helpers/worker-process.js';
import { runZuno, type ZunoResult } from '../cli/helpers.js';

/** A running `zuno serve`. */
export interface Served {
  url: string;
  token: string;
  child: ChildProcess;
  /** Everything the server wrote on stderr so far. */
  stderr(): string;
  /** Sends SIGTERM and resolves with how it ended. */
  stop(): Promise<ZunoResult>;
}

/** Starts `zuno serve --port 0 …args` on `home`; resolves once it prints its listening line. */
export async function startServe(home: string, args: string[], env: Record<string, string> = {}): Promise<Served> {
  let child: ChildProcess | undefined;
  let stderr = '';
  const done = runZuno(['serve', '--port', '0', ...args], {
    home,
    env,
    timeoutMs: 600_000,
    onSpawn: (c) => {
      child = c;
      c.stderr!.on('data', (d: Buffer | string) => (stderr += String(d)));
    },
  });
  let exited = false;
  void done.then(() => (exited = true));
  const url = await waitFor(
    async () => {
      if (exited) throw new Error(`zuno serve exited: ${stderr}`);
      return /listening on (http:\/\/\S+)/.exec(stderr)?.[1];
    },
    120_000,
    'zuno serve to listen',
  );
  const token = readFileSync(join(home, 'http-token'), 'utf8').trim();
  return {
    url,
    token,
    child: child!,
    stderr: () => stderr,
    stop: async () => {
      child!.kill('SIGTERM');
      return done;
    },
  };
}

/** fetch `path` on the server with its token (Bearer) and a JSON body when given. */
export function call(s: Served, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  return fetch(`${s.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${s.token}`,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...headers,
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
}

/** fetch and parse a JSON answer, failing with the body when the status is not `status`. */
export async function json<T = Record<string, unknown>>(res: Promise<Response>, status: number): Promise<T> {
  const r = await res;
  const text = await r.text();
  if (r.status !== status) throw new Error(`expected ${status}, got ${r.status}: ${text}`);
  return JSON.parse(text) as T;
}

/** One SSE message as the test reads it. */
export interface Sse {
  event: string;
  id: string | undefined;
  data: Record<string, unknown>;
}

/** An open SSE stream: the messages so far, a wait for one, and a way to drop the connection. */
export interface SseStream {
  messages: Sse[];
  comments: string[];
  /** Resolves with the first message (in order, from index `from`) that `pred` accepts. */
  until(pred: (m: Sse) => boolean, timeoutMs?: number): Promise<Sse>;
  /** Drops the connection (as a client going away). */
  close(): void;
}

/** Opens an SSE stream at `path` (with `Last-Event-ID` when given). */
export async function openStream(s: Served, path: string, lastEventId?: string): Promise<SseStream> {
  const ac = new AbortController();
  const res = await fetch(`${s.url}${path}`, {
    headers: {
      authorization: `Bearer ${s.token}`,
      accept: 'text/event-stream',
      ...(lastEventId !== undefined ? { 'last-event-id': lastEventId } : {}),
    },
    signal: ac.signal,
  });
  if (res.status !== 200) throw new Error(`stream ${path}: ${res.status} ${await res.text()}`);
  const messages: Sse[] = [];
  const comments: string[] = [];
  const parser = createParser({
    onEvent: (m: EventSourceMessage) =>
      messages.push({ event: m.event ?? 'message', id: m.id, data: JSON.parse(m.data) as Record<string, unknown> }),
    onComment: (c) => comments.push(c),
  });
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  void (async () => {
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        parser.feed(decoder.decode(value, { stream: true }));
      }
    } catch {
      // aborted by close()
    }
  })();
  return {
    messages,
    comments,
    until: (pred, timeoutMs = 120_000) =>
      waitFor(async () => messages.find(pred), timeoutMs, `an SSE message on ${path}`),
    close: () => ac.abort(),
  };
}

/** The workspace zuno.json of a strict session (every call asks). */
export const STRICT_CONFIG = { permission: { mode: 'strict' } };
