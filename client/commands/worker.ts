import { createRoutedWorker } from '../../worker/worker.js';
import { hostTaskQueue } from '../routing.js';
import { connectTemporal, openStore, resolvePaths, type TemporalContext } from '../context.js';
import type { ProjectionStore } from '../../activities/projection/index.js';
import { installRuntime } from '../runtime.js';
import { registerWorker, unregisterWorker, updateWorker, type WorkerRecord } from '../worker-registry.js';
import { serviceLogPath } from '../host-service.js';
import { recordDeployment } from '../deployment/record.js';
import { claimHost, claimNotice, renewHostBinding } from '../deployment/host-claim.js';
import { ADOPT_EVERY_MS, RouteAdoption } from '../route-adoption.js';
import { timestampStderr } from '../log-timestamps.js';
import { pruneScripts } from '../../worker/scripted-models.js';
import { zunoVersion } from '../version.js';
import { recordVersion } from '../worker-version.js';

/** How often a running worker rewrites its record (status, sessions served, last error), in ms. */
const RECORD_EVERY_MS = 5_000;

/** Options of `zuno worker run`. */
export interface WorkerRunOptions {
  /** Run as the host worker service a command started (detached, logging to the home's `worker.log`). */
  service?: boolean;
  /** `--take-over-host <id>`: move this host id's binding to this machine and home (issue 33). */
  takeOverHost?: string;
}

/**
 * `zuno worker run` (also plain `zuno worker`): this host's worker
 * (DESIGN.md §1) in the foreground; with `--service`, the host worker
 * service a command starts detached (`client/host-service.ts`). It runs
 * workflow tasks from the shared task queue (temporal.yaml `taskQueue`,
 * default `zuno`) and the activities of every session whose workspace is on
 * this host (`<taskQueue>/host/<host>`; host = ZUNO_HOST_ID or the
 * hostname), plus the routes of commands that died (`route-adoption.ts`).
 * It records itself in `$ZUNO_HOME/worker.json` — readiness, version,
 * projection, key names, sessions served, last warning — so commands use it
 * instead of starting another; shuts down gracefully on SIGINT/SIGTERM.
 * Resolves to the exit code.
 */
export async function workerCommand(opts: WorkerRunOptions = {}): Promise<number> {
  if (opts.service) timestampStderr();
  const paths = resolvePaths();
  const notify = (line: string) => process.stderr.write(`${line}\n`);
  const temporal = await connectTemporal(paths, notify);
  const { store, host } = await joinDeployment(paths, temporal, opts, notify);
  const problems = workerProblems();
  const taskQueue = temporal.baseQueue;
  const activityTaskQueue = hostTaskQueue(taskQueue, host);
  const other = registerWorker(paths.stateDir, ownRecord(paths, temporal, host, opts));
  const served = new Set<string>();
  const disconnect = async () => {
    await temporal.connection.close();
    await store.close();
  };
  let worker: RoutedWorker;
  try {
    worker = await createRoutedWorker({
      address: temporal.address,
      namespace: temporal.namespace,
      taskQueue,
      activityTaskQueue,
      unroutedActivities: true,
      versioning: temporal.cfg.workerVersioning && { connection: temporal.connection },
      store,
      stateDir: paths.stateDir,
      identity: `zuno worker ${process.pid}@${host}`,
      onActivity: (id) => served.add(id),
    });
  } catch (err) {
    unregisterWorker(paths.stateDir, host, other);
    await disconnect();
    throw err;
  }
  if (other) {
    notify(
      `zuno worker: another worker (pid ${other.pid}) already serves host ${host} from this home; both will take this host's work, each with its own environment (API keys) — stop one unless you meant to run two`,
    );
  }
  if (opts.service) {
    void pruneScripts(paths.stateDir, Date.now()).then((gone) => {
      if (gone.length > 0) notify(`zuno worker: removed ${gone.length} stored script(s) unused for 30 days`);
    });
  }
  const running = worker.run();
  void recordVersion(worker, paths.stateDir, host, notify);
  updateWorker(paths.stateDir, host, { readyAtMs: Date.now() });
  notify(
    `zuno worker ${process.pid} polling task queue ${taskQueue} (session workflows) and ${activityTaskQueue} (the work of sessions on host ${host}) on ${temporal.address} (${temporal.namespace})`,
  );
  const upkeep = startUpkeep({ paths, store, temporal, taskQueue, host, worker, served, problems, notify });
  const stopRenewing = renewHostBinding({
    store,
    home: paths.home,
    host,
    onLost: (line) => {
      notify(line);
      worker.shutdown();
    },
  });
  stopOnSignals(worker, notify);
  try {
    await running;
  } finally {
    stopRenewing();
    await upkeep.stop();
    unregisterWorker(paths.stateDir, host, other);
    await worker.close();
    await disconnect();
  }
  return 0;
}

/** What this worker records of itself in the home's worker registry when it starts. */
function ownRecord(
  paths: ReturnType<typeof resolvePaths>,
  temporal: TemporalContext,
  host: string,
  opts: WorkerRunOptions,
): WorkerRecord {
  return {
    pid: process.pid,
    address: temporal.address,
    namespace: temporal.namespace,
    taskQueue: temporal.baseQueue,
    host,
    activityTaskQueue: hostTaskQueue(temporal.baseQueue, host),
    startedAtMs: Date.now(),
    version: zunoVersion(),
    projection: temporal.deployment.projection.id,
    keyNames: Object.keys(process.env)
      .filter((k) => /_(API_KEY|TOKEN)$/.test(k) && process.env[k])
      .sort(),
    ...(opts.service ? { service: true, logPath: serviceLogPath(paths.stateDir) } : {}),
  };
}

/**
 * The worker's place in its deployment (issue 33), before it polls: records
 * the deployment's projection in the namespace when it is the first worker
 * of a deployment file, opens that projection, and claims its host id there.
 * A refusal closes what was opened and is rethrown (typed).
 * @throws ZunoError `projection_mismatch`, `deployment_unrecorded`, `host_claimed`, `input_invalid`.
 */
async function joinDeployment(
  paths: ReturnType<typeof resolvePaths>,
  temporal: TemporalContext,
  opts: WorkerRunOptions,
  notify: (line: string) => void,
): Promise<{ store: ProjectionStore; host: string }> {
  const d = temporal.deployment;
  let store: ProjectionStore | undefined;
  try {
    const rec = await recordDeployment(temporal.connection, d, temporal.recorded, Date.now());
    if (rec && !temporal.recorded)
      notify(
        `zuno worker: recorded projection ${rec.projection} for task queue ${d.taskQueue.value} in namespace ${d.namespace.value}`,
      );
    store = await openStore(paths);
    const claim = await claimHost({
      store,
      home: paths.home,
      host: d.host.value,
      ...(opts.takeOverHost !== undefined ? { takeOver: opts.takeOverHost } : {}),
      nowMs: Date.now(),
    });
    const said = claimNotice(d.host.value, claim);
    if (said) notify(said);
    return { store, host: d.host.value };
  } catch (err) {
    await store?.close();
    await temporal.connection.close();
    throw err;
  }
}

type RoutedWorker = Awaited<ReturnType<typeof createRoutedWorker>>;

/**
 * A running worker's upkeep: routes of dead commands adopted every
 * {@link ADOPT_EVERY_MS}, its `worker.json` entry updated every
 * {@link RECORD_EVERY_MS} (sessions served, adopted queues, last problem).
 * `stop()` ends both and stops the adopted routes.
 */
function startUpkeep(u: {
  paths: ReturnType<typeof resolvePaths>;
  store: ProjectionStore;
  temporal: TemporalContext;
  taskQueue: string;
  host: string;
  worker: RoutedWorker;
  served: Set<string>;
  problems: { last?: { atMs: number; line: string } };
  notify: (line: string) => void;
}): { stop(): Promise<void> } {
  const adoption = new RouteAdoption({
    store: u.store,
    temporal: u.temporal,
    baseQueue: u.taskQueue,
    host: u.host,
    serveQueue: (q) => u.worker.serveQueue(q),
    log: u.notify,
  });
  const record = () =>
    updateWorker(u.paths.stateDir, u.host, {
      updatedAtMs: Date.now(),
      sessionsServed: u.served.size,
      adoptedQueues: adoption.queues(),
      ...(u.problems.last ? { lastError: u.problems.last } : {}),
    });
  const scan = () =>
    adoption.scan().catch((err: Error) => {
      u.notify(`zuno worker: looking for routes to serve: ${err.message}`);
    });
  let scanning: Promise<void> = scan();
  const adoptTimer = setInterval(() => {
    scanning = scanning.then(scan);
  }, ADOPT_EVERY_MS);
  const recordTimer = setInterval(record, RECORD_EVERY_MS);
  return {
    async stop() {
      clearInterval(adoptTimer);
      clearInterval(recordTimer);
      await scanning;
      await adoption.stopAll();
    },
  };
}

/**
 * The runtime leaves signals to us: the first SIGINT/SIGTERM shuts the
 * worker down gracefully (running activities finish or are cancelled), a
 * second one exits at once.
 */
function stopOnSignals(worker: RoutedWorker, notify: (line: string) => void): void {
  const stop = () => {
    notify('zuno worker: shutting down (signal again to exit at once)');
    worker.shutdown();
    process.once('SIGINT', () => process.exit(130));
    process.once('SIGTERM', () => process.exit(143));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

/**
 * The worker's last warning or error, kept for `zuno worker status` and the
 * notice of a command that finds the worker stopped (≤ 300 characters, cut at a
 * word). A failed activity belongs to its session (recorded there, typed), not
 * to the worker's health: it is not kept. Installs the runtime's logger.
 */
function workerProblems(): { last?: { atMs: number; line: string } } {
  const problems: { last?: { atMs: number; line: string } } = {};
  installRuntime('WARN', {
    onProblem: (line) => {
      if (/\bActivity failed\b/.test(line)) return;
      problems.last = {
        atMs: Date.now(),
        line: line.length > 300 ? `${line.slice(0, 300).replace(/\s+\S*$/, '')} …` : line,
      };
    },
  });
  return problems;
}
