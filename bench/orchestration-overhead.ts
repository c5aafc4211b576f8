/**
 * Orchestration overhead of a tool call (prints figures, asserts nothing).
 *
 * Compares calling a tool function directly in process with running the same
 * calls through the real stack: local provider server → session workflow on a
 * real Temporal dev server (temp dir, never the user's `.zuno/`) → in-process
 * worker → `tool_<name>` activities → SQLite projection (temp dir). Three
 * tools: `read` (Shareable: a step's calls run in parallel), and the
 * side-effecting, Exclusive `shell` (`echo x`) and `apply_patch` (adds one new
 * file per call) whose calls serialize. Per tool, sessions run sequentially and
 * then concurrently; the stored tool-call rows and events split each call's
 * wall time into the tool activity and the rest (dispatch scheduling, model
 * steps, projection writes). Cases and measurements: overhead-cases.ts,
 * overhead-measure.ts.
 *
 *   npx tsx bench/orchestration-overhead.ts --sessions 5 --calls 40 --parallel 10 --shell-calls 20
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createHarness, type Harness } from '../test/helpers/harness.js';
import { startTestDevServer, TEMPORAL_BIN, type TestDevServer } from '../test/helpers/dev-server.js';
import { benchCase, readFileCount, type BenchCase } from './overhead-cases.js';
import { direct, measureCase, timedSession, type CaseFigures } from './overhead-measure.js';
import { badArgument, benchFlags } from './worker-procs.js';

const HELP = `usage: npx tsx bench/orchestration-overhead.ts [options]   (npm run bench runs it with the defaults)

  -n, --sessions <N>        read: scripted sessions per phase (default 5)
  -k, --calls <K>           read: calls per session (default 40)
  -p, --parallel <P>        read: calls per model step, run in parallel (default 10)
  -m, --direct <M>          read: direct in-process calls (default 2000)
  -c, --concurrency <C>     sessions in flight in the concurrent phase, every tool
                            (default: that tool's session count)
      --shell-sessions <N>  shell: sessions per phase (default 3)
      --shell-calls <K>     shell: calls per session (default 16)
      --shell-per-step <S>  shell: calls per model step, serialized (default 4)
      --shell-direct <M>    shell: direct in-process calls (default 30)
      --patch-sessions <N>  apply_patch: sessions per phase (default 3)
      --patch-calls <K>     apply_patch: calls per session (default 30)
      --patch-per-step <S>  apply_patch: calls per model step, serialized (default 5)
      --patch-direct <M>    apply_patch: direct in-process calls (default 500)
  -h, --help                show this help`;

const flags = benchFlags(HELP, {
  sessions: { type: 'string', short: 'n', default: '5' },
  calls: { type: 'string', short: 'k', default: '40' },
  parallel: { type: 'string', short: 'p', default: '10' },
  concurrency: { type: 'string', short: 'c' },
  direct: { type: 'string', short: 'm', default: '2000' },
  'shell-sessions': { type: 'string', default: '3' },
  'shell-calls': { type: 'string', default: '16' },
  'shell-per-step': { type: 'string', default: '4' },
  'shell-direct': { type: 'string', default: '30' },
  'patch-sessions': { type: 'string', default: '3' },
  'patch-calls': { type: 'string', default: '30' },
  'patch-per-step': { type: 'string', default: '5' },
  'patch-direct': { type: 'string', default: '500' },
});
function positiveInt(name: keyof typeof flags, raw = String(flags[name])): number {
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) badArgument(`--${name} must be a positive integer (got ${raw})`);
  return n;
}
const C = flags.concurrency === undefined ? undefined : positiveInt('concurrency');
const cases: BenchCase[] = [
  benchCase('read', {
    sessions: positiveInt('sessions'),
    calls: positiveInt('calls'),
    perStep: positiveInt('parallel'),
    direct: positiveInt('direct'),
    concurrency: C,
  }),
  benchCase('shell', {
    sessions: positiveInt('shell-sessions'),
    calls: positiveInt('shell-calls'),
    perStep: positiveInt('shell-per-step'),
    direct: positiveInt('shell-direct'),
    concurrency: C,
  }),
  benchCase('apply_patch', {
    sessions: positiveInt('patch-sessions'),
    calls: positiveInt('patch-calls'),
    perStep: positiveInt('patch-per-step'),
    direct: positiveInt('patch-direct'),
    concurrency: C,
  }),
];
const read = cases[0]!;

const mb = () => Math.round((process.memoryUsage().rss / 2 ** 20) * 10) / 10;
const round = (x: number, d = 3) => Math.round(x * 10 ** d) / 10 ** d;

/** The table: one row per figure, one column per tool. */
function table(figs: CaseFigures[]): [string, string[]][] {
  const col = (f: (x: CaseFigures, c: BenchCase) => string) => figs.map((x, i) => f(x, cases[i]!));
  const ms = (f: (x: CaseFigures) => number, d = 3) => col((x) => (Number.isNaN(f(x)) ? '-' : String(round(f(x), d))));
  const ratio = (f: (x: CaseFigures) => number) => col((x) => `${round(f(x), 1)}x`);
  return [
    ['tool', cases.map((c) => c.tool)],
    ['sessions x calls (per step)', col((_, c) => `${c.sessions} x ${c.calls} (${c.perStep})`)],
    ['calls in a step run', col((_, c) => (c.exclusive ? 'serially' : 'in parallel'))],
    ['direct, ms/call', ms((x) => x.directMs, 4)],
    ['orchestrated wall, ms/call', ms((x) => x.wallPerCall)],
    ['  ratio orchestrated/direct', ratio((x) => x.wallPerCall / x.directMs)],
    ['  activity span (rows), ms/call*', ms((x) => x.rowMs)],
    ['  activity span (events), ms/call*', ms((x) => x.eventMs)],
    ['  ratio activity/direct', ratio((x) => x.rowMs / x.directMs)],
    ['  tool phase, ms/call', ms((x) => x.toolPhase)],
    ['    serial hand-off, ms/call', ms((x) => x.betweenCalls)],
    ['  sched+model+projection, ms/call', ms((x) => x.overhead)],
    ['    dispatch (step done→tool start)', ms((x) => x.dispatch)],
    ['    tools done→next step done', ms((x) => x.modelRoundTrip)],
    ['    session start/finish', ms((x) => x.edges)],
    ['tool calls/s sequential', ms((x) => x.seqRate, 1)],
    ['tool calls/s concurrent', col((x, c) => `${round(x.concRate, 1)} (${c.concurrency})`)],
  ];
}

/** JSON figures of one tool (the read ones stay top-level, as before). */
function json(c: BenchCase, x: CaseFigures) {
  return {
    sessions: c.sessions,
    calls: c.calls,
    ...(c.exclusive ? { perStep: c.perStep } : { parallel: c.perStep }),
    concurrency: c.concurrency,
    directMsPerCall: round(x.directMs, 4),
    wallMsPerCall: round(x.wallPerCall),
    ratio: round(x.wallPerCall / x.directMs, 1),
    activityMsPerCallRows: round(x.rowMs),
    activityMsPerCallEvents: round(x.eventMs),
    toolPhaseMsPerCall: round(x.toolPhase),
    ...(c.exclusive ? { serialHandoffMsPerCall: round(x.betweenCalls) } : {}),
    overheadMsPerCall: round(x.overhead),
    callsPerSecSequential: round(x.seqRate, 1),
    callsPerSecConcurrent: round(x.concRate, 1),
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
    for (let i = 0; i < readFileCount(read.perStep); i++) {
      const body = Array.from({ length: 20 }, (_, l) => `export const v${i}_${l} = ${l}; // line ${l}`).join('\n');
      writeFileSync(join(workspace, 'src', `f${i}.ts`), `${body}\n`);
    }
    const directMs: number[] = [];
    for (const c of cases) directMs.push(await direct(c, workspace));

    const setupT0 = performance.now();
    server = await startTestDevServer(join(root, 'temporal.db'));
    mkdirSync(join(root, 'state'));
    h = await createHarness({ address: server.address, stateDir: join(root, 'state') });
    await timedSession(h, read, workspace); // warm-up: bundle loaded, workflow cache, Prisma query compiler
    const setupMs = performance.now() - setupT0;

    const figs: CaseFigures[] = [];
    for (const [i, c] of cases.entries()) {
      if (c !== read) await timedSession(h, c, workspace); // warm-up of this tool's activity path
      figs.push(await measureCase(h, c, workspace, directMs[i]!));
    }
    const rssAfter = mb();

    const rows = table(figs);
    const width = Math.max(...rows.map(([k]) => k.length));
    const colWidth = Math.max(12, ...rows.flatMap(([, vs]) => vs.map((v) => v.length)));
    console.log();
    console.log(`${'node / temporal'.padEnd(width)}  ${process.version} / ${temporalVersion}`);
    for (const [k, vs] of rows) console.log(`${k.padEnd(width)}  ${vs.map((v) => v.padStart(colWidth)).join('  ')}`);
    console.log(`${'RSS before / after, MB'.padEnd(width)}  ${rssBefore} / ${rssAfter}`);
    console.log(`${'setup (dev server, worker, warm-up)'.padEnd(width)}  ${round(setupMs / 1000, 2)} s`);
    const runtimeS = round((performance.now() - began) / 1000, 2);
    console.log(`${'runtime'.padEnd(width)}  ${runtimeS} s`);
    console.log(
      '* activity start → result: tool body plus its running-row upsert and tool.started event (read: a local activity, its start written with its result);',
    );
    console.log(
      `  read: ${read.perStep} calls per step contend for the projection; tool phase = per-step span / calls;`,
    );
    console.log('  serial hand-off = tool phase − activity span (Exclusive tools: one activity after another)\n');
    const [readFigs, ...rest] = figs.map((x, i) => json(cases[i]!, x));
    console.log(
      JSON.stringify({
        node: process.version,
        temporal: temporalVersion,
        ...readFigs,
        ...Object.fromEntries(rest.map((x, i) => [cases[i + 1]!.tool, x])),
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
