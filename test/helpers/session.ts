/**
 * Boilerplate shared by the session tests: cleanups run after all tests, a
 * harness whose workers are separate `zuno worker` processes, a bounded wait
 * for a session's result, and a process probe.
 */
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, inject } from 'vitest';
import type { SessionResult } from '../../core/session/outcome.js';
import { createHarness, type Harness, type StartedRun } from './harness.js';
import { spawnWorker, type WorkerProcess, writeTestTemporalYaml } from './worker-process.js';

/**
 * A list of cleanups run after all tests of the file, latest first, each
 * failure ignored. Push a cleanup as soon as the resource it frees exists.
 */
export function useCleanups(): (() => Promise<unknown>)[] {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c().catch(() => undefined);
  });
  return cleanups;
}

/** A harness whose workers run as separate `zuno worker` processes. */
export interface ProcessHarness {
  h: Harness;
  /** ZUNO_HOME of the workers: `temporal.yaml` and the state (projection, bundle cache) the harness shares. */
  home: string;
  /** Every worker spawned so far, in order. */
  workers: WorkerProcess[];
  /** Spawns another `zuno worker` for this harness. */
  spawnWorker(): WorkerProcess;
}

/**
 * A harness on the test Temporal server whose workers the test spawns as
 * separate processes: a fresh home (`<prefix>-…` in the temp dir) holding a
 * `temporal.yaml` for the task queue `<prefix>-<now>` and the `.zuno` state
 * directory shared with those workers. Pushes onto `cleanups` the harness's
 * close and then the crash of every worker spawned (so the workers die first).
 * `address` replaces the shared server (a test that restarts its own).
 */
export async function createProcessHarness(
  prefix: string,
  cleanups: (() => Promise<unknown>)[],
  opts: { address?: string } = {},
): Promise<ProcessHarness> {
  const home = mkdtempSync(join(tmpdir(), `${prefix}-`));
  const taskQueue = `${prefix}-${Date.now()}`;
  const address = opts.address ?? inject('temporalAddress');
  writeTestTemporalYaml(home, address, taskQueue);
  const h = await createHarness({ address, withWorker: false, stateDir: home, taskQueue });
  cleanups.push(() => h.close());
  const workers: WorkerProcess[] = [];
  cleanups.push(async () => {
    for (const w of workers) await w.crash();
  });
  return {
    h,
    home,
    workers,
    spawnWorker() {
      const w = spawnWorker(home);
      workers.push(w);
      return w;
    },
  };
}

/**
 * The run's result, or a rejection after `ms` whose message carries what
 * `worker` (the one expected to finish the run) wrote to stderr.
 */
export function resultWithin(run: StartedRun, worker: WorkerProcess, ms: number): Promise<SessionResult> {
  return Promise.race([
    run.result(),
    new Promise<never>((_, rej) => setTimeout(() => rej(new Error(`no result:\n${worker.stderr()}`)), ms)),
  ]);
}

/** true while a process with this pid exists (signal 0 probes without sending; an unreaped zombie counts). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** true once a test command has written its whole pid line (`echo $$ > pid.txt`) into `<ws>/pid.txt`. */
export function pidWritten(ws: string): boolean {
  const path = join(ws, 'pid.txt');
  return existsSync(path) && readFileSync(path, 'utf8').endsWith('\n');
}
