import { setFlagsFromString } from 'node:v8';

/**
 * How far a worker's V8 heaps may grow past what the last full collection
 * kept, in percent (V8 `--heap-growing-percent`; issue 13 item 5). V8's own
 * factor (up to 4× the live size for a fast collector) let the workflow
 * thread's old generation reach three times its live size under load — the
 * SDK keeps a stack record for every pending workflow promise, garbage that
 * is promoted before it dies — and a worker that then goes idle runs no
 * collection that would return it. Measured by bench/peer-bench.ts and a
 * 6 × 50-session run: RSS after the load 363–373 MB at 20 (396–404 MB with
 * V8's default), the same CPU per call; 10 cost CPU and saved nothing more.
 */
export const HEAP_GROWING_PERCENT = 20;

let tuned = false;

/**
 * Sets {@link HEAP_GROWING_PERCENT} for every isolate of this process,
 * once, before the worker's workflow thread starts (a process-wide V8 flag
 * that the collector reads each time it sets the next heap limit, so it
 * also applies to the main thread's heap from its next collection on).
 * Idempotent.
 */
export function boundHeapGrowth(): void {
  if (tuned) return;
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  tuned = true;
}
