/**
 * Runs the real `zuno` CLI (bin/zuno.mjs) for the eval: one process group per
 * command, a given ZUNO_HOME and environment, killed whole on timeout.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from './paths.js';
import type { CommandResult } from './types.js';

/** Process groups of the `zuno` commands running now (for {@link killRunning}). */
const running = new Set<number>();

/** Set once the eval is stopping: no new `zuno` command starts (one would start the home's dev server again). */
let stopping = false;

/**
 * Stops the eval's commands for good (Ctrl-C, a closed stdout, a setup
 * error): no new `zuno` command starts from now on, and every running one's
 * process group is killed.
 */
export function stopAll(): void {
  stopping = true;
  for (const pid of running) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

/** Whether {@link stopAll} ran (what finishes after it is not a verdict to print). */
export function isStopping(): boolean {
  return stopping;
}

/** Where and how `zuno` runs: its home and the environment overrides (`undefined` removes a variable). */
export interface ZunoEnv {
  home: string;
  env: Record<string, string | undefined>;
}

/**
 * Spawns `node bin/zuno.mjs ...args` with `process.env` plus ZUNO_HOME and
 * `z.env`, stdin closed, stdout/stderr collected; resolves at exit. After
 * `timeoutMs` the whole process group is killed and `timedOut` is true.
 * Once {@link stopAll} ran, it starts nothing (code null) unless
 * `o.evenWhenStopping` (the home's own stop commands).
 */
export function zuno(
  args: string[],
  z: ZunoEnv,
  timeoutMs: number,
  o: { evenWhenStopping?: boolean } = {},
): Promise<CommandResult> {
  if (stopping && !o.evenWhenStopping)
    return Promise.resolve({ code: null, stdout: '', stderr: 'zuno eval: stopping', wallMs: 0, timedOut: false });
  const env: NodeJS.ProcessEnv = { ...process.env, ZUNO_HOME: z.home };
  for (const [k, v] of Object.entries(z.env)) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  const started = Date.now();
  const child = spawn(process.execPath, [join(ROOT, 'bin', 'zuno.mjs'), ...args], {
    cwd: z.home,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  if (child.pid !== undefined) running.add(child.pid);
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
  }, timeoutMs);
  return new Promise((resolve, reject) => {
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      if (child.pid !== undefined) running.delete(child.pid);
      resolve({ code, stdout, stderr, wallMs: Date.now() - started, timedOut });
    });
  });
}

/**
 * Runs a `zuno … --json` read command (session show, goal show, council show)
 * and parses its stdout. @throws naming the command and its stderr when it
 * fails or prints no JSON.
 */
export async function zunoJson<T>(args: string[], z: ZunoEnv): Promise<T> {
  const r = await zuno([...args, '--json'], z, 60_000);
  if (r.code !== 0) throw new Error(`zuno ${args.join(' ')} exited ${r.code}: ${r.stderr.trim()}`);
  try {
    return JSON.parse(r.stdout) as T;
  } catch {
    throw new Error(`zuno ${args.join(' ')} printed no JSON: ${r.stdout.slice(0, 200)}`);
  }
}
