/**
 * The SSE streams of `zuno serve` (issue 29, SF6, SF7): the projection's
 * stored events, unchanged, each as one SSE message whose `event` is the
 * stored type (`tool.dispatch.interrupted`, `question.auto_deferred`, …),
 * whose `id` is its `seq` and whose `data` is the stored event as JSON
 * (`{seq, id, sessionId, type, data, atMs}`). A client that reconnects with
 * `Last-Event-ID` gets exactly the events after it, from the projection, when
 * at most {@link REPLAY_WINDOW} of them are missed (see {@link replayWindow}); further behind, one
 * `replay_window_exceeded` message tells it to reload and the stream goes on
 * from the newest event. A comment line every {@link HEARTBEAT_MS} of quiet
 * keeps proxies from closing the connection; the quiet moments also start
 * this host's worker service again when it died (SF9).
 */
import type { Context } from 'hono';
import { streamSSE, type SSEStreamingApi } from 'hono/streaming';
import type { EventRow } from '../../activities/projection/index.js';
import { ZunoError } from '../../core/errors.js';
import { tailEvents } from '../surface/index.js';
import type { HttpDeps } from './deps.js';

/** Events a resumed stream replays at most; a client further behind gets `replay_window_exceeded`. */
export const REPLAY_WINDOW = 1000;

/**
 * The replay window in force: `ZUNO_SSE_REPLAY_WINDOW` (a whole number
 * 1-100000; tests use a small one) or {@link REPLAY_WINDOW}.
 */
export function replayWindow(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.ZUNO_SSE_REPLAY_WINDOW;
  const n = raw !== undefined && /^\d{1,6}$/.test(raw) ? Number(raw) : NaN;
  return n >= 1 && n <= 100_000 ? n : REPLAY_WINDOW;
}

/** Quiet time after which a heartbeat comment (`: heartbeat`) is written, in ms. */
export const HEARTBEAT_MS = 10_000;

/** The SSE event name of the window message (not a stored event type). */
export const WINDOW_EXCEEDED = 'replay_window_exceeded';

/**
 * Where a stream starts: the `Last-Event-ID` header, else the `after` query
 * parameter, else `fallback`.
 * @throws ZunoError `request_invalid` for a value that is not a whole number ≥ 0.
 */
export function resumePoint(c: Context, fallback: number): number {
  const raw = c.req.header('last-event-id') ?? c.req.query('after');
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d{1,15}$/.test(raw.trim()))
    throw new ZunoError('request_invalid', `Last-Event-ID (or after) ${JSON.stringify(raw.slice(0, 40))} is not a seq`);
  return Number(raw.trim());
}

/** One stored event as an SSE message (pure). */
export function sseMessage(e: EventRow): { event: string; id: string; data: string } {
  return { event: e.type, id: String(e.seq), data: JSON.stringify(e) };
}

/**
 * Streams the stored events after `after` — one session's, or the home's
 * when `sessionId` is absent — until the client goes away or the server
 * stops.
 */
export function streamEvents(c: Context, deps: HttpDeps, opts: { after: number; sessionId?: string }): Response {
  return streamSSE(
    c,
    async (stream) => {
      const ac = new AbortController();
      stream.onAbort(() => ac.abort());
      const signal = AbortSignal.any([ac.signal, deps.shutdown]);
      const after = await windowStart(stream, deps, opts);
      let lastWrite = Date.now();
      const idle = async (): Promise<void> => {
        await deps.host.guardWorker().catch((err: unknown) => deps.log(`zuno serve: worker check: ${String(err)}`));
        if (Date.now() - lastWrite >= HEARTBEAT_MS && !stream.aborted) {
          await stream.write(': heartbeat\n\n');
          lastWrite = Date.now();
        }
      };
      const tail = tailEvents(deps.host.store, {
        after,
        signal,
        idle,
        ...(opts.sessionId !== undefined ? { sessionId: opts.sessionId } : {}),
      });
      for await (const e of tail) {
        if (stream.aborted) break;
        await stream.writeSSE(sseMessage(e));
        lastWrite = Date.now();
      }
    },
    async (err, stream) => {
      deps.log(`zuno serve: an event stream ended: ${err.message}`);
      await stream.close().catch(() => undefined);
    },
  );
}

/**
 * The seq the stream replays from: `opts.after` when at most
 * {@link REPLAY_WINDOW} events follow it; else it writes the
 * `replay_window_exceeded` message (its id the newest seq) and returns that
 * newest seq. A resume point past the newest seq (an id from another home,
 * or from the home stream given to a session's) gets the same message: the
 * stream would otherwise wait for ids that never come and skip every event.
 */
async function windowStart(
  stream: SSEStreamingApi,
  deps: HttpDeps,
  opts: { after: number; sessionId?: string },
): Promise<number> {
  const store = deps.host.store;
  const window = replayWindow();
  const head = opts.sessionId !== undefined ? await store.lastEventSeq(opts.sessionId) : await store.lastSeq();
  const ahead = opts.after > head;
  if (!ahead) {
    const missed =
      opts.sessionId !== undefined
        ? await store.listEvents(opts.sessionId, opts.after, window + 1)
        : await store.listEventsAfter(opts.after, window + 1);
    if (missed.length <= window) return opts.after;
  }
  await stream.writeSSE({
    event: WINDOW_EXCEEDED,
    id: String(head),
    data: JSON.stringify({
      type: WINDOW_EXCEEDED,
      lastEventId: opts.after,
      window,
      latestSeq: head,
      message: ahead
        ? `seq ${opts.after} is past this stream's newest event (${head}): reload the state (GET /sessions/{id}/transcript); the stream goes on after seq ${head}`
        : `more than ${window} events were missed: reload the state (GET /sessions/{id}/transcript); the stream goes on after seq ${head}`,
    }),
  });
  return head;
}
