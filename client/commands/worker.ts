import { DEFAULT_TASK_QUEUE } from '../../core/session-contract.js';
import { createZunoWorker } from '../../worker/worker.js';
import { connectTemporal, openStore, resolvePaths } from '../context.js';
import { installRuntime } from '../runtime.js';
import { registerWorker, unregisterWorker } from '../worker-registry.js';

/**
 * `zuno worker`: a standalone worker for the configured Temporal target and
 * task queue. Records itself in `.zuno/worker.json` so `zuno run` does not
 * start a second one, and shuts down gracefully on SIGINT/SIGTERM.
 */
export async function workerCommand(): Promise<number> {
  const paths = resolvePaths();
  const notify = (line: string) => process.stderr.write(`${line}\n`);
  const store = await openStore(paths);
  const temporal = await connectTemporal(paths, notify);
  await temporal.connection.close();
  installRuntime('WARN');
  const taskQueue = temporal.cfg.taskQueue ?? DEFAULT_TASK_QUEUE;
  const { worker, close } = await createZunoWorker({
    address: temporal.address,
    namespace: temporal.namespace,
    taskQueue,
    store,
    stateDir: paths.stateDir,
  });
  registerWorker(paths.stateDir, {
    pid: process.pid,
    address: temporal.address,
    namespace: temporal.namespace,
    taskQueue,
    startedAtMs: Date.now(),
  });
  notify(`zuno worker ${process.pid} polling task queue ${taskQueue} on ${temporal.address} (${temporal.namespace})`);
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
    unregisterWorker(paths.stateDir);
    await close();
    await store.close();
  }
  return 0;
}
