import type { Connection } from '@temporalio/client';
import { ZunoError } from '../../core/errors.js';
import type { ResolvedDeployment } from './resolve.js';

/**
 * What a deployment records in its Temporal namespace (issue 33): the
 * identity of its one projection (no credentials), per task queue — the task
 * queue is what makes workers one deployment. Stored as namespace data under
 * {@link recordKey}, so every host reads the same truth from the server they
 * already share, before they open any database.
 */
export interface DeploymentRecord {
  /** The projection's identity (client/deployment/identity.ts projectionIdentity). */
  projection: string;
  /** The host whose worker recorded it. */
  recordedBy: string;
  /** When, epoch ms. */
  atMs: number;
  /** The deployment file's `name`, when it has one. */
  name?: string;
}

/** The namespace data key of a task queue's deployment record: `zuno.deployment.<taskQueue>`. */
export function recordKey(taskQueue: string): string {
  return `zuno.deployment.${taskQueue}`;
}

/**
 * The record of `taskQueue` in `namespace`, or null when none was made (or
 * it does not parse: it is then named in the error of a later record).
 * @throws whatever DescribeNamespace throws (unreachable server, no permission).
 */
export async function readDeploymentRecord(
  connection: Connection,
  namespace: string,
  taskQueue: string,
): Promise<DeploymentRecord | null> {
  const res = await connection.workflowService.describeNamespace({ namespace });
  const raw = res.namespaceInfo?.data?.[recordKey(taskQueue)];
  if (!raw) return null;
  try {
    const v = JSON.parse(raw) as Partial<DeploymentRecord>;
    return typeof v.projection === 'string'
      ? {
          projection: v.projection,
          recordedBy: String(v.recordedBy ?? '?'),
          atMs: Number(v.atMs ?? 0),
          ...(v.name ? { name: v.name } : {}),
        }
      : null;
  } catch {
    return null;
  }
}

/**
 * Checks this process's projection against the deployment's record: no
 * record (a deployment not yet recorded, or no deployment at all) passes;
 * a different projection refuses to go on. With a deployment file in force
 * a namespace that cannot be described is an error; without one it passes
 * (the single-machine default has nothing to check).
 * @returns the record, or null when there is none.
 * @throws ZunoError `projection_mismatch` naming both projections, `deployment_unrecorded`.
 */
export async function checkProjection(connection: Connection, d: ResolvedDeployment): Promise<DeploymentRecord | null> {
  let rec: DeploymentRecord | null;
  try {
    rec = await readDeploymentRecord(connection, d.namespace.value, d.taskQueue.value);
  } catch (err) {
    if (!d.file) return null;
    throw new ZunoError(
      'deployment_unrecorded',
      `cannot read the deployment record of namespace ${d.namespace.value}: ${(err as Error).message.split('\n')[0]}`,
    );
  }
  if (rec && rec.projection !== d.projection.id) throw projectionMismatch(d, rec);
  return rec;
}

/** The typed refusal naming the recorded projection and this process's, with where this one came from. */
export function projectionMismatch(d: ResolvedDeployment, rec: DeploymentRecord): ZunoError {
  const ours =
    d.projection.value === undefined ? 'no DATABASE_URL and no projection in a deployment file' : d.projection.source;
  return new ZunoError(
    'projection_mismatch',
    `the deployment on ${d.namespace.value} (task queue ${d.taskQueue.value}) records projection ${rec.projection} ` +
      `(recorded by host ${rec.recordedBy}), but this process would use ${d.projection.id} (${ours}): ` +
      `point this home at the deployment file (deployment.yaml with extends:) or set DATABASE_URL to that database; nothing was started`,
    { recorded: rec.projection, resolved: d.projection.id },
  );
}

/**
 * Records this deployment's projection in the namespace when a deployment
 * file is in force and nothing is recorded yet (the first worker of a
 * deployment does it); re-reads it afterwards so two first workers racing
 * with different projections cannot both go on.
 * @returns the record in force (null: no deployment file, nothing recorded).
 * @throws ZunoError `projection_mismatch`, `deployment_unrecorded` (the server refused UpdateNamespace).
 */
export async function recordDeployment(
  connection: Connection,
  d: ResolvedDeployment,
  existing: DeploymentRecord | null,
  nowMs: number,
): Promise<DeploymentRecord | null> {
  if (existing || !d.file) return existing;
  const rec: DeploymentRecord = {
    projection: d.projection.id,
    recordedBy: d.host.value,
    atMs: nowMs,
    ...(d.file.name ? { name: d.file.name.value } : {}),
  };
  try {
    await connection.workflowService.updateNamespace({
      namespace: d.namespace.value,
      updateInfo: { data: { [recordKey(d.taskQueue.value)]: JSON.stringify(rec) } },
    });
  } catch (err) {
    throw new ZunoError(
      'deployment_unrecorded',
      `cannot record the deployment's projection in namespace ${d.namespace.value} (UpdateNamespace: ${(err as Error).message.split('\n')[0]}); ` +
        `record it with: temporal operator namespace update -n ${d.namespace.value} --data '${recordKey(d.taskQueue.value)}=${JSON.stringify(rec)}'`,
    );
  }
  const now = await checkProjection(connection, d);
  return now ?? rec;
}
