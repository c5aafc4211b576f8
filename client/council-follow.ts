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
  const printed = new Map<number, string>();
  const showSettled = async () => {
    const row = await store.getCouncil(runId);
    for (const s of row ? seatsOf(row) : []) {
      const key = `${s.status}/${s.attempts.length}`;
      if (printed.get(s.index) === key) continue;
      if (s.status === 'running') {
        const prev = s.attempts.at(-2);
        if (prev)
          notify?.(
            `↻ seat ${s.index}/${s.of} ${s.agent}: attempt ${prev.attempt} ${prev.status}, report ${prev.validity}${prev.problem ? ` — ${prev.problem}` : ''}; retrying (attempt ${s.attempts.length}, ${s.childSessionIds.at(-1)})`,
          );
      } else notify?.(seatLine(s));
      printed.set(s.index, key);
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
