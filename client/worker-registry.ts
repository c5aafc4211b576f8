import { readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pidAlive } from '../worker/dev-server.js';
import { machineHostId } from './routing.js';

/** What a standalone `zuno worker` (or the host worker service) records in `<stateDir>/worker.json`. */
export interface WorkerRecord {
  pid: number;
  address: string;
  namespace: string;
  /** The shared workflow task queue it polls. */
  taskQueue: string;
  /** The host it serves and the activity task queue of that host (`<taskQueue>/host/<host>`); absent in records written before routing. */
  host?: string;
  activityTaskQueue?: string;
  startedAtMs: number;
  /** When it started polling (absent while it is still starting, and in records written before the service). */
  readyAtMs?: number;
  /** true for the host worker service a command started (detached, logging to `logPath`); absent for a `zuno worker` in a terminal. */
  service?: boolean;
  /** The Zuno version it runs. */
  version?: string;
  /** The build id of its workflow code (worker/build-id.ts) and the Worker Deployment it is a version of (issue 33). */
  buildId?: string;
  deploymentName?: string;
  /** Where its build stood when it started (worker/version-start.ts); `zuno worker status` asks the server for now. */
  versionStanding?: 'current' | 'promoted' | 'not_current' | 'unknown';
  /** The projection it writes (client/deployment/identity.ts projectionIdentity; never a password). */
  projection?: string;
  /** Where its log goes (the service's stdout and stderr). */
  logPath?: string;
  /** Provider key variables (`*_API_KEY`, `*_TOKEN`) set in its environment at start — names only, never values. */
  keyNames?: string[];
  /** Task queues of other processes' routes it serves because their process is gone (issue 25 item 3). */
  adoptedQueues?: string[];
  /** Distinct workflows whose activities it has run since it started. */
  sessionsServed?: number;
  /** The last warning or error it logged, one line, and when (ms). */
  lastError?: { atMs: number; line: string };
  /** When it last rewrote this record (every few seconds while it runs). */
  updatedAtMs?: number;
}

/** `worker.json` for this machine's own hostname identity, `worker.<host>.json` for any other `ZUNO_HOST_ID`. */
const file = (stateDir: string, host?: string) =>
  join(stateDir, host === undefined || host === machineHostId() ? 'worker.json' : `worker.${host}.json`);

/**
 * Records this process as the standalone worker of `rec.host` in the state
 * dir. Returns the record of another live worker that already served that
 * host from this home (both now take the host's work: the caller warns), else null.
 */
export function registerWorker(stateDir: string, rec: WorkerRecord): WorkerRecord | null {
  const other = readWorker(stateDir, rec.host);
  writeFileSync(file(stateDir, rec.host), `${JSON.stringify(rec, null, 2)}\n`);
  return other && other.pid !== process.pid && pidAlive(other.pid) ? other : null;
}

/** Rewrites this process's own record of `host` with `changes` (a no-op once another process took the record over). */
export function updateWorker(stateDir: string, host: string | undefined, changes: Partial<WorkerRecord>): void {
  const rec = readWorker(stateDir, host);
  if (rec?.pid !== process.pid) return;
  const path = file(stateDir, host);
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify({ ...rec, ...changes }, null, 2)}\n`);
  renameSync(tmp, path);
}

/**
 * Removes the record of `host` if it is this process's — or, when another
 * worker of the host (`before`, the one this process found at
 * registration) still runs, gives the record back to it, so commands keep
 * finding it (a foreground `zuno worker` that ends never hides the service).
 */
export function unregisterWorker(stateDir: string, host?: string, before?: WorkerRecord | null): void {
  const rec = readWorker(stateDir, host);
  if (rec?.pid !== process.pid) return;
  if (before && before.pid !== process.pid && pidAlive(before.pid))
    writeFileSync(file(stateDir, host), `${JSON.stringify(before, null, 2)}\n`);
  else rmSync(file(stateDir, host), { force: true });
}

/** The record of `host`'s worker (default: this machine's hostname identity), or null when absent or corrupt. */
export function readWorker(stateDir: string, host?: string): WorkerRecord | null {
  try {
    return JSON.parse(readFileSync(file(stateDir, host), 'utf8')) as WorkerRecord;
  } catch {
    return null;
  }
}

/** Every live worker recorded in this home, whatever host id it serves (`worker.json` and `worker.<host>.json`). */
export function liveWorkersOfHome(stateDir: string): WorkerRecord[] {
  let names: string[];
  try {
    names = readdirSync(stateDir).filter((n) => /^worker(\.[A-Za-z0-9._-]+)?\.json$/.test(n));
  } catch {
    return [];
  }
  const out: WorkerRecord[] = [];
  for (const n of names) {
    try {
      const rec = JSON.parse(readFileSync(join(stateDir, n), 'utf8')) as WorkerRecord;
      if (pidAlive(rec.pid)) out.push(rec);
    } catch {
      // a record being rewritten or corrupt: not a live worker for this purpose
    }
  }
  return out;
}

/** The Temporal target and host a worker serves. */
export interface WorkerTarget {
  address: string;
  namespace: string;
  taskQueue: string;
  host: string;
}

/** true when `rec` serves exactly `target` (address, namespace, task queue and host). */
export function servesTarget(rec: WorkerRecord, target: WorkerTarget): boolean {
  return (
    rec.address === target.address &&
    rec.namespace === target.namespace &&
    rec.taskQueue === target.taskQueue &&
    rec.host === target.host
  );
}

/** true when a live standalone worker serves this address/namespace/task queue and host. */
export function standaloneWorkerRunning(
  stateDir: string,
  address: string,
  namespace: string,
  taskQueue: string,
  host: string,
): boolean {
  const rec = readWorker(stateDir, host);
  return rec !== null && servesTarget(rec, { address, namespace, taskQueue, host }) && pidAlive(rec.pid);
}
