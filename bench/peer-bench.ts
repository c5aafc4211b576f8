/**
 * Zuno beside a plain-activity peer (issue 13 item 1; prints figures,
 * asserts nothing). Same machine, same dev server, same scripted provider,
 * Zuno's own `read`: N sessions × K `read` calls, P per model step, run one
 * at a time, then all N at once, then W at once (the wide phase), Zuno and
 * the peer alternating, R rounds. Each system's worker runs in a process of
 * its own (`zuno worker` as operators run it; bench/peer/worker.ts), so
 * worker CPU per call and worker RSS are the worker's alone. Per call: wall
 * time, worker CPU, Temporal history events and JSON KB; calls/s at N and W
 * at once; worker RSS (peak during the wide phase, and after the bench);
 * in the wide phase, the CPU per call of the Temporal dev server and of
 * this bench process too; direct in-process calls for reference. A phase's
 * server CPU is read once the dev server is quiet again (the transfer and
 * visibility work it does after the last workflow closed belongs to the
 * phase), and the next phase starts only then. Medians and ranges
 * over the rounds, then the ratios `zuno/peer`, one figure a line, last.
 * The peer: bench/peer/ (workflow state holds the conversation, no projection).
 *
 *   npx tsx bench/peer-bench.ts [--sessions 5] [--calls 40] [--parallel 10] [--wide 50] [--rounds 3]
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DefaultLogger, bundleWorkflowCode } from '@temporalio/worker';
import { startLocalProvider } from '../local-provider/server.js';
import { localProvider } from '../client/zuno-config.js';
import { newSessionId } from '../client/session-start.js';
import { createHarness, type Harness } from '../test/helpers/harness.js';
import { startTestDevServer, type TestDevServer } from '../test/helpers/dev-server.js';
import { benchCase, readFileCount, script, type BenchCase } from './overhead-cases.js';
import { direct, timedSession } from './overhead-measure.js';
import type { PeerInput } from './peer/workflow.js';
import {
  badArgument,
  benchFlags,
  machineTicks,
  peerWorkerProcess,
  processCpuMs,
  runBench,
  settle,
  zunoWorkerProcess,
  type BenchWorker,
} from './worker-procs.js';

const flags = benchFlags(
  'usage: npx tsx bench/peer-bench.ts [--sessions 5] [--calls 40] [--parallel 10] [--wide 50] [--rounds 3]   (positive integers)',
  {
    sessions: { type: 'string', default: '5' },
    calls: { type: 'string', default: '40' },
    parallel: { type: 'string', default: '10' },
    rounds: { type: 'string', default: '3' },
    wide: { type: 'string', default: '50' },
  },
);
const n = (k: keyof typeof flags) => {
  const v = Number(flags[k]);
  if (!Number.isInteger(v) || v < 1) badArgument(`--${k} must be a positive integer (got ${flags[k]})`);
  return v;
};
const c: BenchCase = benchCase('read', {
  sessions: n('sessions'),
  calls: n('calls'),
  perStep: n('parallel'),
  direct: 500,
  concurrency: undefined,
});
const ROUNDS = n('rounds');
const WIDE = n('wide');
const PEER_QUEUE = `zuno-bench-peer-${Date.now()}`;
const ZUNO_QUEUE = `zuno-bench-zuno-${Date.now()}`;

/** What one phase of one system measured. */
interface Phase {
  /** Peak worker RSS while the phase ran, MiB (sampled every 100 ms). */
  peakRssMb: number;
  /** Share of the machine's CPU (all cores) busy during the phase, 0–1: whoever ran it. */
  machineBusy: number;
  /** Share of calls whose local attempt failed and ran again as a regular activity (Zuno), 0–1. */
  fellBack: number;
  wallMsPerCall: number;
  cpuMsPerCall: number;
  /** CPU of the Temporal dev server per call, ms (it serves whichever system runs). */
  serverCpuMsPerCall: number;
  /** CPU of this bench process per call, ms: the Temporal client and the scripted provider servers. */
  benchCpuMsPerCall: number;
  callsPerSec: number;
  eventsPerCall: number;
  kbPerCall: number;
}

type System = 'zuno' | 'peer';

/** Runs one peer session (its own local provider, the same script as Zuno's) and returns its workflow id. */
async function peerSession(h: Harness, workspace: string): Promise<string> {
  const provider = await startLocalProvider({ script: script(c) });
  try {
    const workflowId = `peer/${newSessionId()}`;
    const input: PeerInput = {
      prompt: c.prompt,
      workspace,
      provider: localProvider(provider.url),
      model: 'scripted',
      maxSteps: 1000,
    };
    const r = await h.client.workflow.execute('peerAgentWorkflow', {
      taskQueue: PEER_QUEUE,
      workflowId,
      args: [input],
    });
    if ((r as { calls: number }).calls !== c.calls) throw new Error(`peer: ${JSON.stringify(r)}`);
    return workflowId;
  } finally {
    await provider.close();
  }
}

/** History events and JSON KB of workflows `ids`, and their local activities that failed (then ran as regular ones). */
async function historySize(h: Harness, ids: string[]): Promise<{ events: number; kb: number; fellBack: number }> {
  let events = 0;
  let bytes = 0;
  let fellBack = 0;
  for (const id of ids) {
    const hist = await h.client.workflow.getHandle(id).fetchHistory();
    events += hist.events?.length ?? 0;
    bytes += JSON.stringify(hist.events ?? []).length;
    for (const e of hist.events ?? [])
      if (
        e.markerRecordedEventAttributes?.markerName === 'core_local_activity' &&
        e.markerRecordedEventAttributes.failure
      )
        fellBack++;
  }
  return { events, kb: bytes / 1024, fellBack };
}

/** `count` sessions of `system`, at most `limit` at once; CPU and RSS are `worker`'s. */
async function phase(
  h: Harness,
  system: System,
  worker: BenchWorker,
  workspace: string,
  count: number,
  limit: number,
  serverPid: number,
): Promise<Phase> {
  const ids: string[] = [];
  const cpu0 = worker.cpuMs();
  const server0 = processCpuMs(serverPid);
  const bench0 = process.cpuUsage();
  const m0 = machineTicks();
  let peakRssMb = worker.rssMb();
  const sampler = setInterval(() => (peakRssMb = Math.max(peakRssMb, worker.rssMb())), 100);
  const t0 = performance.now();
  let next = 0;
  const lane = async () => {
    while (next < count) {
      next++;
      ids.push(
        system === 'zuno'
          ? `session/${(await timedSession(h, c, workspace)).sessionId}`
          : await peerSession(h, workspace),
      );
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(limit, count) }, lane));
  } finally {
    clearInterval(sampler);
  }
  const wallMs = performance.now() - t0;
  const bench = process.cpuUsage(bench0);
  const m1 = machineTicks();
  await settle(serverPid);
  const cpuMs = worker.cpuMs() - cpu0;
  const serverCpuMs = processCpuMs(serverPid) - server0;
  const calls = count * c.calls;
  const size = await historySize(h, ids);
  return {
    peakRssMb,
    machineBusy: (m1.busy - m0.busy) / (m1.total - m0.total),
    fellBack: size.fellBack / calls,
    wallMsPerCall: limit === 1 ? wallMs / calls : NaN,
    cpuMsPerCall: cpuMs / calls,
    serverCpuMsPerCall: serverCpuMs / calls,
    benchCpuMsPerCall: (bench.user + bench.system) / 1000 / calls,
    callsPerSec: calls / (wallMs / 1000),
    eventsPerCall: size.events / calls,
    kbPerCall: size.kb / calls,
  };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const r2 = (x: number) => Math.round(x * 100) / 100;
const spread = (xs: number[]) => `${r2(median(xs))} (${r2(Math.min(...xs))}–${r2(Math.max(...xs))})`;

async function main(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'zuno-peer-bench-'));
  let server: TestDevServer | undefined;
  let h: Harness | undefined;
  const workers: Partial<Record<System, BenchWorker>> = {};
  try {
    const workspace = join(root, 'ws');
    mkdirSync(join(workspace, 'src'), { recursive: true });
    for (let i = 0; i < readFileCount(c.perStep); i++) {
      const body = Array.from({ length: 20 }, (_, l) => `export const v${i}_${l} = ${l}; // line ${l}`).join('\n');
      writeFileSync(join(workspace, 'src', `f${i}.ts`), `${body}\n`);
    }
    const directMs = await direct(c, workspace);
    server = await startTestDevServer(join(root, 'temporal.db'));
    const home = join(root, 'state');
    mkdirSync(home);
    h = await createHarness({ address: server.address, withWorker: false, stateDir: home, taskQueue: ZUNO_QUEUE });
    const peerBundle = join(root, 'peer-bundle.js');
    writeFileSync(
      peerBundle,
      (
        await bundleWorkflowCode({
          workflowsPath: join(import.meta.dirname, 'peer', 'workflow.ts'),
          logger: new DefaultLogger('WARN'),
        })
      ).code,
    );
    const zuno = (workers.zuno = zunoWorkerProcess(home, server.address, ZUNO_QUEUE));
    const peer = (workers.peer = peerWorkerProcess(root, server.address, PEER_QUEUE, peerBundle));
    const serverPid = server.pid()!;
    // Warm-up of both: bundles loaded, caches filled, Prisma's query compiler ready.
    await timedSession(h, c, workspace);
    await peerSession(h, workspace);
    await settle(serverPid);

    const rounds: Record<System, { seq: Phase[]; conc: Phase[]; wide: Phase[] }> = {
      zuno: { seq: [], conc: [], wide: [] },
      peer: { seq: [], conc: [], wide: [] },
    };
    for (let r = 0; r < ROUNDS; r++) {
      // Alternate who goes first, so neither always runs on a warmer machine.
      const order: System[] = r % 2 === 0 ? ['zuno', 'peer'] : ['peer', 'zuno'];
      const run = (s: System, count: number, limit: number) =>
        phase(h!, s, s === 'zuno' ? zuno : peer, workspace, count, limit, serverPid);
      for (const s of order) rounds[s].seq.push(await run(s, c.sessions, 1));
      for (const s of order) rounds[s].conc.push(await run(s, c.sessions, c.sessions));
      for (const s of order) rounds[s].wide.push(await run(s, WIDE, WIDE));
    }
    const after = { zuno: await zuno.memory(), peer: await peer.memory() };
    const fig = (s: System, pick: (p: Phase) => number, which: 'seq' | 'conc' | 'wide') => rounds[s][which].map(pick);
    console.log(
      `\nZuno beside a plain-activity peer: ${c.sessions} sessions × ${c.calls} read calls, ${c.perStep} per model step, ${ROUNDS} round${ROUNDS === 1 ? '' : 's'} alternating, each worker in a process of its own (median (min–max))`,
    );
    console.log(`direct read (the tool called in process, no Temporal), ms/call: ${r2(directMs)}`);
    for (const s of ['peer', 'zuno'] as const) {
      console.log(`${s} wall ms/call, one session at a time: ${spread(fig(s, (p) => p.wallMsPerCall, 'seq'))}`);
      console.log(`${s} calls/s, ${c.sessions} sessions at once: ${spread(fig(s, (p) => p.callsPerSec, 'conc'))}`);
      console.log(`${s} calls/s, ${WIDE} sessions at once: ${spread(fig(s, (p) => p.callsPerSec, 'wide'))}`);
      console.log(`${s} worker CPU ms/call, one at a time: ${spread(fig(s, (p) => p.cpuMsPerCall, 'seq'))}`);
      console.log(`${s} worker CPU ms/call, ${WIDE} at once: ${spread(fig(s, (p) => p.cpuMsPerCall, 'wide'))}`);
      console.log(
        `${s} Temporal dev server CPU ms per read call, ${WIDE} at once: ${spread(fig(s, (p) => p.serverCpuMsPerCall, 'wide'))}`,
      );
      console.log(
        `${s} bench process (Temporal client, scripted model providers) CPU ms per read call, ${WIDE} at once: ${spread(fig(s, (p) => p.benchCpuMsPerCall, 'wide'))}`,
      );
      if (s === 'zuno')
        console.log(
          `zuno local reads that fell back to a regular activity, share, ${WIDE} at once: ${spread(fig(s, (p) => p.fellBack, 'wide'))}`,
        );
      console.log(`${s} history events/call: ${spread(fig(s, (p) => p.eventsPerCall, 'seq'))}`);
      console.log(`${s} history KB/call: ${spread(fig(s, (p) => p.kbPerCall, 'seq'))}`);
      console.log(
        `${s} machine CPU busy, share 0–1, ${WIDE} at once (all cores, every process): ${spread(fig(s, (p) => p.machineBusy, 'wide'))}`,
      );
      console.log(`${s} worker peak RSS MB, ${WIDE} at once: ${spread(fig(s, (p) => p.peakRssMb, 'wide'))}`);
      console.log(
        `${s} worker after the bench, MB: RSS ${r2(after[s].rss)}, main-thread heap ${r2(after[s].heapUsed)} (after GC)`,
      );
    }
    const ratio = (pick: (p: Phase) => number, which: 'seq' | 'conc' | 'wide') =>
      r2(median(fig('zuno', pick, which)) / median(fig('peer', pick, which)));
    console.log(
      'zuno/peer ratios (below 1: Zuno uses less; for calls/s, above 1: Zuno is faster); wall and cpu are per read call, one session at a time, cpu the worker process:',
    );
    console.log(`zuno/peer history KB: ${ratio((p) => p.kbPerCall, 'seq')}`);
    console.log(`zuno/peer worker RSS after the bench: ${r2(after.zuno.rss / after.peer.rss)}`);
    console.log(`zuno/peer calls/s, ${WIDE} at once: ${ratio((p) => p.callsPerSec, 'wide')}`);
    console.log(`zuno/peer calls/s, ${c.sessions} at once: ${ratio((p) => p.callsPerSec, 'conc')}`);
    console.log(`zuno/peer wall: ${ratio((p) => p.wallMsPerCall, 'seq')}`);
    console.log(`zuno/peer cpu: ${ratio((p) => p.cpuMsPerCall, 'seq')}`);
  } finally {
    for (const w of Object.values(workers)) await w.stop().catch(() => undefined);
    await h?.close().catch(() => undefined);
    await server?.kill().catch(() => undefined);
    rmSync(root, { recursive: true, force: true });
  }
}

await runBench(main);
