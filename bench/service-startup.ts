/**
 * Start-up cost of the host worker service (issue 25 item 6; prints figures,
 * asserts nothing).
 *
 * One Temporal dev server on free ports (test/helpers/dev-server.ts) and a
 * scripted model served from this process (`startLocalProvider`), which a
 * `zuno.json` in the bench's workspace names as provider `bench`. Each round
 * uses fresh homes (their own SQLite projection and task queue), and every
 * `zuno` is a fresh `node bin/zuno.mjs …` process on the compiled path:
 *
 * 1. **Service start to first poll**: `zuno worker start` in a fresh home
 *    (cold: no workflow bundle cached, no projection yet), then `zuno worker
 *    stop` and `zuno worker start` again (warm: the bundle is cached).
 *    Measured from spawning the command to the service's `readyAtMs` in
 *    `worker.json` (wall clock; same machine), with the command's own exit
 *    and the service's `startedAtMs` (it recorded itself: store opened,
 *    Temporal connected) beside it.
 * 2. **`zuno run` to the first model request**: from spawning `zuno run` to
 *    the moment the scripted model server in this process receives the
 *    session's first request — the service already up (the first session it
 *    serves, and one after), the command starting it (warm bundle cache,
 *    service stopped; a cold home), and `--in-process` (warm, cold) for
 *    comparison. The model runs here rather than as a `zuno-script://`
 *    model inside the worker so that the end point is a real HTTP request
 *    arriving, timed on the same clock as the spawn, and not a file's mtime.
 *
 * Per figure: wall time median (min–max) over `--rounds`, with the targets
 * (service warm start ≤ 2 s; `zuno run` to the first request ≤ 1 s with the
 * service up), and the CPU time it took (median; user + system of the command
 * and, when it started one, of the service so far, read from /proc): on a
 * machine other work loads, the wall times stretch and the CPU times hold.
 * The machine's load average is printed with the table. Linux only.
 *
 *   npx tsx bench/service-startup.ts [--rounds 3]
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { startLocalProvider } from '../local-provider/server.js';
import { ROOT, startTestDevServer, type TestDevServer } from '../test/helpers/dev-server.js';
import { badArgument, benchFlags, processCpuMs, reapedChildrenCpuMs, runBench } from './worker-procs.js';

const flags = benchFlags('usage: npx tsx bench/service-startup.ts [--rounds 3]', {
  rounds: { type: 'string', default: '3' },
});
const ROUNDS = Number(flags.rounds);
if (!Number.isInteger(ROUNDS) || ROUNDS < 1) badArgument(`--rounds must be a positive integer (got ${flags.rounds})`);

const ZUNO = join(ROOT, 'bin', 'zuno.mjs');
/** Variables of the developer's shell that would change what `zuno` does (as test/cli/helpers.ts). */
const SCRUBBED = /^(ZUNO_|TEMPORAL_|DATABASE_URL$)/;

/** The result of one `zuno` process. */
interface Ran {
  /** Wall ms from spawn to exit. */
  ms: number;
  /** CPU ms the command used (user + system; not a detached service it started). */
  cpuMs: number;
  stdout: string;
  stderr: string;
}

/** Runs `zuno args` with ZUNO_HOME=`home` in `cwd`, without blocking this process's event loop (the model server lives here). */
function zuno(args: string[], home: string, cwd: string, onSpawn?: () => void): Promise<Ran> {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!SCRUBBED.test(k)) env[k] = v;
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const cpu0 = reapedChildrenCpuMs();
    const child = spawn(process.execPath, [ZUNO, ...args], {
      cwd,
      env: { ...env, ZUNO_HOME: home },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    onSpawn?.();
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += String(d)));
    child.stderr.on('data', (d) => (stderr += String(d)));
    child.once('error', reject);
    child.once('close', (code) => {
      const ms = performance.now() - t0;
      if (code === 0) resolve({ ms, cpuMs: reapedChildrenCpuMs() - cpu0, stdout, stderr });
      else reject(new Error(`zuno ${args.join(' ')} exited ${code}: ${stderr.trim()}`));
    });
  });
}

/** A fresh home whose temporal.yaml names the bench's server and a task queue of its own. */
function freshHome(root: string, name: string, address: string): string {
  const home = join(root, name);
  mkdirSync(home);
  writeFileSync(
    join(home, 'temporal.yaml'),
    `server:\n  mode: external\n  address: ${address}\ntaskQueue: zuno-bench-svc-${name}-${Date.now()}\n`,
  );
  return home;
}

/** `worker.json` of the home (this machine's host identity). */
function workerRecord(home: string): { pid: number; startedAtMs: number; readyAtMs?: number } {
  return JSON.parse(readFileSync(join(home, 'worker.json'), 'utf8')) as {
    pid: number;
    startedAtMs: number;
    readyAtMs?: number;
  };
}

/** CPU ms the home's live service has used so far (its reaped children, the bundler, too); undefined when none runs. */
function serviceCpu(home: string): number | undefined {
  try {
    return processCpuMs(workerRecord(home).pid);
  } catch {
    return undefined; // no record, or its process is gone
  }
}

/** One figure's samples, one per round, in ms: wall time, and CPU time when measured. */
interface Samples {
  wall: number[];
  cpu: number[];
}

/** The figures of a bench run, by name, in the order first added. */
class Figures {
  readonly all = new Map<string, Samples>();
  add(name: string, wallMs: number, cpuMs?: number): void {
    const s = this.all.get(name) ?? { wall: [], cpu: [] };
    s.wall.push(wallMs);
    if (cpuMs !== undefined) s.cpu.push(cpuMs);
    this.all.set(name, s);
  }
}

const sec = (ms: number) => (ms / 1000).toFixed(2);

/** Median of `xs` (mean of the two middle values for an even count). */
function medianOf(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** `1.23 s (1.10–1.40)`: median and range of `xs` (ms). */
function summary(xs: number[]): string {
  return `${sec(medianOf(xs))} s (${sec(Math.min(...xs))}–${sec(Math.max(...xs))})`;
}

async function main(): Promise<void> {
  // dist/ must be fresh: every figure is of the compiled CLI (npm run bench has built it already: then a no-op).
  execFileSync(process.execPath, [join(ROOT, 'scripts', 'build.mjs')], { stdio: 'inherit' });
  const root = mkdtempSync(join(tmpdir(), 'zuno-bench-service-'));
  let server: TestDevServer | undefined;
  const homes: string[] = [];
  let waiting = false;
  let firstAt: number | undefined;
  // Every new session sends the same first request (one user turn, no steps): the script's one reply serves them all.
  const provider = await startLocalProvider({
    script: { replies: [{ text: 'Ready.' }] },
    onLog: () => {
      if (waiting && firstAt === undefined) firstAt = performance.now();
    },
  });
  const ws = join(root, 'ws');
  mkdirSync(ws);
  writeFileSync(
    join(ws, 'zuno.json'),
    JSON.stringify({ providers: { bench: { transport: 'openai', surface: 'chat', base_url: provider.url } } }),
  );
  /**
   * `zuno run` (extra flags first) in `home`: ms from spawn to the model's first request, to the
   * command's exit, and CPU ms of the command — with the service's so far when the run started it.
   */
  const run = async (home: string, extra: string[] = []) => {
    let t0 = 0;
    firstAt = undefined;
    waiting = true;
    const before = serviceCpu(home);
    const r = await zuno(
      ['run', ...extra, '--dir', ws, '--model', 'bench/scripted', '--json', 'Say ready.'],
      home,
      ws,
      () => (t0 = performance.now()),
    );
    waiting = false;
    const last = JSON.parse(r.stdout.trim().split('\n').at(-1)!) as { type: string };
    if (last.type !== 'session.completed') throw new Error(`the run ended with ${last.type}: ${r.stderr}`);
    if (firstAt === undefined) throw new Error('the session completed without a model request');
    const started = before === undefined ? (serviceCpu(home) ?? 0) : 0;
    return { firstMs: firstAt - t0, exitMs: r.ms, cpuMs: r.cpuMs + started };
  };
  /** `zuno worker start` in `home`: ms from spawn to the service's readiness, to its record, to the command's exit; CPU ms of both. */
  const start = async (home: string) => {
    const t0 = Date.now();
    const r = await zuno(['worker', 'start', '--json'], home, home);
    const rec = workerRecord(home);
    if (rec.readyAtMs === undefined) throw new Error(`zuno worker start returned before the service polled`);
    const cpuMs = r.cpuMs + processCpuMs(rec.pid);
    return { readyMs: rec.readyAtMs - t0, recordedMs: rec.startedAtMs - t0, exitMs: r.ms, cpuMs };
  };
  const stop = (home: string) => zuno(['worker', 'stop'], home, home);
  const f = new Figures();
  try {
    server = await startTestDevServer(join(root, 'temporal.db'));
    const loadBefore = loadavg()[0]!;
    for (let round = 1; round <= ROUNDS; round++) {
      process.stderr.write(`bench: round ${round}/${ROUNDS}\n`);
      // 1. The service alone: cold (fresh home), then warm (stopped, started again).
      const home = freshHome(root, `r${round}`, server.address);
      homes.push(home);
      for (const kind of ['cold', 'warm'] as const) {
        if (kind === 'warm') await stop(home);
        const s = await start(home);
        f.add(`service ${kind}: spawn → ready`, s.readyMs, s.cpuMs);
        f.add(`service ${kind}: spawn → recorded`, s.recordedMs);
        f.add(`service ${kind}: worker start exits`, s.exitMs);
      }
      // 2. zuno run with the service up: the first session it serves, then another.
      for (const which of ['first session', 'next session'] as const) {
        const r = await run(home);
        f.add(`run, service up (${which})`, r.firstMs, r.cpuMs);
        f.add(`run, service up (${which}): exits`, r.exitMs);
      }
      // The command starts the service: warm bundle cache, service stopped.
      await stop(home);
      const warm = await run(home);
      f.add('run, starts the service (warm cache)', warm.firstMs, warm.cpuMs);
      // In-process, warm cache (the service must be stopped: a live one would serve the run).
      await stop(home);
      const inWarm = await run(home, ['--in-process']);
      f.add('run --in-process (warm cache)', inWarm.firstMs, inWarm.cpuMs);
      // Cold homes: nothing cached, no projection.
      const coldSvc = freshHome(root, `r${round}-cold-service`, server.address);
      homes.push(coldSvc);
      const cold = await run(coldSvc);
      f.add('run, starts the service (cold home)', cold.firstMs, cold.cpuMs);
      await stop(coldSvc);
      const coldIn = freshHome(root, `r${round}-cold-inproc`, server.address);
      homes.push(coldIn);
      const inCold = await run(coldIn, ['--in-process']);
      f.add('run --in-process (cold home)', inCold.firstMs, inCold.cpuMs);
    }
    report(f, loadBefore);
  } finally {
    for (const h of homes) await stop(h).catch(() => undefined);
    await provider.close();
    await server?.kill().catch(() => undefined);
    rmSync(root, { recursive: true, force: true });
  }
}

/** Prints the table: one figure a line, wall median (min–max), CPU median, and each target met or missed. */
function report(f: Figures, loadBefore: number): void {
  const targets: Record<string, number> = {
    'service warm: spawn → ready': 2000,
    'run, service up (first session)': 1000,
    'run, service up (next session)': 1000,
  };
  const width = Math.max(...[...f.all.keys()].map((k) => k.length));
  console.log(`\nhost worker service start-up, ${ROUNDS} rounds: wall median (min–max), CPU median`);
  for (const [name, { wall, cpu }] of f.all) {
    const target = targets[name];
    const cpuText = cpu.length ? `  CPU ${sec(medianOf(cpu))} s` : '';
    const verdict =
      target === undefined ? '' : `  target ≤ ${sec(target)} s: ${medianOf(wall) <= target ? 'met' : 'MISSED'}`;
    console.log(`  ${name.padEnd(width)}  ${summary(wall).padEnd(22)}${cpuText}${verdict}`);
  }
  console.log(
    `  CPU: the command's, plus the service's up to then when it started one (the bundler included); user + system`,
  );
  console.log(
    `  machine load (1-minute average): ${loadBefore.toFixed(1)} at the start, ${loadavg()[0]!.toFixed(1)} at the end, ${availableParallelism()} cores`,
  );
  console.log(
    `  spawn: a fresh \`node bin/zuno.mjs\` (compiled); first request: arrives at the scripted model server in the bench process; node ${process.version}\n`,
  );
}

await runBench(main);
