import { type ChildProcess, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './dev-server.js';

/** A `zuno worker` running in its own process group, as an operator would run it. */
export interface WorkerProcess {
  child: ChildProcess;
  /** Everything it wrote to stderr so far. */
  stderr(): string;
  /** SIGKILL to the whole process group: the worker and any tool subprocess die at once (a crash). */
  crash(): Promise<void>;
  /** SIGTERM and wait for exit. */
  stop(): Promise<void>;
}

/**
 * Writes `<home>/temporal.yaml` pointing at `address` with `taskQueue` and
 * short tool heartbeats, so a dead worker's activity is retried within seconds.
 */
export function writeTestTemporalYaml(home: string, address: string, taskQueue: string): string {
  const path = join(home, 'temporal.yaml');
  writeFileSync(
    path,
    [
      'server:',
      '  mode: external',
      `  address: ${address}`,
      `taskQueue: ${taskQueue}`,
      'activities:',
      '  tool:',
      '    heartbeatTimeoutMs: 2000',
      '  safeRetry:',
      '    initialIntervalMs: 200',
      '',
    ].join('\n'),
  );
  return path;
}

/** Spawns `node bin/zuno.mjs worker` with ZUNO_HOME=home (state and temporal.yaml from there). */
export function spawnWorker(home: string, env: NodeJS.ProcessEnv = {}, args: string[] = []): WorkerProcess {
  const child = spawn(process.execPath, [join(ROOT, 'bin', 'zuno.mjs'), 'worker', ...args], {
    cwd: home,
    env: { ...process.env, ZUNO_HOME: home, TEMPORAL_ADDRESS: '', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
    detached: true,
  });
  let err = '';
  child.stderr!.on('data', (d) => {
    err += String(d);
  });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  return {
    child,
    stderr: () => err,
    async crash() {
      if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGKILL');
      await exited;
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/** Polls `check` every 50 ms until it returns a truthy value or `timeoutMs` passes. */
export async function waitFor<T>(check: () => Promise<T | undefined | null | false>, timeoutMs: number, what: string) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const v = await check();
    if (v) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}
