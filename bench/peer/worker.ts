/**
 * The peer's worker process (bench/peer-bench.ts spawns it, as `zuno worker`
 * runs Zuno's): the peer workflow from a bundle built beforehand by the
 * bench (so webpack's memory is not counted here, as it is not in Zuno's
 * worker) and the peer's activities, on one task queue, until SIGTERM.
 *
 *   node --import tsx bench/peer/worker.ts <address> <taskQueue> <bundlePath>
 */
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { createPeerActivities } from './activities.js';

const [address, taskQueue, codePath] = process.argv.slice(2);
if (!address || !taskQueue || !codePath) throw new Error('usage: worker.ts <address> <taskQueue> <bundlePath>');
// As Zuno's worker does: no SDK signal handlers (SIGUSR2 is the bench's memory probe), warnings only.
Runtime.install({ shutdownSignals: [], logger: new DefaultLogger('WARN') });
const connection = await NativeConnection.connect({ address });
const worker = await Worker.create({
  connection,
  taskQueue,
  workflowBundle: { codePath },
  activities: createPeerActivities(),
});
process.once('SIGTERM', () => worker.shutdown());
await worker.run();
await connection.close();
