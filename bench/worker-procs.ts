/**
 * Workers in processes of their own for the benches (issue 13): Zuno's as an
 * operator runs it (`zuno worker`, compiled), the peer's beside it, so CPU
 * and memory are the worker's alone — not the bench's client, provider
 * servers and bookkeeping. CPU from /proc/<pid>/stat (user + system, the
 * process and its waited-for children), RSS from /proc/<pid>/status, heap
 * on request through bench/mem-report.mjs. Linux only.
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { ROOT, startTestDevServer } from '../test/helpers/dev-server.js';
import { createHarness, type Harness } from '../test/helpers/harness.js';

/** A benchmarked worker process. */
export interface BenchWorker {
  pid: number;
  /** CPU time used so far, in ms (user + system, with reaped children). */
  cpuMs(): number;
  /** Resident set size now, in MiB. */
  rssMb(): number;
  /** Collects garbage in the worker's main thread and returns its process.memoryUsage(), in MiB. */
  memory(): Promise<{ rss: number; heapUsed: number; external: number }>;
  stop(): Promise<void>;
}

/** Busy and total CPU time of the whole machine so far, in clock ticks (/proc/stat, every core). */
export function machineTicks(): { busy: number; total: number } {
  const f = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const total = f.reduce((a, b) => a + b, 0);
  // idle + iowait are not busy.
  return { busy: total - f[3]! - f[4]!, total };
}

const TICK_MS = 1000 / Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());

/**
 * CPU time process `pid` has used so far, in ms: user + system, with its
 * reaped children (/proc/<pid>/stat fields 14–17).
 */
export function processCpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // Fields 14–17 of stat (utime, stime, cutime, cstime), counted after the state field (3).
  return (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) * TICK_MS;
}

/**
 * CPU time this process's waited-for children have used so far, in ms (user
 * + system; /proc/self/stat fields 16–17). A child counts once it has exited
 * and been reaped (its `close` event): the difference across one child's run
 * is that child's CPU, whatever the machine's load. A grandchild counts
 * only when the child reaped it (a detached service it left running does not).
 */
export function reapedChildrenCpuMs(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[13]) + Number(f[14])) * TICK_MS;
}

/**
 * Waits until process `pid` is quiet: under `idleShare` of one core over a
 * 250 ms window (0.1: 25 ms, a few clock ticks; an idle dev server uses
 * ~1 %), for at most `maxMs`, and says so on stderr when it gave up. The
 * peer bench settles the dev server after its warm-up and after each phase
 * before it reads the server's CPU, so the work the server does after a
 * phase's last workflow closed is billed to that phase, not the next.
 */
export async function settle(pid: number, idleShare = 0.1, maxMs = 10_000): Promise<void> {
  const t0 = performance.now();
  for (;;) {
    const c0 = processCpuMs(pid);
    await sleep(250);
    if ((processCpuMs(pid) - c0) / 250 < idleShare) return;
    if (performance.now() - t0 > maxMs) {
      process.stderr.write(`bench: process ${pid} was still busy after ${maxMs} ms; going on\n`);
      return;
    }
  }
}

function wrap(child: ChildProcess, memFile: string, name: string): BenchWorker {
  let stderr = '';
  child.stderr?.on('data', (d) => (stderr = (stderr + String(d)).slice(-4000)));
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  let stopping = false;
  child.once('close', (code, signal) => {
    if (stopping) return;
    // A worker that dies mid-bench would leave the bench waiting forever: stop it loudly instead.
    process.stderr.write(`${name} worker exited (${code ?? signal}) before the bench stopped it:\n${stderr}\n`);
    process.exit(1);
  });
  const pid = child.pid!;
  return {
    pid,
    cpuMs: () => processCpuMs(pid),
    rssMb() {
      const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
      return Number(m![1]) / 1024;
    },
    async memory() {
      rmSync(memFile, { force: true });
      process.kill(pid, 'SIGUSR2');
      for (let i = 0; i < 100 && !existsSync(memFile); i++) await sleep(50);
      const u = JSON.parse(readFileSync(memFile, 'utf8')) as Record<'rss' | 'heapUsed' | 'external', number>;
      return { rss: u.rss / 2 ** 20, heapUsed: u.heapUsed / 2 ** 20, external: u.external / 2 ** 20 };
    },
    async stop() {
      stopping = true;
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
      // A subprocess the worker left (none expected) must not hold the bench open through the stderr pipe.
      child.stderr?.destroy();
    },
  };
}

/** ZUNO_BENCH_CPU_PROF=<dir>: each worker writes a V8 CPU profile there when it stops (open it in Chrome DevTools). */
const profile = process.env.ZUNO_BENCH_CPU_PROF
  ? ['--cpu-prof', `--cpu-prof-dir=${process.env.ZUNO_BENCH_CPU_PROF}`]
  : [];

const preload = (memFile: string) => ({
  NODE_OPTIONS: `--import ${pathToFileURL(join(import.meta.dirname, 'mem-report.mjs')).href} --expose-gc`,
  ZUNO_BENCH_MEM_FILE: memFile,
});

/**
 * Starts `zuno worker` with ZUNO_HOME=`home` on `taskQueue` of the server at
 * `address` (writes `<home>/temporal.yaml`); its projection is `<home>`'s.
 */
export function zunoWorkerProcess(home: string, address: string, taskQueue: string): BenchWorker {
  writeFileSync(
    join(home, 'temporal.yaml'),
    ['server:', '  mode: external', `  address: ${address}`, `taskQueue: ${taskQueue}`, ''].join('\n'),
  );
  const memFile = join(home, 'bench-mem.json');
  const child = spawn(process.execPath, [...profile, join(ROOT, 'bin', 'zuno.mjs'), 'worker'], {
    cwd: home,
    env: { ...process.env, ZUNO_HOME: home, TEMPORAL_ADDRESS: '', ...preload(memFile) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  return wrap(child, memFile, 'zuno');
}

/** Starts the peer's worker (bench/peer/worker.ts) on `taskQueue` with the prebuilt workflow bundle `codePath`. */
export function peerWorkerProcess(dir: string, address: string, taskQueue: string, codePath: string): BenchWorker {
  const memFile = join(dir, 'peer-mem.json');
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', ...profile, join(import.meta.dirname, 'peer', 'worker.ts'), address, taskQueue, codePath],
    { cwd: ROOT, env: { ...process.env, ...preload(memFile) }, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  return wrap(child, memFile, 'peer');
}

/** A bench's Temporal, client and Zuno worker: see {@link zunoBench}. */
export interface ZunoBench {
  /** A fresh temporary directory, removed by `close`. */
  root: string;
  address: string;
  /** Client, projection store and scripted sessions; hosts no worker. */
  h: Harness;
  /** `zuno worker` on the harness's task queue, with the harness's projection. */
  worker: BenchWorker;
  /** Stops the worker, closes the harness, kills the dev server, removes `root`. */
  close(): Promise<void>;
}

/**
 * Starts what a bench of Zuno alone needs: the pinned dev server, a harness
 * without a worker, and `zuno worker` in a process of its own on the
 * harness's task queue (`zuno-bench-<name>-<time>`), sharing its projection.
 */
export async function zunoBench(name: string): Promise<ZunoBench> {
  const root = mkdtempSync(join(tmpdir(), `zuno-${name}-bench-`));
  const closers: (() => Promise<unknown>)[] = [async () => rmSync(root, { recursive: true, force: true })];
  const close = async () => {
    for (const c of closers.splice(0).reverse()) await c().catch(() => undefined);
  };
  try {
    const server = await startTestDevServer(join(root, 'temporal.db'));
    closers.push(() => server.kill());
    const home = join(root, 'state');
    mkdirSync(home);
    const taskQueue = `zuno-bench-${name}-${Date.now()}`;
    const h = await createHarness({ address: server.address, withWorker: false, stateDir: home, taskQueue });
    closers.push(() => h.close());
    const worker = zunoWorkerProcess(home, server.address, taskQueue);
    closers.push(() => worker.stop());
    return { root, address: server.address, h, worker, close };
  } catch (err) {
    await close();
    throw err;
  }
}

/**
 * Runs a bench's `main` and exits: tsx's esbuild service keeps a child
 * process open in the bench's process, which would otherwise never end.
 */
export async function runBench(main: () => Promise<void>): Promise<void> {
  await main();
  process.exit();
}

/**
 * A bench's command-line flags: node's `parseArgs` over `process.argv`,
 * strict (an unknown option or a missing value is refused), with an unknown
 * or malformed option refused by {@link badArgument} instead of a stack
 * trace. `-h`/`--help` prints `usage` and exits 0. `options` as `parseArgs`
 * takes them.
 */
export function benchFlags<O extends NonNullable<ParseArgsConfig['options']>>(usage: string, options: O) {
  const args = process.argv.slice(2);
  if (args.includes('-h') || args.includes('--help')) {
    console.log(usage);
    process.exit(0);
  }
  try {
    return parseArgs({ args, options, strict: true }).values;
  } catch (err) {
    return badArgument((err as Error).message.replace(/\s*\n\s*/g, ' '));
  }
}

/** Refuses a bad bench argument: the message on stderr, exit 2, no stack trace. */
export function badArgument(message: string): never {
  process.stderr.write(`${process.argv[1]?.split('/').pop() ?? 'bench'}: ${message} (--help for usage)\n`);
  process.exit(2);
}
