/**
 * What a versioned workflow worker does about its version when it starts
 * (issue 33 item 4, docs/versioning.md): a build the deployment has never
 * seen makes itself current (so a single host needs no operator step after
 * an upgrade); a build the deployment knows but does not route to stays idle
 * and says so (an old build restarted after a newer one was promoted never
 * takes the current version back).
 */
import type { Connection } from '@temporalio/client';
import type { WorkerDeploymentOptions } from '@temporalio/worker';
import { workflowBuildId } from './build-id.js';
import {
  type DeploymentState,
  deploymentOptions,
  promoteNewDeployment,
  readDeployment,
  rpcMessage,
  setCurrentVersion,
  type WorkflowVersion,
} from './versioning.js';

/**
 * Where this build stands in its deployment: `current` (it was already),
 * `promoted` (this start made it current), `not_current` (another build is
 * current: its workflow half gets no workflow tasks), `unknown` (the server
 * could not be asked or refused; `note` says why).
 */
export type VersionStanding = 'current' | 'promoted' | 'not_current' | 'unknown';

/** The settled standing of a worker's build, with the deployment's current build (null: unversioned or unknown). */
export interface VersionStatus extends WorkflowVersion {
  standing: VersionStanding;
  currentBuildId: string | null;
  /** How long the promotion took from the worker's start, ms (registration, then the routing change). */
  promotionMs?: number;
  note?: string;
}

/**
 * The deployment as it was before this worker polled (null: never seen), or
 * the error that kept it from being read. Read it before the worker starts:
 * a worker's own poll registers its version.
 */
export async function deploymentBefore(
  connection: Connection,
  namespace: string,
  deploymentName: string,
): Promise<DeploymentState | null | Error> {
  try {
    return await readDeployment(connection, namespace, deploymentName);
  } catch (err) {
    return new Error(rpcMessage(err));
  }
}

/**
 * Settles the standing of `version` once its worker polls, from the
 * deployment as it was `before` the worker started: current already →
 * `current` at once; known and not current → `not_current` at once (no
 * promotion); unknown → promoted with {@link setCurrentVersion} (a stale
 * conflict token → read again: `current` if another process of the same
 * build promoted it, else `not_current`). Never throws: a failure is
 * `unknown` with the reason in `note`.
 */
export async function settleVersion(opts: {
  connection: Connection;
  namespace: string;
  version: WorkflowVersion;
  before: DeploymentState | null | Error;
  identity: string;
  /** ms the promotion took when it was done before the worker polled ({@link PreparedVersioning.promoteIfNew}). */
  promotedEarlyMs?: number;
}): Promise<VersionStatus> {
  const { version, before } = opts;
  const status = (standing: VersionStanding, currentBuildId: string | null, more: Partial<VersionStatus> = {}) => ({
    ...version,
    standing,
    currentBuildId,
    ...more,
  });
  if (before instanceof Error) return status('unknown', null, { note: before.message });
  if (before?.currentBuildId === version.buildId) return status('current', version.buildId);
  if (before?.buildIds.includes(version.buildId)) return status('not_current', before.currentBuildId);
  if (opts.promotedEarlyMs !== undefined)
    return status('promoted', version.buildId, { promotionMs: opts.promotedEarlyMs });
  const t0 = Date.now();
  try {
    const set = await setCurrentVersion(opts.connection, opts.namespace, version, { identity: opts.identity });
    if (set.outcome !== 'conflict') return status('promoted', version.buildId, { promotionMs: Date.now() - t0 });
    const now = await readDeployment(opts.connection, opts.namespace, version.deploymentName);
    const current = now?.currentBuildId ?? null;
    return current === version.buildId
      ? status('current', current)
      : status('not_current', current, { note: 'the routing changed while this build promoted itself' });
  } catch (err) {
    return status('unknown', null, { note: rpcMessage(err) });
  }
}

/** One plain line about a settled standing, for a worker's log; `host` names whose activities it serves anyway. */
export function standingLine(s: VersionStatus, host?: string): string {
  const build = `build ${s.buildId} of deployment ${s.deploymentName}`;
  switch (s.standing) {
    case 'current':
      return `${build} is the current version: its workflow tasks run here`;
    case 'promoted':
      return `${build} was new to the server and is now the current version (in ${s.promotionMs ?? 0} ms): open workflows move to it at their next workflow task`;
    case 'not_current':
      return (
        `${build} is not the current version (${s.currentBuildId ? `build ${s.currentBuildId} is` : 'unversioned workers are'}${s.note ? `; ${s.note}` : ''}): ` +
        `this worker's workflow half stays idle — workflow tasks run on the current build's workers${host ? `; its activity half keeps serving host ${host}` : ''}. ` +
        'Mid-upgrade, upgrade this host to the current build; to go back to this build: zuno worker promote'
      );
    case 'unknown':
      return `${build}: could not settle its version with the server (${s.note ?? 'no answer'}); its workflow half may stay idle — zuno worker status`;
  }
}

/**
 * Versioning of a routed worker's workflow side (`createRoutedWorker`): the
 * client connection the deployment RPCs go through, and optionally the
 * version (defaults: the deployment is the workflow task queue, the build id
 * {@link workflowBuildId} of the bundled entry).
 */
export interface RoutedVersioning {
  connection: Connection;
  deploymentName?: string;
  buildId?: string;
}

/** A workflow side's versioning, prepared before its worker is created. */
export interface PreparedVersioning {
  version: WorkflowVersion | null;
  /** Spread into the workflow Worker's options. */
  workerOptions: { workerDeploymentOptions?: WorkerDeploymentOptions };
  /**
   * Makes the build current at once when the deployment did not exist before
   * (`promoteNewDeployment`); call it after the worker was created, before it runs.
   */
  promoteIfNew(): Promise<void>;
  /** Settles the standing once the worker polls (memoized; null when unversioned). */
  settle(): Promise<VersionStatus | null>;
}

/**
 * Prepares the versioning of a workflow side on `taskQueue`: resolves the
 * version and reads the deployment as it is before the worker polls. `false`
 * → unversioned (tests, the time-skipping server).
 */
export async function prepareVersioning(
  v: RoutedVersioning | false,
  ctx: { namespace: string; taskQueue: string; workflowsPath?: string; identity: string },
): Promise<PreparedVersioning> {
  if (v === false) {
    return {
      version: null,
      workerOptions: {},
      promoteIfNew: () => Promise.resolve(),
      settle: () => Promise.resolve(null),
    };
  }
  const version = {
    deploymentName: v.deploymentName ?? ctx.taskQueue,
    buildId: v.buildId ?? workflowBuildId(ctx.workflowsPath),
  };
  const before = await deploymentBefore(v.connection, ctx.namespace, version.deploymentName);
  let settling: Promise<VersionStatus> | undefined;
  let promotedEarlyMs: number | undefined;
  return {
    version,
    workerOptions: { workerDeploymentOptions: deploymentOptions(version) },
    promoteIfNew: async () => {
      if (before !== null) return;
      const t0 = Date.now();
      if (await promoteNewDeployment(v.connection, ctx.namespace, version, ctx.identity))
        promotedEarlyMs = Date.now() - t0;
    },
    settle: () =>
      (settling ??= settleVersion({
        connection: v.connection,
        namespace: ctx.namespace,
        version,
        before,
        identity: ctx.identity,
        ...(promotedEarlyMs !== undefined ? { promotedEarlyMs } : {}),
      })),
  };
}
