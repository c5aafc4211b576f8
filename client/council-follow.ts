import type { Client } from '@temporalio/client';
import type { ProjectionStore } from '../activities/projection/index.js';
import { councilWorkflowId, type CouncilResult } from '../core/council/contract.js';
import { renderCouncil, seatLine, seatsOf } from './commands/council-view.js';
import type { Sink } from './sink.js';
import { probeOf, TemporalOutage } from './temporal-outage.js';

/** How often the projection is read for seat settlements while the Council runs, in ms. */
const POLL_MS = 300;

/**
 * Follows the Council `runId` until its workflow closes (`zuno council run`,
 * `zuno council show --follow`): each seat's settlement and retry as it
 * happens (stderr, unless `json`), then the table of seats and the
 * synthesis (stdout; `json`: `{council, result}`). A Temporal outage is
 * ridden out (client/temporal-outage.ts). Resolves to the exit code: 0
 * succeeded, 130 cancelled, 1 failed (its code and message printed).
 */
export async function followCouncil(opts: {
  store: ProjectionStore;
  client: Client;
  address: string;
  runId: string;
  json: boolean;
  sink: Sink;
}): Promise<number> {
  const { store, runId, sink } = opts;
  const notify = opts.json ? null : (line: string) => sink.err(`${line}\n`);
  const handle = opts.client.workflow.getHandle(councilWorkflowId(runId));
  // An outage rejects the result in flight: it is obtained again once Temporal answers.
  const outage = new TemporalOutage({
    probe: probeOf(opts.client),
    say: (t) => sink.err(t),
    address: opts.address,
    kind: 'council',
    id: runId,
  });
  let ended = false;
  const outcome = outage
    .retry(() => handle.result())
    .then(
      (r) => ({ ok: true as const, r: r as CouncilResult }),
      (err: unknown) => ({ ok: false as const, err }),
    );
  void outcome.then(() => (ended = true));
  // Read from the attempts list, not from the seat's state at the moment of a poll:
  // an attempt that was retried and settled between two polls is still shown.
  const retriesShown = new Map<number, number>();
  const settledShown = new Set<number>();
  const showSettled = async () => {
    const row = await store.getCouncil(runId);
    for (const s of row ? seatsOf(row) : []) {
      for (let i = retriesShown.get(s.index) ?? 0; i < s.attempts.length - 1; i++) notify?.(retryLine(s, i));
      retriesShown.set(s.index, Math.max(retriesShown.get(s.index) ?? 0, s.attempts.length - 1));
      if (s.status === 'running' || settledShown.has(s.index)) continue;
      notify?.(seatLine(s));
      settledShown.add(s.index);
    }
  };
  while (!ended) {
    await showSettled();
    await Promise.race([outcome, new Promise((r) => setTimeout(r, POLL_MS))]);
  }
  await showSettled();
  const end = await outcome;
  const row = await store.getCouncil(runId);
  const result = end.ok
    ? end.r
    : (((end.err as { cause?: { details?: unknown[] } }).cause?.details?.[0] as CouncilResult | undefined) ?? null);
  if (opts.json) sink.out(`${JSON.stringify({ council: row, result }, null, 2)}\n`);
  else if (row) sink.out(renderCouncil(row));
  if (end.ok) return 0;
  const cause = (end.err as { cause?: { type?: string; message?: string; name?: string } }).cause;
  if (cause?.name === 'CancelledFailure') {
    notify?.(`council ${runId} was cancelled`);
    return 130;
  }
  notify?.(`zuno: ${cause?.type ?? cause?.name ?? 'council_failed'}: ${cause?.message ?? String(end.err)}`);
  return 1;
}

/** The line saying seat `s`'s attempt number `i + 1` (0-based `i`) ended and attempt `i + 2` started. */
function retryLine(s: ReturnType<typeof seatsOf>[number], i: number): string {
  const prev = s.attempts[i]!;
  const why = prev.problem ? ` — ${prev.problem}` : '';
  const child = s.childSessionIds[i + 1] ? `, ${s.childSessionIds[i + 1]}` : '';
  return `↻ seat ${s.index}/${s.of} ${s.agent}: attempt ${prev.attempt} ${prev.status}, report ${prev.validity}${why}; retrying (attempt ${i + 2}${child})`;
}
