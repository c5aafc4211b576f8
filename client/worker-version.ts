/**
 * The worker's build as a Worker Deployment Version (issue 33 item 4,
 * docs/versioning.md), for the worker's record and log and for `zuno worker
 * status`: the standing it settled at start and the standing the server
 * reports now.
 */
import type { RoutedWorker } from '../worker/worker.js';
import { standingLine } from '../worker/version-start.js';
import { readDeployment, rpcMessage } from '../worker/versioning.js';
import { updateWorker, type WorkerRecord } from './worker-registry.js';

/**
 * Records the worker's build id and deployment in its `worker.json` entry at
 * once, then, when its build's standing has settled (promoted, current, or
 * idle because another build is current), records that too and logs it in
 * plain words. Resolves when done; never rejects.
 */
export async function recordVersion(
  worker: RoutedWorker,
  stateDir: string,
  host: string,
  notify: (line: string) => void,
): Promise<void> {
  if (!worker.version) return;
  updateWorker(stateDir, host, { buildId: worker.version.buildId, deploymentName: worker.version.deploymentName });
  const status = await worker.settled();
  if (!status) return;
  updateWorker(stateDir, host, { versionStanding: status.standing });
  notify(`zuno worker: ${standingLine(status, host)}`);
}

/** What the server says now about a worker's build: `current` null when it could not be asked (`error` says why). */
export interface LiveStanding {
  current: boolean | null;
  /** The deployment's current build (null: unversioned, or unknown). */
  currentBuildId: string | null;
  error?: string;
}

/** How long `zuno worker status` waits for the server, in ms. */
const STATUS_CONNECT_MS = 3_000;

/**
 * Asks the worker's Temporal server whether the worker's build is its
 * deployment's current version. Never throws: an unreachable server, or a
 * record without a build (a worker from before versioning), gives `current: null`.
 */
export async function liveStanding(rec: WorkerRecord): Promise<LiveStanding> {
  if (!rec.buildId || !rec.deploymentName) {
    return {
      current: null,
      currentBuildId: null,
      error: 'the worker recorded no build id (started before versioning)',
    };
  }
  try {
    const { connectClient } = await import('../worker/connection.js');
    const { connection } = await connectClient({
      address: rec.address,
      namespace: rec.namespace,
      connectTimeoutMs: STATUS_CONNECT_MS,
    });
    try {
      const state = await readDeployment(connection, rec.namespace, rec.deploymentName);
      const currentBuildId = state?.currentBuildId ?? null;
      return { current: currentBuildId === rec.buildId, currentBuildId };
    } finally {
      await connection.close();
    }
  } catch (err) {
    return { current: null, currentBuildId: null, error: rpcMessage(err) };
  }
}

/** The status line of a worker's build, in plain words. */
export function versionStatusLine(rec: WorkerRecord, live: LiveStanding): string {
  if (!rec.buildId) return '  build: unknown (the worker recorded no build id)';
  const standing =
    live.current === null
      ? `current version: unknown (${live.error ?? 'no answer'})`
      : live.current
        ? 'the current version: workflow tasks run on this build'
        : `not the current version (${live.currentBuildId ? `build ${live.currentBuildId} is` : 'unversioned workers are'}): its workflow half is idle — upgrade this host to the current build (or, to go back to this one, zuno worker promote)`;
  return `  build ${rec.buildId} of deployment ${rec.deploymentName ?? '?'}: ${standing}`;
}
