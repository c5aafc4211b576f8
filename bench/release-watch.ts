/**
 * What a release watch costs while it waits (issue 31; prints figures,
 * asserts nothing): a watched Goal on the time-skipping test server checks a
 * local registry every `--every-min` minutes for `--hours` hours before the
 * registry publishes, then wakes and completes with one scripted turn. It
 * prints the wait in server time, the wall time it took, the checks, the
 * Goal's history events (total and per hour of waiting), and the provider
 * requests made while waiting (0 is the point).
 *
 *   npx tsx bench/release-watch.ts --hours 24 --every-min 10
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { startTimeSkippingServer } from '../test/helpers/time-skipping.js';
import { historyOf } from '../test/helpers/history.js';
import { badArgument, benchFlags } from './worker-procs.js';
import { watchedGoal } from '../test/helpers/watch.js';

const USAGE = `bench/release-watch.ts [--hours H] [--every-min M]
  --hours      how long the registry keeps the old version, in server hours (default 24)
  --every-min  minutes between checks (default 10)`;

const flags = benchFlags(USAGE, { hours: { type: 'string' }, 'every-min': { type: 'string' } });
const hours = Number(flags.hours ?? 24);
const everyMin = Number(flags['every-min'] ?? 10);
if (!(hours > 0 && hours <= 720)) badArgument('--hours must be in (0, 720]');
if (!(everyMin >= 1)) badArgument('--every-min must be 1 or more');
const HOUR = 3_600_000;
const oldChecks = Math.floor((hours * 60) / everyMin);

let checks = 0;
let requestsAtPublish = -1;
let providerRequests: unknown[] = [];
const registry = createServer((_req, res) => {
  checks += 1;
  if (checks === oldChecks + 1) requestsAtPublish = providerRequests.length;
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify({ 'dist-tags': { latest: checks <= oldChecks ? '1.0.0' : '2.0.0' } }));
});
await new Promise<void>((r) => registry.listen(0, '127.0.0.1', r));
const ts = await startTimeSkippingServer();
const h = await ts.harness();
const workspace = mkdtempSync(join(tmpdir(), 'zuno-bench-watch-'));
try {
  const t0 = performance.now();
  const g = await h.startScriptedGoal({
    workspace,
    ...watchedGoal(
      `http://127.0.0.1:${(registry.address() as AddressInfo).port}/pkg`,
      everyMin * 60_000,
      (hours + 24) * HOUR,
    ),
    script: {
      replies: [
        { toolCalls: [{ id: 'call_done', name: 'goal_update', arguments: { expected_revision: 2, complete: true } }] },
        { text: 'Out.' },
      ],
    },
  });
  providerRequests = g.providerRequests;
  const final = await g.result();
  const wallMs = performance.now() - t0;
  await g.closeProvider();
  const events = await historyOf(ts.client, g.workflowId);
  const at = (i: number) => Number(events[i]!.eventTime!.seconds) * 1000;
  const start = events.findIndex(
    (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'startGoalSession',
  );
  // The last run's history (the Goal continues as new when Temporal suggests it): its own span of the wait.
  const runH = (at(start) - at(0)) / HOUR;
  const continued = events[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId ? 'yes' : 'no';
  console.log(`release watch: ${hours} h at one check every ${everyMin} min → ${final.state.status}`);
  console.log(`  checks                 ${checks} (${final.watch?.attempts ?? '?'} recorded)`);
  console.log(`  server time waited     ${(((checks - 1) * everyMin) / 60).toFixed(2)} h (checks × interval)`);
  console.log(`  wall time              ${(wallMs / 1000).toFixed(1)} s (${(wallMs / checks) | 0} ms a check)`);
  console.log(
    `  last run's history     ${events.length} events (continued as new: ${continued}), ${start + 1} while waiting`,
  );
  console.log(`  events per hour        ${((start + 1) / runH).toFixed(1)} over the last run's ${runH.toFixed(2)} h`);
  console.log(`  provider requests      ${requestsAtPublish} while waiting, ${g.providerRequests.length} in all`);
} finally {
  await h.close();
  await ts.teardown();
  registry.close();
  rmSync(workspace, { recursive: true, force: true });
}
