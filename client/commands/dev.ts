import { PACKAGE_ROOT, connectTemporal, resolvePaths } from '../context.js';
import { readDevServerState, pidAlive, stopDevServer } from '../../worker/dev-server.js';
import { processSink, type Sink } from '../render.js';

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

/** `zuno dev down`: stops the dev server this state dir started. */
export async function devDownCommand(sink: Sink = processSink): Promise<number> {
  const stopped = await stopDevServer(resolvePaths().stateDir);
  sink.out(stopped ? 'stopped the Temporal dev server\n' : 'no Temporal dev server was running\n');
  return 0;
}

/** `zuno dev status`: whether the dev server recorded in the state dir is alive. */
export function devStatusCommand(sink: Sink = processSink): number {
  const state = readDevServerState(resolvePaths().stateDir);
  if (state && pidAlive(state.pid)) {
    sink.out(`running pid ${state.pid} at ${state.address}, Web UI ${state.uiUrl}, db ${state.dbFile}\n`);
    return 0;
  }
  sink.out(`not running (state dir ${resolvePaths().stateDir}; installation ${PACKAGE_ROOT})\n`);
  return 1;
}
