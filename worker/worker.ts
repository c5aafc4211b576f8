import { NativeConnection, Worker } from '@temporalio/worker';
import { createBgCommand } from '../activities/session/bg-command.js';
import { createFinishTurn } from '../activities/session/finish-turn.js';
import { createModelStep } from '../activities/session/model-step.js';
import { createToolActivities } from '../activities/session/tool-activity.js';
import type { ProjectionStore } from '../activities/projection/types.js';
import { toolImplementations, toolSpecs } from '../activities/tools/index.js';
import { INTERRUPT_DELIVERY_MS } from '../core/session-contract.js';
import { workflowBundlePath } from './workflow-bundle.js';

/** Options of {@link createZunoWorker}. */
/** Longest delay between a running activity's heartbeat and its delivery to the server, in ms (TD10). */
const HEARTBEAT_THROTTLE_MAX_MS = INTERRUPT_DELIVERY_MS;
/** How long a workflow task waits on this worker's sticky queue before any worker may take it, in ms. */
const STICKY_QUEUE_TIMEOUT_MS = 3_000;

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
    // A workflow task parked on a dead worker's sticky queue moves to the shared queue after this
    // (default 10 s): a killed worker delays its sessions' next decision by 3 s, not 10 s.
    stickyQueueScheduleToStartTimeout: STICKY_QUEUE_TIMEOUT_MS,
    activities: {
      modelStep: createModelStep({ store: opts.store, toolSpecs: toolSpecs() }),
      finishTurn: createFinishTurn(opts.store),
      bgCommand: createBgCommand(opts.store),
      ...createToolActivities(toolImplementations, opts.store),
    },
  });
  return { worker, close: () => connection.close() };
}
