/**
 * When a surface's prompt has ended (SF10): the response to `session/prompt`
 * (or the end of a prompt's SSE stream) comes only after the turn that
 * answered the input has recorded its end, and after every event before that
 * end was handed to the surface — an early answer would clear the editor's
 * busy state while the session still works.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { EV, TURN_END_EVENTS } from '../../core/events.js';
import type { EventRow } from '../../activities/projection/index.js';
import { describeSessionRun } from '../session-start.js';
import type { SurfaceHost } from './host.js';
import type { AdmittedPrompt } from './prompt.js';
import { TAIL_POLL_MS } from './event-tail.js';

/** How a prompt ended: its turn's end status, or `cancelled` when the session closed without carrying the input. */
export interface PromptEnd {
  status: 'completed' | 'failed' | 'paused' | 'blocked' | 'interrupted' | 'cancelled';
  /** The turn's final answer (completed) or null. */
  text: string | null;
  /** Why the turn did not complete (code and message), or null. */
  error: { code: string; message: string } | null;
  /** The turn-end event (null for `cancelled`). */
  event: EventRow | null;
}

/** How often, with no new event, the follower asks Temporal whether the session's run is still open, in ms. */
const CLOSED_CHECK_MS = 1_000;

const STATUS_OF: Record<string, PromptEnd['status']> = {
  [EV.completed]: 'completed',
  [EV.failed]: 'failed',
  [EV.paused]: 'paused',
  [EV.blocked]: 'blocked',
  [EV.interrupted]: 'interrupted',
};

/**
 * Hands every event of the session after `admitted.after` to `onEvent` (in
 * order, each awaited) until the turn-end event naming the admitted input
 * (its `inputIds`), and returns how that turn ended. A resent prompt
 * (`duplicate` receipt) whose turn already ended returns that end without
 * replaying anything. When the session's run closes without such an event
 * the input was never carried: `cancelled`. `signal` stops following (the
 * work goes on: SF9) and rejects with its reason.
 * @throws the signal's reason when aborted; what the store or Temporal throws.
 */
export async function followPrompt(
  host: SurfaceHost,
  admitted: AdmittedPrompt,
  opts: { onEvent: (e: EventRow) => Promise<void> | void; signal?: AbortSignal },
): Promise<PromptEnd> {
  const { sessionId } = admitted;
  const inputId = admitted.receipt.inputId;
  if (admitted.receipt.duplicate) {
    const done = await endedEarlier(host, sessionId, inputId);
    if (done) return endOf(done);
  }
  let after = admitted.after;
  let checkedMs = Date.now();
  for (;;) {
    opts.signal?.throwIfAborted();
    const rows = await host.store.listEvents(sessionId, after, 500);
    for (const e of rows) {
      after = e.seq;
      await opts.onEvent(e);
      if (endsPrompt(e, inputId)) return endOf(e);
    }
    if (rows.length > 0) continue;
    if (Date.now() - checkedMs >= CLOSED_CHECK_MS) {
      checkedMs = Date.now();
      const run = await describeSessionRun(host.temporal.client, sessionId);
      if (run?.status !== 'RUNNING' && (await host.store.listEvents(sessionId, after, 1)).length === 0) {
        const done = await endedEarlier(host, sessionId, inputId);
        return done ? endOf(done) : { status: 'cancelled', text: null, error: null, event: null };
      }
    }
    await sleep(TAIL_POLL_MS, undefined, opts.signal ? { signal: opts.signal } : {});
  }
}

/**
 * true when `e` is the turn-end event of the turn that answered `inputId`
 * (its `inputIds` name it): the event a surface's prompt ends at (SF10). A
 * session-level pump that feeds several waiting prompts uses this per event.
 */
export function endsPrompt(e: EventRow, inputId: string): boolean {
  return TURN_END_EVENTS.has(e.type) && names(e, inputId);
}

/** true when the turn-end event `e` names `inputId` among the inputs its turn answered. */
function names(e: EventRow, inputId: string): boolean {
  const ids = e.data.inputIds;
  return Array.isArray(ids) && ids.includes(inputId);
}

/** The turn-end event already stored for `inputId` (a resent prompt whose turn ended), if any. */
export async function endedEarlier(host: SurfaceHost, sessionId: string, inputId: string): Promise<EventRow | null> {
  for (const type of Object.keys(STATUS_OF)) {
    const found = (await host.store.eventsOfType(sessionId, type as typeof EV.completed)).find((e) =>
      names(e, inputId),
    );
    if (found) return found;
  }
  return null;
}

/** A turn-end event as a {@link PromptEnd} (how the prompt it answered ended). */
export function endOf(e: EventRow): PromptEnd {
  const text = typeof e.data.text === 'string' ? e.data.text : null;
  const err = e.data.error as { code?: unknown; message?: unknown } | null | undefined;
  return {
    status: STATUS_OF[e.type] ?? 'failed',
    text,
    error: err && typeof err.code === 'string' ? { code: err.code, message: String(err.message ?? '') } : null,
    event: e,
  };
}
