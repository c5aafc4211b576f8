import { connectTemporal, resolvePaths } from '../context.js';
import { pidAlive, readDevServerState, stopDevServer } from '../../worker/dev-server.js';
import { processSink } from '../render.js';
import type { Sink } from '../sink.js';
import { stopHostService } from '../host-service.js';
import { hostId } from '../routing.js';
import { readWorker } from '../worker-registry.js';

/** `zuno dev up`: starts (or reuses) the embedded dev server and prints its address and Web UI URL. */
export async function devUpCommand(sink: Sink = processSink): Promise<number> {
  const temporal = await connectTemporal(resolvePaths(), null);
  await temporal.connection.close();
  sink.out(
    temporal.devServer
      ? `Temporal dev server ${temporal.address} (${temporal.devServer.started ? 'started' : 'already running'})\nWeb UI ${temporal.devServer.uiUrl}\n`
      : `using configured Temporal server ${temporal.address}; no dev server needed\n`,
  );
  return 0;
}

/**
 * `zuno dev down`: stops the dev server this state dir started (under the
 * home's dev-server lock) — first the home's host worker when it serves that
 * server (it cannot work without it; the next command starts both again).
 */
export async function devDownCommand(sink: Sink = processSink): Promise<number> {
  const { stateDir } = resolvePaths();
  const dev = readDevServerState(stateDir);
  const worker = readWorker(stateDir, hostId());
  if (dev && worker && worker.address === dev.address && pidAlive(worker.pid)) {
    await stopHostService(stateDir, hostId());
    sink.err(`stopped the host worker (pid ${worker.pid}): it cannot work without the dev server\n`);
  }
  const stopped = await stopDevServer(stateDir);
  sink.out(stopped ? 'stopped the Temporal dev server\n' : 'no Temporal dev server was running\n');
  return 0;
}

export { devStatusCommand } from './dev-status.js';
