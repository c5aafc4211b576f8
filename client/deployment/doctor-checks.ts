import type { ProjectionStore } from '../../activities/projection/index.js';
import { utcMinute } from '../utc-minute.js';
import { openProjectionStore } from '../../activities/projection/index.js';
import { ZunoError } from '../../core/errors.js';
import { pidAlive, portOpen, readDevServerState } from '../../worker/dev-server.js';
import type { ZunoPaths } from '../context.js';
import { readWorker, type WorkerRecord } from '../worker-registry.js';
import { liveStanding } from '../worker-version.js';
import { workflowBuildId } from '../../worker/build-id.js';
import { liveWorker } from '../host-service.js';
import { machineIdentity } from './identity.js';
import { readDeploymentRecord, type DeploymentRecord } from './record.js';
import type { ResolvedDeployment } from './resolve.js';

/** One line of `zuno doctor`'s checks: `ok`, `warn` (works, but worth knowing) or `fail` (this host is not right). */
export interface DoctorCheck {
  /** Machine name of the check (`--json`). */
  id: 'temporal' | 'deployment_record' | 'projection' | 'host_binding' | 'host_worker';
  status: 'ok' | 'warn' | 'fail';
  /** Plain words: what was found and, for warn/fail, what to do. */
  detail: string;
}

/**
 * Runs `zuno doctor`'s checks for a resolved deployment (issue 33), in order:
 * Temporal answers (the embedded dev server is never started here), the
 * namespace's deployment record against this process's projection, the
 * projection opens, the host id's binding against this machine and home, and
 * this home's host worker against the resolved target. A check that cannot run
 * because an earlier one failed says so. Never throws for what it checks.
 */
export async function doctorChecks(paths: ZunoPaths, d: ResolvedDeployment): Promise<DoctorCheck[]> {
  const checks: DoctorCheck[] = [];
  const temporal = await temporalCheck(paths, d);
  checks.push(temporal.check);
  const record = await recordCheck(temporal.connection, d);
  checks.push(record.check);
  await temporal.connection?.close();
  if (record.check.status === 'fail') {
    checks.push({
      id: 'projection',
      status: 'fail',
      detail: `not opened: ${d.projection.id} is not the deployment's projection`,
    });
    return [...checks, await workerCheck(paths, d, temporal.address)];
  }
  const store = await projectionCheck(paths, d, checks);
  if (store) {
    checks.push(await bindingCheck(store, paths, d));
    await store.close();
  }
  checks.push(await workerCheck(paths, d, temporal.address));
  return checks;
}

type Conn = import('@temporalio/client').Connection;

async function temporalCheck(
  paths: ZunoPaths,
  d: ResolvedDeployment,
): Promise<{ check: DoctorCheck; connection?: Conn; address?: string }> {
  let address = d.address?.value;
  if (!address) {
    const dev = readDevServerState(paths.stateDir);
    if (!dev || !pidAlive(dev.pid) || !(await portOpen(d.cfg.dev.ip, d.cfg.dev.port)))
      return {
        check: {
          id: 'temporal',
          status: 'ok',
          detail: `the embedded dev server of this home is not running; the next command starts it on ${d.cfg.dev.ip}:${d.cfg.dev.port}`,
        },
      };
    address = dev.address;
  }
  const { connectClient } = await import('../../worker/connection.js');
  try {
    const { connection } = await connectClient({
      address,
      namespace: d.namespace.value,
      connectTimeoutMs: d.cfg.server.connectTimeoutMs,
    });
    await connection.workflowService.describeNamespace({ namespace: d.namespace.value });
    return {
      check: { id: 'temporal', status: 'ok', detail: `${address} answers; namespace ${d.namespace.value} exists` },
      connection,
      address,
    };
  } catch (err) {
    return {
      check: {
        id: 'temporal',
        status: 'fail',
        detail: `${address} (namespace ${d.namespace.value}): ${firstLine(err)}`,
      },
      address,
    };
  }
}

async function recordCheck(connection: Conn | undefined, d: ResolvedDeployment): Promise<{ check: DoctorCheck }> {
  const id = 'deployment_record';
  if (!connection)
    return { check: { id, status: d.file ? 'warn' : 'ok', detail: 'not read: Temporal did not answer' } };
  let rec: DeploymentRecord | null;
  try {
    rec = await readDeploymentRecord(connection, d.namespace.value, d.taskQueue.value);
  } catch (err) {
    return {
      check: { id, status: 'fail', detail: `cannot describe namespace ${d.namespace.value}: ${firstLine(err)}` },
    };
  }
  if (!rec)
    return {
      check: {
        id,
        status: d.file ? 'warn' : 'ok',
        detail: d.file
          ? `nothing recorded for task queue ${d.taskQueue.value} yet: the first worker records ${d.projection.id}`
          : `no deployment recorded for task queue ${d.taskQueue.value} (single-machine use; nothing to check)`,
      },
    };
  const by = `recorded by host ${rec.recordedBy} on ${utcMinute(rec.atMs)}`;
  return rec.projection === d.projection.id
    ? {
        check: {
          id,
          status: 'ok',
          detail: `the deployment's projection is ${rec.projection} (${by}); this host uses the same`,
        },
      }
    : {
        check: {
          id,
          status: 'fail',
          detail: `the deployment's projection is ${rec.projection} (${by}), but this host would use ${d.projection.id} (${d.projection.value === undefined ? 'no DATABASE_URL, no projection in a deployment file' : d.projection.source}): point this home at the deployment file or set DATABASE_URL`,
        },
      };
}

async function projectionCheck(
  paths: ZunoPaths,
  d: ResolvedDeployment,
  checks: DoctorCheck[],
): Promise<ProjectionStore | null> {
  try {
    const store = await openProjectionStore({
      zunoDir: paths.stateDir,
      ...(d.projection.value ? { databaseUrl: d.projection.value } : {}),
    });
    const sessions = await store.listSessions({ limit: 1000 });
    checks.push({
      id: 'projection',
      status: 'ok',
      detail: `${d.projection.id} opens (${store.backend}, schema up to date, ${sessions.length}${sessions.length === 1000 ? '+' : ''} session${sessions.length === 1 ? '' : 's'})`,
    });
    return store;
  } catch (err) {
    checks.push({ id: 'projection', status: 'fail', detail: `${d.projection.id}: ${firstLine(err)}` });
    return null;
  }
}

async function bindingCheck(store: ProjectionStore, paths: ZunoPaths, d: ResolvedDeployment): Promise<DoctorCheck> {
  const me = machineIdentity(paths.home);
  const b = await store.getHostBinding(d.host.value);
  const id = 'host_binding';
  if (!b)
    return {
      id,
      status: 'ok',
      detail: `host ${d.host.value} is not bound yet; this home's worker binds it when it starts`,
    };
  if (b.machine === me.machine && b.home === me.home)
    return {
      id,
      status: 'ok',
      detail: `host ${d.host.value} is bound to this machine (${me.machineName}) and home since ${utcMinute(b.boundAtMs)}${b.takenOverFrom ? `, taken over from ${b.takenOverFrom}` : ''}`,
    };
  if (b.takenOverFrom === `${me.machineName}:${me.home}` && b.takenOverAtMs !== undefined)
    return {
      id,
      status: 'fail',
      detail: `host ${d.host.value} was taken over from this home by ${b.machineName} (home ${b.home}) on ${utcMinute(b.takenOverAtMs)}: this home no longer serves it — give it another host id, or take it back with zuno worker --take-over-host ${d.host.value}`,
    };
  return {
    id,
    status: 'fail',
    detail: `host ${d.host.value} is bound to ${b.machineName} (home ${b.home}, last seen ${utcMinute(b.lastSeenAtMs)}), not to this machine ${me.machineName} (home ${me.home}): use another host id, or zuno worker --take-over-host ${d.host.value} if the host moved here`,
  };
}

async function workerCheck(paths: ZunoPaths, d: ResolvedDeployment, address: string | undefined): Promise<DoctorCheck> {
  const id = 'host_worker';
  const rec = liveWorker(paths.stateDir, d.host.value);
  if (!rec) {
    const last = readWorker(paths.stateDir, d.host.value);
    return {
      id,
      status: 'ok',
      detail: `not running${last ? ` (pid ${last.pid} has stopped)` : ''}; the next command that needs it starts it (or: zuno worker start)`,
    };
  }
  const wrong: string[] = [];
  if (address !== undefined && rec.address !== address) wrong.push(`server ${rec.address}`);
  if (rec.namespace !== d.namespace.value) wrong.push(`namespace ${rec.namespace}`);
  if (rec.taskQueue !== d.taskQueue.value) wrong.push(`task queue ${rec.taskQueue}`);
  if (rec.projection !== undefined && rec.projection !== d.projection.id && rec.projection !== 'sqlite')
    wrong.push(`projection ${rec.projection}`);
  const what = `pid ${rec.pid}, Zuno ${rec.version ?? '?'}, since ${utcMinute(rec.startedAtMs)}`;
  if (wrong.length > 0)
    return {
      id,
      status: 'fail',
      detail: `running (${what}) but on ${wrong.join(', ')}: zuno worker stop, then run a command`,
    };
  const build = await buildWords(rec);
  return { id, status: build.warn ? 'warn' : 'ok', detail: `running (${what}) on the resolved target; ${build.text}` };
}

/**
 * The worker's build as a deployment version (docs/versioning.md): whether the
 * server routes workflow tasks to it now, and whether this installation is
 * another build (Zuno upgraded while the worker ran). `warn` for either.
 */
async function buildWords(rec: WorkerRecord): Promise<{ text: string; warn: boolean }> {
  if (!rec.buildId) return { text: 'unversioned workers (temporal.yaml workerVersioning: false)', warn: false };
  const live = await liveStanding(rec);
  const mine = workflowBuildId();
  const standing =
    live.current === true
      ? 'the current version'
      : live.current === false
        ? `not current (the deployment runs build ${live.currentBuildId ?? 'none'}): its workflow half is idle`
        : `standing unknown (${live.error ?? 'no answer'})`;
  const other =
    rec.buildId !== mine ? `; this installation is build ${mine}: zuno worker stop, then run a command` : '';
  return { text: `build ${rec.buildId}, ${standing}${other}`, warn: live.current === false || other !== '' };
}

function firstLine(err: unknown): string {
  const msg = err instanceof ZunoError ? `${err.code}: ${err.message}` : (err as Error).message;
  return msg.split('\n')[0]!.slice(0, 300);
}
