/**
 * Worker Deployment Versioning of Zuno's workflow workers (issue 33 item 4,
 * docs/versioning.md). Each build of the workflow code (worker/build-id.ts) is
 * a version of the deployment named after the shared task queue; workflows
 * default to AUTO_UPGRADE. Only the workflow side of a worker is versioned:
 * activity-only workers (a host's queue, adopted routes) stay unversioned.
 * The server calls are the raw WorkflowService RPCs: SDK 1.24 has no
 * high-level client for them.
 */
import type { Connection } from '@temporalio/client';
import type { WorkerDeploymentOptions } from '@temporalio/worker';

/** One deployment version: the deployment (default: the base task queue) and the build id. */
export interface WorkflowVersion {
  deploymentName: string;
  buildId: string;
}

/**
 * How workflows move between builds. AUTO_UPGRADE: a workflow's next workflow
 * task runs on whatever build is current. Sessions wait for their next input
 * indefinitely and Goals last hours, so PINNED would keep every old build's
 * workers alive until each of its workflows closed; and every command-sequence
 * change of Zuno is replay-compatible (patched() + checked-in history
 * fixtures), so moving to the new build at a workflow task boundary is safe.
 */
export const VERSIONING_BEHAVIOR = 'AUTO_UPGRADE' as const;

/** The SDK's `workerDeploymentOptions` of a workflow worker of `version`. */
export function deploymentOptions(version: WorkflowVersion): WorkerDeploymentOptions {
  return { version, useWorkerVersioning: true, defaultVersioningBehavior: VERSIONING_BEHAVIOR };
}

/** What the server says about a deployment: its versions' build ids, the current build (null: unversioned) and the conflict token. */
export interface DeploymentState {
  buildIds: string[];
  currentBuildId: string | null;
  conflictToken: Uint8Array | null;
}

/** A gRPC status code of a failed RPC (5 NOT_FOUND, 9 FAILED_PRECONDITION, …), or undefined. */
function grpcCode(err: unknown): number | undefined {
  const code = (err as { code?: unknown }).code;
  return typeof code === 'number' ? code : undefined;
}

/** The message of a failed RPC, without the gRPC prefix. */
export function rpcMessage(err: unknown): string {
  const e = err as { details?: unknown; message?: unknown };
  return typeof e.details === 'string' && e.details ? e.details : String(e.message ?? err);
}

/**
 * The deployment `deploymentName` as the server describes it; null when the
 * server knows no such deployment (no versioned worker ever polled for it).
 * @throws the RPC's error for anything else (unreachable, unsupported by the server).
 */
export async function readDeployment(
  connection: Connection,
  namespace: string,
  deploymentName: string,
): Promise<DeploymentState | null> {
  try {
    const res = await connection.workflowService.describeWorkerDeployment({ namespace, deploymentName });
    const info = res.workerDeploymentInfo;
    return {
      buildIds: (info?.versionSummaries ?? []).map((v) => v.deploymentVersion?.buildId ?? '').filter((b) => b !== ''),
      currentBuildId: info?.routingConfig?.currentDeploymentVersion?.buildId || null,
      conflictToken: res.conflictToken && res.conflictToken.length > 0 ? res.conflictToken : null,
    };
  } catch (err) {
    if (grpcCode(err) === 5) return null;
    throw err;
  }
}

/** How long a promotion waits for this build's pollers to register the version, in ms. */
export const REGISTRATION_WAIT_MS = 30_000;
/** How often it asks the server meanwhile, in ms. */
const REGISTRATION_POLL_MS = 50;

/** What {@link setCurrentVersion} did: set it (with the build that was current before, '' for unversioned), found it current already, or found the routing changed meanwhile (nothing set). */
export type SetCurrentOutcome =
  { outcome: 'set'; previousBuildId: string } | { outcome: 'already_current' | 'conflict' };

/**
 * Makes `version` the deployment's current version once its pollers have
 * registered it (the server refuses a version no worker polls): reads the
 * deployment every 50 ms until the version is listed (≤ `waitMs`, default
 * {@link REGISTRATION_WAIT_MS}), then sets it current with the conflict token
 * of that read, so a routing change made in between (another host's
 * promotion, an operator's) is never overwritten (`conflict`).
 * @throws Error `version … has not registered` when no poller of it showed
 *   up in time; the RPC's error for other failures.
 */
export async function setCurrentVersion(
  connection: Connection,
  namespace: string,
  version: WorkflowVersion,
  opts: { identity: string; waitMs?: number },
): Promise<SetCurrentOutcome> {
  const waitMs = opts.waitMs ?? REGISTRATION_WAIT_MS;
  const deadline = Date.now() + waitMs;
  for (;;) {
    const state = await readDeployment(connection, namespace, version.deploymentName);
    if (state?.currentBuildId === version.buildId) return { outcome: 'already_current' };
    if (state?.buildIds.includes(version.buildId)) {
      try {
        const res = await connection.workflowService.setWorkerDeploymentCurrentVersion({
          namespace,
          deploymentName: version.deploymentName,
          buildId: version.buildId,
          identity: opts.identity,
          ...(state.conflictToken ? { conflictToken: state.conflictToken } : {}),
        });
        return { outcome: 'set', previousBuildId: res.previousDeploymentVersion?.buildId ?? '' };
      } catch (err) {
        // FAILED_PRECONDITION / ABORTED: the conflict token is stale.
        if (grpcCode(err) === 9 || grpcCode(err) === 10) return { outcome: 'conflict' };
        throw err;
      }
    }
    if (Date.now() >= deadline) {
      throw new Error(
        `build ${version.buildId} of deployment ${version.deploymentName} has not registered with the server within ${Math.round(waitMs / 1000)} s: no worker of this build polls`,
      );
    }
    await new Promise((r) => setTimeout(r, REGISTRATION_POLL_MS));
  }
}

/**
 * Makes `version` current in a deployment the server has never seen, before
 * any worker of it polls (`allowNoPollers`): nothing else is routed there
 * yet, so nothing can be taken from another build, and the first workflow
 * tasks go straight to this build instead of waiting in the unversioned
 * backlog until a registration-then-promotion lands (~0.3–1 s on the dev
 * server). Call it only once this build's worker exists and is about to run.
 * Returns false when the server refused (the caller falls back to
 * {@link setCurrentVersion} once the worker polls).
 */
export async function promoteNewDeployment(
  connection: Connection,
  namespace: string,
  version: WorkflowVersion,
  identity: string,
): Promise<boolean> {
  try {
    await connection.workflowService.setWorkerDeploymentCurrentVersion({
      namespace,
      deploymentName: version.deploymentName,
      buildId: version.buildId,
      identity,
      allowNoPollers: true,
    });
    return true;
  } catch {
    return false;
  }
}
