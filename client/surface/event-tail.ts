/**
 * Tailing the projection's event table, for the surfaces (SF1, SF3): one
 * session's events, or the whole home's, in `seq` order from a given `seq`.
 * Events are the durable record: a surface renders them and keeps nothing of
 * its own, so a reconnecting client resumes from the last `seq` it saw.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { EventRow, ProjectionStore } from '../../activities/projection/index.js';

/** Poll interval of a tail, in ms (the CLI's follower polls every 60 ms; surfaces a little slower). */
export const TAIL_POLL_MS = 100;

/**
 * How long the home stream waits at a hole in `seq` for the missing event to
 * commit, in ms. PostgreSQL hands out `seq` before commit, so two sessions'
 * events can commit out of order (one session's events commit in order: the
 * writer holds the session's lock); SQLite commits in order. A hole still
 * open after this long is a rolled-back insert or a deleted row, and is passed.
 */
export const GAP_HOLD_MS = 2_000;

/** Largest page read per poll. */
const PAGE = 500;

/** What {@link tailEvents} follows. */
export interface TailOptions {
  /** Yield events with seq > after. */
  after: number;
  /** One session's events; absent: every session's (the home stream). */
  sessionId?: string;
  /** Ends the tail (the generator returns). */
  signal: AbortSignal;
  /** Called between polls that found nothing new (a surface's heartbeat, a worker check). */
  idle?: () => Promise<void> | void;
}

/**
 * Yields stored events in `seq` order, forever (until `signal` aborts),
 * polling every {@link TAIL_POLL_MS}. The home stream holds at a hole in
 * `seq` younger than {@link GAP_HOLD_MS}, so a client resuming after the
 * last `seq` it saw never skips an event that committed late.
 * @throws what the store throws (a lost database): the caller decides.
 */
export async function* tailEvents(store: ProjectionStore, opts: TailOptions): AsyncGenerator<EventRow> {
  let after = opts.after;
  while (!opts.signal.aborted) {
    const rows =
      opts.sessionId !== undefined
        ? await store.listEvents(opts.sessionId, after, PAGE)
        : await store.listEventsAfter(after, PAGE);
    const ready = opts.sessionId !== undefined ? rows : beforeYoungHole(rows, after, Date.now());
    for (const e of ready) {
      if (opts.signal.aborted) return;
      after = e.seq;
      yield e;
    }
    if (ready.length === PAGE) continue;
    await opts.idle?.();
    await sleep(TAIL_POLL_MS, undefined, { signal: opts.signal }).catch(() => undefined);
  }
}

/**
 * The prefix of `rows` (ascending, all after `after`) that may be yielded
 * now: it stops before the first hole in `seq` whose next event is younger
 * than {@link GAP_HOLD_MS} at `nowMs`. Pure.
 */
export function beforeYoungHole(rows: readonly EventRow[], after: number, nowMs: number): EventRow[] {
  const out: EventRow[] = [];
  let last = after;
  for (const r of rows) {
    if (r.seq !== last + 1 && nowMs - r.atMs < GAP_HOLD_MS) break;
    out.push(r);
    last = r.seq;
  }
  return out;
}
