/**
 * Cooperative pacing of CPU-bound work on big files (issue 25, item 7).
 *
 * The tool activity heartbeats on a 1 s timer (activities/session/tool-activity.ts);
 * a timer cannot fire while synchronous work holds the event loop, so a
 * multi-second decode, match, encode, diff or hash of a big file let the
 * heartbeat timeout expire and the call was recorded `uncertain`. The loops of
 * that work take a {@link Pacer} and call {@link Pacer.tick} every
 * {@link PACE_EVERY} iterations (or per slice of bytes); the pacer yields one
 * turn of the event loop once its current stretch has run for
 * {@link PACE_SLICE_MS}. Work that finishes within one slice (every small
 * file) never yields: the cost is a clock read per {@link PACE_EVERY}
 * iterations.
 *
 * Typical use:
 * ```ts
 * for (let i = 0; i < lines.length; i++) {
 *   if ((i & PACE_MASK) === 0) await pace.tick();
 *   …
 * }
 * ```
 */
import { setImmediate as nextTurn } from 'node:timers/promises';

/** Longest stretch of synchronous work between two yields, in ms (the event loop is free at least this often, plus one iteration block). */
export const PACE_SLICE_MS = 40;
/** Loop iterations (lines, cells) between two calls of {@link Pacer.tick}; a power of two. */
export const PACE_EVERY = 2048;
/** `(i & PACE_MASK) === 0` every {@link PACE_EVERY} iterations. */
export const PACE_MASK = PACE_EVERY - 1;
/** Bytes hashed, decoded or encoded between two calls of {@link Pacer.tick}. */
export const PACE_BYTES = 1 << 20;

/** Yields to the event loop when the current stretch of work has run long enough. One per operation; not shared across concurrent work. */
export class Pacer {
  private since = performance.now();

  /** Number of times this pacer gave the event loop a turn (for tests and diagnostics). */
  yields = 0;

  /**
   * @param sliceMs longest stretch between two yields, in ms (default {@link PACE_SLICE_MS}).
   */
  constructor(private readonly sliceMs: number = PACE_SLICE_MS) {}

  /** Resolves at once when the current stretch is shorter than the slice; else after one turn of the event loop (timers, I/O callbacks run). */
  async tick(): Promise<void> {
    if (performance.now() - this.since < this.sliceMs) return;
    await nextTurn();
    this.yields++;
    this.since = performance.now();
  }
}
