import { setFlagsFromString } from 'node:v8';

/**
 * How far a worker's V8 heaps may grow past what the last full collection
 * kept, in percent (V8 `--heap-growing-percent`; issue 13 item 5). V8's own
 * factor (up to 4× the live size for a fast collector) let the workflow
 * thread's old generation reach three times its live size under load — the
 * SDK keeps a stack record for every pending workflow promise, garbage that
 * is promoted before it dies — and a worker that then goes idle runs no
 * collection that would return it. Measured on a 6 × 50-session run: RSS
 * after the load 363–373 MB at 20 (396–404 MB with V8's default), the same
 * CPU per call; 10 cost CPU and saved nothing more.
 */
export const HEAP_GROWING_PERCENT = 20;

/**
 * Largest semi-space of the workflow thread's young generation, in MiB (V8
 * `--max-semi-space-size`; V8's default here is 16). Its young generation
 * grows to its maximum under load and an idle workflow thread never shrinks
 * it. Set after the main thread's heap exists, so it applies to the
 * workflow thread (and any later isolate) only. Measured with the growth
 * bound: RSS after a 6 × 50-session run 346–359 MB at 8 (362–380 MB at
 * V8's default), the same CPU per call; for both isolates at once it cost
 * ~5 % CPU.
 */
export const WORKFLOW_THREAD_SEMI_SPACE_MIB = 8;

let tuned = false;

/**
 * Sets {@link HEAP_GROWING_PERCENT} and
 * {@link WORKFLOW_THREAD_SEMI_SPACE_MIB}, once, before the worker's
 * workflow thread starts. Both are process-wide V8 flags: the collector
 * reads the growing factor each time it sets the next heap limit (so it
 * also applies to the main thread's heap from its next collection on); the
 * semi-space bound is read when an isolate's heap is set up. Idempotent.
 */
export function boundHeapGrowth(): void {
  if (tuned) return;
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  setFlagsFromString(`--max-semi-space-size=${WORKFLOW_THREAD_SEMI_SPACE_MIB}`);
  tuned = true;
}
