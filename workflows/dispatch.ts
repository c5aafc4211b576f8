import type { PlannedToolCall } from '../core/session/tool-calls.js';
import type { ToolConcurrency } from '../core/tools/types.js';

/**
 * TD5 dispatch plan: consecutive non-exclusive calls form one batch that runs
 * together; an Exclusive call is a two-way barrier (a batch of its own).
 * Blocked calls (TD8) schedule nothing and are left out. Order inside a batch
 * is model order. Pure and deterministic.
 */
export function planBatches(
  calls: PlannedToolCall[],
  concurrencyOf: (name: string) => ToolConcurrency,
): PlannedToolCall[][] {
  const batches: PlannedToolCall[][] = [];
  let open: PlannedToolCall[] = [];
  for (const call of calls) {
    if (call.blocked) continue;
    if (concurrencyOf(call.name) === 'Exclusive') {
      if (open.length > 0) batches.push(open);
      batches.push([call]);
      open = [];
    } else {
      open.push(call);
    }
  }
  if (open.length > 0) batches.push(open);
  return batches;
}

/**
 * Runs `run` over items with at most `limit` in flight (TD6), resolving to the
 * results in input order whatever the completion order. Deterministic in
 * workflow code (it only chains promises).
 */
export async function runBounded<T, R>(items: T[], limit: number, run: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const lanes = Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await run(items[index]!);
    }
  });
  await Promise.all(lanes);
  return results;
}

/**
 * {@link runBounded} of a fast turn (issue 13): a batch that fits in
 * `limit` runs every item at once with no lanes (the same calls, started in
 * the same order, fewer promises); a wider one runs in lanes as before.
 * Results in input order. Deterministic.
 */
export function runBatch<T, R>(items: T[], limit: number, run: (item: T) => Promise<R>): Promise<R[]> {
  return items.length <= limit ? Promise.all(items.map((item) => run(item))) : runBounded(items, limit, run);
}
