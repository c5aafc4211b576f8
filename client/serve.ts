import type { SessionRoute } from '../core/session/meta.js';
import type { ProjectionStore } from '../activities/projection/index.js';
import type { TemporalContext, ZunoPaths } from './context.js';
import { hostId } from './routing.js';
import { standaloneWorkerRunning } from './worker-registry.js';

/** true when a live standalone `zuno worker` of this home serves this host's route on this Temporal target. */
export function standaloneServes(paths: ZunoPaths, temporal: TemporalContext, baseQueue: string): boolean {
  return standaloneWorkerRunning(paths.stateDir, temporal.address, temporal.namespace, baseQueue, hostId());
}

/**
 * Runs the in-process worker of one `zuno run` / `zuno session resume`:
 * workflow tasks from the shared queue `baseQueue`, activities only from the
 * session's own route (`route.taskQueue`, a `…/session/<id>` queue), so this
 * process never runs another session's calls and its exit never cuts one.
 * The worker identity names the command, pid and host (the Temporal history
 * shows it on every ActivityTaskStarted). Returns the stop function (graceful
 * shutdown, then close), which the caller runs on exit.
 * The worker modules (the Temporal worker SDK, the activities and their
 * dependencies) are loaded here, on first use: a command served by the host
 * worker service never loads them (issue 25 item 6: ~1–2 s of `zuno run`'s start).
 * @throws whatever Temporal's worker creation throws.
 */
export async function serveInProcess(opts: {
  paths: ZunoPaths;
  temporal: TemporalContext;
  store: ProjectionStore;
  baseQueue: string;
  route: SessionRoute;
  command: string;
}): Promise<() => Promise<void>> {
  const [{ installRuntime }, { createRoutedWorker }, { standingLine }] = await Promise.all([
    import('./runtime.js'),
    import('../worker/worker.js'),
    import('../worker/version-start.js'),
  ]);
  installRuntime('WARN', { modelFailuresReported: true, outagesReported: true });
  const worker = await createRoutedWorker({
    address: opts.temporal.address,
    namespace: opts.temporal.namespace,
    taskQueue: opts.baseQueue,
    activityTaskQueue: opts.route.taskQueue,
    store: opts.store,
    stateDir: opts.paths.stateDir,
    identity: `${opts.command} ${process.pid}@${opts.route.host}`,
    versioning: opts.temporal.cfg.workerVersioning && { connection: opts.temporal.connection },
  });
  const running = worker.run();
  // Only a build another build has replaced says anything: its workflow tasks run elsewhere (docs/versioning.md).
  void worker.settled().then((s) => {
    if (s && (s.standing === 'not_current' || s.standing === 'unknown'))
      process.stderr.write(`zuno: ${standingLine(s)}\n`);
  });
  return async () => {
    worker.shutdown();
    await running.catch(() => undefined);
    await worker.close();
  };
}
