/**
 * Orchestration overhead of a tool call (prints figures, asserts nothing).
 *
 * Compares calling the `read` tool function directly in process with running
 * the same calls through the real stack: local provider server → session
 * workflow on a real Temporal dev server (temp dir, never the user's `.zuno/`)
 * → in-process worker → `tool_read` activities → SQLite projection (temp dir).
 * Sessions run sequentially and then concurrently; the stored tool-call rows
 * and events split each call's wall time into the tool activity and the rest
 * (dispatch scheduling, model steps, projection writes).
 *
 *   npm run bench -- --sessions 5 --calls 40 --parallel 10 --concurrency 5
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { toolImplementations, type ToolContext } from '../activities/tools/index.js';
import type { EventRow } from '../activities/projection/types.js';
import type { Script } from '../client/local-provider/script.js';
import { createHarness, type Harness } from '../test/helpers/harness.js';
import { startTestDevServer, TEMPORAL_BIN, type TestDevServer } from '../test/helpers/dev-server.js';

const HELP = `usage: npm run bench -- [options]

  -n, --sessions <N>      scripted sessions per phase (default 5)
  -k, --calls <K>         read calls per session (default 40)
  -p, --parallel <P>      read calls per model step, run in parallel (default 10)
  -c, --concurrency <C>   sessions in flight in the concurrent phase (default N)
  -m, --direct <M>        direct in-process read calls (default 2000)
  -h, --help              show this help`;

const { values: flags } = parseArgs({
  args: process.argv.slice(2),
  options: {
    sessions: { type: 'string', short: 'n', default: '5' },
    calls: { type: 'string', short: 'k', default: '40' },
    parallel: { type: 'string', short: 'p', default: '10' },
    concurrency: { type: 'string', short: 'c' },
    direct: { type: 'string', short: 'm', default: '2000' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (flags.help) {
  console.log(HELP);
  process.exit(0);
}
function positiveInt(name: string, raw: string): number {
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) {
    console.error(`--${name} must be a positive integer (got ${raw})\n\n${HELP}`);
    process.exit(2);
  }
  return n;
}
const N = positiveInt('sessions', flags.sessions);
const K = positiveInt('calls', flags.calls);
const P = positiveInt('parallel', flags.parallel);
const C = positiveInt('concurrency', flags.concurrency ?? String(N));
const M = positiveInt('direct', flags.direct);
const FILES = Math.min(P, 20);

const mb = () => Math.round((process.memoryUsage().rss / 2 ** 20) * 10) / 10;
const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : NaN);
const round = (x: number, d = 3) => Math.round(x * 10 ** d) / 10 ** d;

/** K read calls, P per model step, then a final text reply. */
function script(): Script {
  const replies: Script['replies'] = [];
  for (let i = 0; i < K; i += P) {
    const n = Math.min(P, K - i);
    replies.push({
      toolCalls: Array.from({ length: n }, (_, j) => ({
        name: 'read',
        arguments: { path: `src/f${(i + j) % FILES}.ts` },
      })),
    });
  }
  replies.push({ text: 'done' });
  return { replies };
}

/** Direct in-process calls of the tool function: mean ms per call. */
async function direct(workspace: string): Promise<number> {
  const ctx: ToolContext = { workspace, sessionId: 'ses_bench', callId: 'call_bench' };
  const call = (i: number) => toolImplementations.read!.run({ path: `src/f${i % FILES}.ts` }, ctx);
  for (let i = 0; i < Math.min(200, M); i++) await call(i); // warm-up
  const t0 = performance.now();
  for (let i = 0; i < M; i++) {
    const r = await call(i);
    if (r.isError) throw new Error(`direct read failed: ${r.output}`);
  }
  return (performance.now() - t0) / M;
}

interface Timed {
  sessionId: string;
  startMs: number;
  endMs: number;
}

async function timedSession(h: Harness, workspace: string): Promise<Timed> {
  const startMs = Date.now();
  const s = await h.startScripted({ script: script(), prompt: 'read the files', workspace, toolConcurrency: P });
  try {
    const result = await s.result();
    if (result.status !== 'completed') throw new Error(`session ${s.sessionId} ${result.status}`);
    return { sessionId: s.sessionId, startMs, endMs: Date.now() };
  } finally {
    await s.closeProvider();
  }
}

/** Runs `count` sessions with at most `limit` in flight; returns them and the phase wall time. */
async function phase(h: Harness, workspace: string, count: number, limit: number) {
  const runs: Timed[] = [];
  let next = 0;
  const t0 = Date.now();
  const lane = async () => {
    while (next < count) {
      next++;
      runs.push(await timedSession(h, workspace));
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, count) }, lane));
  return { runs, wallMs: Date.now() - t0 };
}

async function allEvents(h: Harness, sessionId: string): Promise<EventRow[]> {
  const out: EventRow[] = [];
  for (let after = 0; ;) {
    const page = await h.store.listEvents(sessionId, after, 500);
    out.push(...page);
    if (page.length < 500) return out;
    after = page[page.length - 1]!.seq;
  }
}

/** Per-session time split from the stored rows and events (ms, summed over the session). */
async function breakdown(h: Harness, r: Timed) {
  const t = (await h.store.loadTranscript(r.sessionId))!;
  const calls = t.toolCalls.filter((c) => c.tool === 'read' && c.outcome === 'ok');
  if (calls.length !== K) throw new Error(`session ${r.sessionId}: ${calls.length}/${K} ok read calls`);
  const rowSpans = calls.map((c) => c.endedAtMs! - c.startedAtMs!);
  const events = await allEvents(h, r.sessionId);
  const eventSpans = events.filter((e) => e.type === 'tool.completed').map((e) => Number(e.data.durationMs));
  // Per model step: model step done → first tool started → last tool completed → next step done.
  const stepOf = (e: EventRow) =>
    Number(e.type === 'message.completed' ? e.data.step : String(e.data.rowId).split('_')[2]);
  const steps = new Map<number, { done: number; first: number; last: number }>();
  for (const e of events) {
    const s = steps.get(stepOf(e)) ?? { done: NaN, first: Infinity, last: -Infinity };
    if (e.type === 'message.completed') s.done = e.atMs;
    else if (e.type === 'tool.started') s.first = Math.min(s.first, e.atMs);
    else if (e.type === 'tool.completed') s.last = Math.max(s.last, e.atMs);
    else continue;
    steps.set(stepOf(e), s);
  }
  let toolPhase = 0;
  let dispatch = 0;
  let modelRoundTrip = 0;
  for (const [i, s] of steps) {
    if (s.first === Infinity) continue;
    toolPhase += s.last - s.first;
    dispatch += s.first - s.done;
    modelRoundTrip += (steps.get(i + 1)?.done ?? NaN) - s.last;
  }
  const wall = r.endMs - r.startMs;
  return {
    wall,
    rowSpans,
    eventSpans,
    toolPhase,
    dispatch,
    modelRoundTrip,
    edges: wall - toolPhase - dispatch - modelRoundTrip,
  };
}

async function main(): Promise<void> {
  const began = performance.now();
  const rssBefore = mb();
  const temporalVersion = execFileSync(TEMPORAL_BIN, ['--version'], { encoding: 'utf8' }).trim();
  const root = mkdtempSync(join(tmpdir(), 'zuno-bench-'));
  let server: TestDevServer | undefined;
  let h: Harness | undefined;
  let cleaned = false;
  const cleanup = async (closeHarness: boolean) => {
    if (cleaned) return;
    cleaned = true;
    if (closeHarness) await h?.close().catch(() => undefined);
    await server?.kill().catch(() => undefined);
    rmSync(root, { recursive: true, force: true });
  };
  const onSignal = (sig: NodeJS.Signals) => {
    console.error(`\n${sig}: cleaning up`);
    void cleanup(false).finally(() => process.exit(130));
  };
  process.once('SIGINT', onSignal).once('SIGTERM', onSignal);
  try {
    const workspace = join(root, 'ws');
    mkdirSync(join(workspace, 'src'), { recursive: true });
    for (let i = 0; i < FILES; i++) {
      const body = Array.from({ length: 20 }, (_, l) => `export const v${i}_${l} = ${l}; // line ${l}`).join('\n');
      writeFileSync(join(workspace, 'src', `f${i}.ts`), `${body}\n`);
    }
    const directMs = await direct(workspace);

    const setupT0 = performance.now();
    server = await startTestDevServer(join(root, 'temporal.db'));
    mkdirSync(join(root, 'state'));
    h = await createHarness({ address: server.address, stateDir: join(root, 'state') });
    await timedSession(h, workspace); // warm-up: bundle loaded, workflow cache, Prisma query compiler
    const setupMs = performance.now() - setupT0;

    const seq = await phase(h, workspace, N, 1);
    const conc = await phase(h, workspace, N, C);
    const rssAfter = mb();
    const parts = await Promise.all(seq.runs.map((r) => breakdown(h!, r)));
    await Promise.all(conc.runs.map((r) => breakdown(h!, r))); // validates the concurrent runs too

    const perCall = (f: (b: (typeof parts)[number]) => number) => mean(parts.map(f)) / K;
    const wallPerCall = perCall((b) => b.wall);
    const rowMs = mean(parts.flatMap((b) => b.rowSpans));
    const eventMs = mean(parts.flatMap((b) => b.eventSpans));
    const toolPhase = perCall((b) => b.toolPhase);
    const overhead = wallPerCall - toolPhase;
    const calls = N * K;
    const seqRate = calls / (seq.wallMs / 1000);
    const concRate = calls / (conc.wallMs / 1000);

    const rows: [string, string][] = [
      ['node / temporal', `${process.version} / ${temporalVersion}`],
      ['sessions x calls (per step)', `${N} x ${K} (${P}), concurrency ${C}`],
      ['direct read, ms/call', round(directMs, 4).toString()],
      ['orchestrated wall, ms/call', round(wallPerCall).toString()],
      ['  ratio orchestrated/direct', `${round(wallPerCall / directMs, 1)}x`],
      ['  activity span (rows), ms/call*', round(rowMs).toString()],
      ['  activity span (events), ms/call*', round(eventMs).toString()],
      ['  ratio activity/direct', `${round(rowMs / directMs, 1)}x`],
      ['  tool phase (parallel), ms/call', round(toolPhase).toString()],
      ['  sched+model+projection, ms/call', round(overhead).toString()],
      ['    dispatch (step done→tool start)', round(perCall((b) => b.dispatch)).toString()],
      ['    tools done→next step done', round(perCall((b) => b.modelRoundTrip)).toString()],
      ['    session start/finish', round(perCall((b) => b.edges)).toString()],
      ['tool calls/s sequential', round(seqRate, 1).toString()],
      [`tool calls/s concurrent (${C})`, round(concRate, 1).toString()],
      ['RSS before / after, MB', `${rssBefore} / ${rssAfter}`],
      ['setup (dev server, worker, warm-up)', `${round(setupMs / 1000, 2)} s`],
    ];
    const width = Math.max(...rows.map(([k]) => k.length));
    console.log();
    for (const [k, v] of rows) console.log(`${k.padEnd(width)}  ${v}`);
    const runtimeS = round((performance.now() - began) / 1000, 2);
    console.log(`${'runtime'.padEnd(width)}  ${runtimeS} s`);
    console.log('* activity start → result: tool body plus its running-row upsert and tool.started event,');
    console.log(`  with ${P} calls per step contending for the projection; tool phase = per-step wave span / calls\n`);
    console.log(
      JSON.stringify({
        node: process.version,
        temporal: temporalVersion,
        sessions: N,
        calls: K,
        parallel: P,
        concurrency: C,
        directMsPerCall: round(directMs, 4),
        wallMsPerCall: round(wallPerCall),
        ratio: round(wallPerCall / directMs, 1),
        activityMsPerCallRows: round(rowMs),
        activityMsPerCallEvents: round(eventMs),
        toolPhaseMsPerCall: round(toolPhase),
        overheadMsPerCall: round(overhead),
        callsPerSecSequential: round(seqRate, 1),
        callsPerSecConcurrent: round(concRate, 1),
        rssMbBefore: rssBefore,
        rssMbAfter: rssAfter,
        runtimeS,
      }),
    );
  } finally {
    await cleanup(true);
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
