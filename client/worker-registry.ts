import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pidAlive } from '../worker/dev-server.js';

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

const file = (stateDir: string) => join(stateDir, 'worker.json');

/** Records this process as the standalone worker of the state dir. */
export function registerWorker(stateDir: string, rec: WorkerRecord): void {
  writeFileSync(file(stateDir), `${JSON.stringify(rec, null, 2)}\n`);
}

/** Removes the record if it is this process's. */
export function unregisterWorker(stateDir: string): void {
  const rec = readWorker(stateDir);
  if (rec?.pid === process.pid) rmSync(file(stateDir), { force: true });
}

/** The record, or null when absent or corrupt. */
export function readWorker(stateDir: string): WorkerRecord | null {
  try {
    return JSON.parse(readFileSync(file(stateDir), 'utf8')) as WorkerRecord;
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
  const rec = readWorker(stateDir);
  return (
    rec !== null &&
    rec.address === address &&
    rec.namespace === namespace &&
    rec.taskQueue === taskQueue &&
    rec.host === host &&
    pidAlive(rec.pid)
  );
}
