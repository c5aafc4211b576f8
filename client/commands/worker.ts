import { DEFAULT_TASK_QUEUE } from '../../core/session-contract.js';
import { createRoutedWorker } from '../../worker/worker.js';
import { hostId, hostTaskQueue } from '../routing.js';
import { connectTemporal, openStore, resolvePaths } from '../context.js';
import { installRuntime } from '../runtime.js';
import { registerWorker, unregisterWorker } from '../worker-registry.js';

/**
 * `zuno worker`: the standalone worker of this host (DESIGN.md §1). It runs
 * session workflow tasks from the shared task queue (temporal.yaml
 * `taskQueue`, default `zuno`) and the activities of every session whose
 * workspace is on this host (`<taskQueue>/host/<host>`; host = ZUNO_HOST_ID
 * or the hostname). Run one per host. It records itself in
 * `$ZUNO_HOME/worker.json`, so a `zuno run` on this host routes its session
 * here instead of starting its own worker; shuts down gracefully on SIGINT/SIGTERM.
 */
export async function workerCommand(): Promise<number> {
  const paths = resolvePaths();
  const notify = (line: string) => process.stderr.write(`${line}\n`);
  const store = await openStore(paths);
  const temporal = await connectTemporal(paths, notify);
  await temporal.connection.close();
  installRuntime('WARN');
  const taskQueue = temporal.cfg.taskQueue ?? DEFAULT_TASK_QUEUE;
  const host = hostId();
  const activityTaskQueue = hostTaskQueue(taskQueue, host);
  const other = registerWorker(paths.stateDir, {
    pid: process.pid,
    address: temporal.address,
    namespace: temporal.namespace,
    taskQueue,
    host,
    activityTaskQueue,
    startedAtMs: Date.now(),
  });
  let worker: Awaited<ReturnType<typeof createRoutedWorker>>;
  try {
    worker = await createRoutedWorker({
      address: temporal.address,
      namespace: temporal.namespace,
      taskQueue,
      activityTaskQueue,
      unroutedActivities: true,
      store,
      stateDir: paths.stateDir,
      identity: `zuno worker ${process.pid}@${host}`,
    });
  } catch (err) {
    unregisterWorker(paths.stateDir, host);
    await store.close();
    throw err;
  }
  if (other) {
    notify(
      `zuno worker: another worker (pid ${other.pid}) already serves host ${host} from this home; both will take this host's work, each with its own environment (API keys) — stop one unless you meant to run two`,
    );
  }
  notify(
    `zuno worker ${process.pid} polling task queue ${taskQueue} (session workflows) and ${activityTaskQueue} (the work of sessions on host ${host}) on ${temporal.address} (${temporal.namespace})`,
  );
  // The runtime leaves signals to us: the first SIGINT/SIGTERM shuts down
  // gracefully (running activities finish or are cancelled), a second one exits.
  const stop = () => {
    notify('zuno worker: shutting down (signal again to exit at once)');
    worker.shutdown();
    process.once('SIGINT', () => process.exit(130));
    process.once('SIGTERM', () => process.exit(143));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    await worker.run();
  } finally {
    unregisterWorker(paths.stateDir, host);
    await worker.close();
    await store.close();
  }
  return 0;
}
