/**
 * CLI start-up time (prints figures, asserts nothing).
 *
 * Times `zuno --help`, `zuno --version` and `zuno session show <id>`, each a
 * fresh `node bin/zuno.mjs …` process (wall time from spawn to exit), on both
 * launcher paths: the compiled CLI in dist/ and the tsx fallback
 * (`ZUNO_LAUNCHER=tsx`, which still runs the freshness check first). Per
 * command and path: one warm-up, then `--runs` timed runs; prints median and
 * p90 with the target, one figure a line, and the tsx/compiled ratio.
 *
 * `session show` reads a real stored session: a temp ZUNO_HOME, a Temporal
 * dev server on free ports (test/helpers/dev-server.ts), one scripted
 * `zuno run --script demo/explain-session.json`. The dev server is stopped
 * before the timing: session show reads only the projection (SQLite).
 *
 *   npx tsx bench/startup.ts [--runs 10]
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { ROOT, startTestDevServer, type TestDevServer } from '../test/helpers/dev-server.js';
import { badArgument, benchFlags } from './worker-procs.js';

const flags = benchFlags('usage: npx tsx bench/startup.ts [--runs 10]', { runs: { type: 'string', default: '10' } });
const RUNS = Number(flags.runs);
if (!Number.isInteger(RUNS) || RUNS < 1) badArgument(`--runs must be a positive integer (got ${flags.runs})`);

const ZUNO = join(ROOT, 'bin', 'zuno.mjs');
/** Variables of the developer's shell that would change what `zuno` does (as test/cli/helpers.ts). */
const SCRUBBED = /^(ZUNO_|TEMPORAL_|DATABASE_URL$)/;

type Path = 'compiled' | 'tsx';

function env(home: string, path: Path, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const e: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!SCRUBBED.test(k)) e[k] = v;
  return { ...e, ZUNO_HOME: home, ...(path === 'tsx' ? { ZUNO_LAUNCHER: 'tsx' } : {}), ...extra };
}

/** Runs `zuno args` once; returns wall ms and stderr. @throws when it exits non-zero. */
function zuno(args: string[], home: string, path: Path, extra: Record<string, string> = {}) {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [ZUNO, ...args], {
    cwd: home,
    env: env(home, path, extra),
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`zuno ${args.join(' ')} (${path}) exited ${r.status}: ${r.stderr}`);
  return { ms, stdout: r.stdout, stderr: r.stderr };
}

/** Median of `xs` (mean of the two middle values for an even count). */
function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** Nearest-rank percentile of `xs` (0 < p ≤ 1). */
function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.max(0, Math.ceil(p * s.length) - 1)]!;
}

/** Which path the launcher took, from its ZUNO_DEBUG_LAUNCHER line; exits when it is not the one asked for. */
function checkPath(home: string, path: Path): number[] {
  const costs: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const { stderr } = zuno(['--version'], home, path, { ZUNO_DEBUG_LAUNCHER: '1' });
    const m = /^zuno launcher: (compiled|tsx) \(.*checked in ([\d.]+) ms\)$/m.exec(stderr);
    if (!m || m[1] !== path) {
      console.error(`bench: expected the ${path} path, the launcher said: ${stderr.trim()}`);
      process.exit(1);
    }
    costs.push(Number(m[2]));
  }
  return costs;
}

const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

async function main(): Promise<void> {
  // dist/ must be fresh for the compiled figures (npm run bench has built it already: then a no-op).
  execFileSync(process.execPath, [join(ROOT, 'scripts', 'build.mjs')], { stdio: 'inherit' });
  const root = mkdtempSync(join(tmpdir(), 'zuno-bench-startup-'));
  let server: TestDevServer | undefined;
  try {
    server = await startTestDevServer(join(root, 'temporal.db'));
    const home = join(root, 'home');
    mkdirSync(home);
    writeFileSync(
      join(home, 'temporal.yaml'),
      `server:\n  mode: external\n  address: ${server.address}\ntaskQueue: zuno-bench-startup\n`,
    );
    const run = zuno(
      [
        'run',
        '--dir',
        ROOT,
        '--script',
        join(ROOT, 'demo', 'explain-session.json'),
        '--json',
        'Where is retry decided?',
      ],
      home,
      'compiled',
    );
    const last = JSON.parse(run.stdout.trim().split('\n').at(-1)!) as { type: string; sessionId: string };
    if (last.type !== 'session.completed') throw new Error(`the scripted run ended with ${last.type}`);
    await server.kill(); // session show must not need Temporal
    server = undefined;

    const commands: { label: string; args: string[]; targetS: number }[] = [
      { label: '--help', args: ['--help'], targetS: 0.3 },
      { label: '--version', args: ['--version'], targetS: 0.3 },
      { label: 'session show', args: ['session', 'show', last.sessionId], targetS: 1 },
    ];
    const checkCost = checkPath(home, 'compiled');
    checkPath(home, 'tsx');
    console.log();
    const medians = new Map<string, number>();
    for (const path of ['compiled', 'tsx'] as const) {
      for (const c of commands) {
        zuno(c.args, home, path); // warm-up (disk cache)
        const times = Array.from({ length: RUNS }, () => zuno(c.args, home, path).ms);
        const m = median(times);
        medians.set(`${path} ${c.label}`, m);
        const name = `startup ${c.label} (${path === 'tsx' ? 'tsx fallback' : 'compiled'})`;
        console.log(`${name}: ${s(m)} median, ${s(percentile(times, 0.9))} p90 (target ≤ ${c.targetS} s)`);
      }
    }
    for (const c of commands) {
      const ratio = medians.get(`tsx ${c.label}`)! / medians.get(`compiled ${c.label}`)!;
      console.log(`startup ${c.label}: tsx fallback / compiled = ${ratio.toFixed(1)}x`);
    }
    console.log(
      `startup freshness check (launcher, compiled path): ${median(checkCost).toFixed(1)} ms median, ` +
        `${percentile(checkCost, 0.9).toFixed(1)} ms p90`,
    );
    console.log(`startup session show: needs no Temporal server (it was stopped before timing)`);
    console.log(`startup runs: ${RUNS} per figure after 1 warm-up, each a fresh process; node ${process.version}\n`);
  } finally {
    await server?.kill().catch(() => undefined);
    rmSync(root, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
