/**
 * Helpers for the end-to-end CLI tests: spawn the real `zuno` launcher
 * (`node bin/zuno.mjs …`) as a child process with a clean environment, a temp
 * ZUNO_HOME and (usually) the global setup's Temporal dev server.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, expect, inject } from 'vitest';
import { ROOT } from '../helpers/dev-server.js';

/** The launcher every test spawns. */
export const ZUNO_BIN = join(ROOT, 'bin', 'zuno.mjs');

/** What a finished `zuno` child process left behind. */
export interface ZunoResult {
  /** Exit code (null when killed by a signal, e.g. the test's own timeout). */
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** Wall time from spawn to exit, in ms. */
  wallMs: number;
  /** true when the helper had to kill the process after `timeoutMs`. */
  timedOut: boolean;
}

export interface RunZunoOptions {
  /** ZUNO_HOME, Zuno's state directory (also the working directory unless `cwd` is given). */
  home: string;
  /** Environment overrides; `undefined` removes a variable. */
  env?: Record<string, string | undefined>;
  cwd?: string;
  /** Kill the process group after this many ms (default 60 000). */
  timeoutMs?: number;
  /** Written to the child's standard input, which is then closed (default: no standard input). */
  stdin?: string;
  /** Called with the child right after it was spawned (e.g. to send it SIGINT later). */
  onSpawn?: (child: ChildProcess) => void;
}

/** Variables of the developer's shell that would change what `zuno` does; never inherited. */
const SCRUBBED = /^(ZUNO_|TEMPORAL_|DATABASE_URL$|OPENAI_API_KEY$|OPENROUTER_API_KEY$)/;

/**
 * Spawns `node bin/zuno.mjs ...args` in its own process group with a clean
 * environment (no inherited ZUNO_*, TEMPORAL_*, DATABASE_URL) plus
 * `ZUNO_HOME=home` and `opts.env`, stdin closed and stdout/stderr piped (so
 * not a TTY). Resolves when it exits; kills the whole group on timeout.
 */
/** Every run of {@link runZuno} in this test file, in the order they finished (for {@link expectNoStackInAnyRun}). */
export const finishedRuns: { args: string[]; result: ZunoResult; debug?: boolean }[] = [];

/** A stack frame as Node prints it: `    at fn (file:line:col)`. */
export const STACK_FRAME = /^\s+at .+\(.*:\d+:\d+\)$/m;

/** Asserts that `r` printed no `unexpected error` and no stack frame, on either stream. */
export function expectNoStack(r: ZunoResult, what = 'zuno'): void {
  for (const [stream, text] of [
    ['stderr', r.stderr],
    ['stdout', r.stdout],
  ] as const) {
    // `zuno: unexpected error: …` is how the CLI reports a bug (client/cli.ts); `--help` names the phrase itself.
    expect(/unexpected error:/.test(text), `${what} ${stream}: ${text}`).toBe(false);
    expect(STACK_FRAME.test(text), `${what} ${stream}: ${text}`).toBe(false);
  }
}

/**
 * Asserts {@link expectNoStack} of every run of {@link runZuno} this test file made so far, except runs that asked
 * for stacks (`ZUNO_DEBUG` set); returns how many were checked.
 */
export function expectNoStackInAnyRun(): number {
  const checked = finishedRuns.filter((r) => !r.debug);
  for (const { args, result } of checked) expectNoStack(result, `zuno ${args.join(' ')}`);
  return checked.length;
}

// Issue 25: no command of any test file, killed or faulted ones included, prints `unexpected error` or a stack.
afterAll(() => {
  expectNoStackInAnyRun();
});

export function runZuno(args: string[], opts: RunZunoOptions): Promise<ZunoResult> {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!SCRUBBED.test(k)) env[k] = v;
  env.ZUNO_HOME = opts.home;
  // The suite's one workflow-bundle cache (test/global-setup.ts); a test may still override it through opts.env.
  if (process.env.ZUNO_BUNDLE_CACHE) env.ZUNO_BUNDLE_CACHE = process.env.ZUNO_BUNDLE_CACHE;
  // Each test's work is served in the command's own process (`--in-process`), so a test's processes end with it;
  // the host worker service is tested by the tests that ask for it (ZUNO_WORKER: 'service').
  env.ZUNO_WORKER = 'in-process';
  for (const [k, v] of Object.entries(opts.env ?? {})) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  const started = Date.now();
  const child = spawn(process.execPath, [ZUNO_BIN, ...args], {
    cwd: opts.cwd ?? opts.home,
    env,
    stdio: [opts.stdin !== undefined ? 'pipe' : 'ignore', 'pipe', 'pipe'],
    detached: true,
  });
  if (opts.stdin !== undefined) child.stdin!.end(opts.stdin);
  opts.onSpawn?.(child);
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
  }, opts.timeoutMs ?? 60_000);
  return new Promise((resolve, reject) => {
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      const result = { code, signal, stdout, stderr, wallMs: Date.now() - started, timedOut };
      finishedRuns.push({ args, result, ...(env.ZUNO_DEBUG ? { debug: true } : {}) });
      resolve(result);
    });
  });
}

/**
 * Stops every host worker service a home in `dir` recorded (`worker.json`,
 * `worker.<host>.json`) whose process still runs: a test that started one
 * (ZUNO_WORKER=service) and ended without `zuno worker stop` would leave it
 * polling a dev server that is gone, for the rest of the machine's life.
 */
function stopServicesIn(dir: string): void {
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => /^worker(\..+)?\.json$/.test(n));
  } catch {
    return;
  }
  for (const name of names) {
    let pid: unknown;
    try {
      pid = (JSON.parse(readFileSync(join(dir, name), 'utf8')) as { pid?: unknown }).pid;
    } catch {
      continue;
    }
    if (typeof pid !== 'number' || pid <= 0) continue;
    try {
      // Only a Zuno worker: a recorded pid may have been reused by another process since.
      if (!readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('worker')) continue;
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

const dirs: string[] = [];
afterAll(() => {
  while (dirs.length) {
    const d = dirs.pop()!;
    stopServicesIn(d);
    rmSync(d, { recursive: true, force: true });
  }
});

/** A fresh temp directory, removed after the test file. */
export function tempDir(prefix: string): string {
  const d = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(d);
  return d;
}

/** Writes files (relative path → content) under root, creating parent directories. */
export function writeTree(root: string, files: Record<string, string>): void {
  for (const [rel, content] of Object.entries(files)) {
    const abs = join(root, rel);
    mkdirSync(dirname(abs), { recursive: true });
    writeFileSync(abs, content);
  }
}

/** A unique task queue, so concurrent `zuno run`s (each with its own store) never take each other's tasks. */
export function uniqueTaskQueue(): string {
  return `zuno-cli-${randomBytes(5).toString('hex')}`;
}

/**
 * A fresh ZUNO_HOME whose `temporal.yaml` points at `address` (mode
 * external) on a unique task queue. Pass `temporalYaml` to write other text.
 * Its workers are unversioned (`workerVersioning: false`): each test home is a
 * brand-new Worker Deployment, which costs the server 1–3 s per test; the
 * tests of the worker itself pass `versioned: true` (docs/versioning.md).
 */
export function makeHome(opts: { address?: string; temporalYaml?: string; versioned?: boolean } = {}): {
  home: string;
  taskQueue: string;
} {
  const home = tempDir('zuno-cli-home-');
  const taskQueue = uniqueTaskQueue();
  const yaml =
    opts.temporalYaml ??
    [
      'server:',
      `  mode: ${opts.address ? 'external' : 'dev'}`,
      ...(opts.address ? [`  address: ${opts.address}`] : []),
      `taskQueue: ${taskQueue}`,
      ...(opts.versioned ? [] : ['workerVersioning: false']),
      '',
    ].join('\n');
  writeFileSync(join(home, 'temporal.yaml'), yaml);
  return { home, taskQueue };
}

/** A workspace with a TODO in `src/a.ts` for grep to find. */
export function makeWorkspace(): string {
  const ws = tempDir('zuno-cli-ws-');
  writeTree(ws, {
    'src/a.ts': 'export const a = 1; // TODO: rename\n',
    'src/b.ts': 'export const b = 2;\n',
  });
  return ws;
}

/** Writes a JSON value to `<dir>/<name>` and returns the path. */
export function writeJson(dir: string, name: string, value: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify(value, null, 2));
  return path;
}

/** Parses NDJSON; fails the test naming the line that is not JSON. */
export function parseNdjson(text: string): Record<string, unknown>[] {
  const lines = text.split('\n').filter((l) => l !== '');
  return lines.map((line, i) => {
    try {
      return JSON.parse(line) as Record<string, unknown>;
    } catch {
      throw new Error(`stdout line ${i + 1} is not JSON: ${line}`);
    }
  });
}

/**
 * Asserts the typed-failure contract of the CLI: exit code 1, nothing on
 * stdout, and stderr is exactly one line `zuno: <code>: <message>`. Returns
 * the message.
 */
export function expectTypedFailure(r: ZunoResult, code: string): string {
  expect(r.timedOut, `zuno timed out; stderr: ${r.stderr}`).toBe(false);
  expectNoStack(r);
  expect({ code: r.code, stdout: r.stdout }, r.stderr).toEqual({ code: 1, stdout: '' });
  expect(r.stderr.endsWith('\n'), JSON.stringify(r.stderr)).toBe(true);
  const lines = r.stderr.slice(0, -1).split('\n');
  expect(lines, r.stderr).toHaveLength(1);
  const prefix = `zuno: ${code}: `;
  expect(lines[0]!.startsWith(prefix), r.stderr).toBe(true);
  const message = lines[0]!.slice(prefix.length);
  expect(message.trim()).not.toBe('');
  return message;
}

/** Row counts of the SQLite projection in `<home>/zuno.db`, or null when the file does not exist. */
export function projectionCounts(home: string): Record<'sessions' | 'inputs' | 'events' | 'tool_calls', number> | null {
  const file = join(home, 'zuno.db');
  if (!existsSync(file)) return null;
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const count = (table: string) => (db.prepare(`SELECT COUNT(*) AS n FROM "${table}"`).get() as { n: number }).n;
    return {
      sessions: count('sessions'),
      inputs: count('inputs'),
      events: count('events'),
      tool_calls: count('tool_calls'),
    };
  } finally {
    db.close();
  }
}

/** Asserts that a failed run left no session data: either no projection at all, or an empty one. */
export function expectNothingWritten(home: string): void {
  const counts = projectionCounts(home);
  if (counts !== null) expect(counts).toEqual({ sessions: 0, inputs: 0, events: 0, tool_calls: 0 });
}

/**
 * A Temporal client on the global setup's dev server for the test file
 * (connected before its tests, closed after): `address` and `client` are
 * filled in by `beforeAll`.
 */
export function useTestTemporal(): { address: string; client: Client } {
  const t = { address: '', client: undefined as unknown as Client };
  let connection: Connection | undefined;
  beforeAll(async () => {
    t.address = inject('temporalAddress');
    connection = await Connection.connect({ address: t.address });
    t.client = new Client({ connection });
  });
  afterAll(async () => {
    await connection?.close();
  });
  return t;
}

/** Lines reading `word` in `<ws>/<file>` (0 when the file is missing): how often a marker command ran to its end. */
export function markerLines(ws: string, file = 'marker.txt', word = 'ran'): number {
  const f = join(ws, file);
  return existsSync(f)
    ? readFileSync(f, 'utf8')
        .split('\n')
        .filter((l) => l === word).length
    : 0;
}

/** The goal id a `zuno goal start` printed on stderr. @throws when it printed none. */
export function goalOf(r: ZunoResult): string {
  const m = /(goal_[0-9a-z]+)/.exec(r.stderr);
  if (!m) throw new Error(`no goal id in: ${r.stderr}`);
  return m[1]!;
}
