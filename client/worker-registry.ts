import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pidAlive } from '../worker/dev-server.js';
import { machineHostId } from './routing.js';

/** What a standalone `zuno worker` records in `<stateDir>/worker.json`. */
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

/** Removes the record of `host` if it is this process's. */
export function unregisterWorker(stateDir: string, host?: string): void {
  const rec = readWorker(stateDir, host);
  if (rec?.pid === process.pid) rmSync(file(stateDir, host), { force: true });
}

/** The record of `host`'s worker (default: this machine's hostname identity), or null when absent or corrupt. */
export function readWorker(stateDir: string, host?: string): WorkerRecord | null {
  try {
    return JSON.parse(readFileSync(file(stateDir, host), 'utf8')) as WorkerRecord;
  } catch {
    return null;
  }
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
  return (
    rec !== null &&
    rec.address === address &&
    rec.namespace === namespace &&
    rec.taskQueue === taskQueue &&
    rec.host === host &&
    pidAlive(rec.pid)
  );
}
