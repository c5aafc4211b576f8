import { NativeConnection, Worker } from '@temporalio/worker';
import { createBgCommand } from '../activities/session/bg-command.js';
import { createFinishTurn } from '../activities/session/finish-turn.js';
import { createModelStep } from '../activities/session/model-step.js';
import { createToolActivities } from '../activities/session/tool-activity.js';
import type { ProjectionStore } from '../activities/projection/types.js';
import { toolImplementations, toolSpecs } from '../activities/tools/index.js';
import { workflowBundlePath } from './workflow-bundle.js';

/** Options of {@link createZunoWorker}. */
/** Longest delay between a running activity's heartbeat and its delivery to the server, in ms (TD10). */
const HEARTBEAT_THROTTLE_MAX_MS = 1_000;

export interface ZunoWorkerOptions {
  address: string;
  namespace: string;
  taskQueue: string;
  store: ProjectionStore;
  stateDir: string;
  /** Bound on concurrently running activities (default 16). */
  maxConcurrentActivities?: number;
}

/**
 * Creates a worker hosting the session workflow and every activity (model
 * step, tool activities, projection writes) on `taskQueue`. The caller runs
 * it (`worker.run()`) and shuts it down; the returned `close` closes the
 * worker's connection after the worker stopped.
 * @throws whatever Temporal's worker creation throws (e.g. an unreachable server).
 */
export async function createZunoWorker(opts: ZunoWorkerOptions): Promise<{ worker: Worker; close(): Promise<void> }> {
  const connection = await NativeConnection.connect({ address: opts.address });
  const codePath = await workflowBundlePath(opts.stateDir);
  const worker = await Worker.create({
    connection,
    namespace: opts.namespace,
    taskQueue: opts.taskQueue,
    workflowBundle: { codePath },
    maxConcurrentActivityTaskExecutions: opts.maxConcurrentActivities ?? 16,
    // TD10: a cancellation reaches a running activity only in a heartbeat response, so heartbeats
    // go out at least every second (default: 80 % of the heartbeat timeout) to keep the 2 s window.
    maxHeartbeatThrottleInterval: HEARTBEAT_THROTTLE_MAX_MS,
    activities: {
      modelStep: createModelStep({ store: opts.store, toolSpecs: toolSpecs() }),
      finishTurn: createFinishTurn(opts.store),
      bgCommand: createBgCommand(opts.store),
      ...createToolActivities(toolImplementations, opts.store),
    },
  });
  return { worker, close: () => connection.close() };
}
