import { createRecordGoal } from '../activities/goal/record-goal.js';
import { createStartGoalSession, createWatchProbe } from '../activities/goal/watch-probe.js';
import { createCouncilActivities } from '../activities/council/index.js';
import type { Context as ActivityContext } from '@temporalio/activity';
import { NativeConnection, Worker } from '@temporalio/worker';
import { createBgCommand } from '../activities/session/bg-command.js';
import { createBgObserver, type BgObserverActivities } from '../activities/session/bg-observer.js';
import { createFinishTurn } from '../activities/session/finish-turn.js';
import { createRecordQuestion } from '../activities/session/question-records.js';
import { createRecordApproval } from '../activities/session/approval-records.js';
import { createCompactSession } from '../activities/session/compaction/compact-session.js';
import { createModelStep } from '../activities/session/model-step.js';
import { createDelegationActivities } from '../activities/delegation/delegation-activities.js';
import { createToolActivities } from '../activities/session/tool-activity.js';
import type { ProjectionStore } from '../activities/projection/types.js';
import { toolImplementations, toolOfferSets } from '../activities/tools/index.js';
import { INTERRUPT_DELIVERY_MS } from '../core/session/interrupt.js';
import { workflowBundlePath } from './workflow-bundle.js';
import { boundHeapGrowth } from './heap.js';
import { serveProviderEndpoints } from './provider-endpoints.js';
import type { ScriptedModels } from './scripted-models.js';
import type { CouncilActivities } from '../core/council/contract.js';
import type { DelegationActivities } from '../core/delegation/contract.js';
import type { GoalActivities } from '../core/goal/activities.js';
import type { SessionActivities } from '../core/session/activities.js';
import type { ToolActivities } from '../core/session/tool-activity.js';
import { createMcpHub, type McpHub } from '../activities/mcp/index.js';
import { prepareVersioning, type RoutedVersioning, type VersionStatus } from './version-start.js';
import type { WorkflowVersion } from './versioning.js';

/** Options of {@link createZunoWorker}. */
/** Longest delay between a running activity's heartbeat and its delivery to the server, in ms (TD10). */
const HEARTBEAT_THROTTLE_MAX_MS = INTERRUPT_DELIVERY_MS;
/** How long a workflow task waits on this worker's sticky queue before any worker may take it, in ms. */
const STICKY_QUEUE_TIMEOUT_MS = 3_000;
/**
 * Workflows a worker keeps in its cache (issue 13 item 5). Measured by
 * bench/worker-memory.ts: an idle cached session holds ~0.3 MiB of RSS
 * (~1 MiB each for the first 100, which pay for the cache's own growth),
 * so 500 cached sessions stay near 250 MiB above an idle worker's ~290 MiB.
 * An evicted session costs a replay of its current run on its next input;
 * SDK default here would be thousands (a fraction of the V8 heap limit),
 * which lets a worker watching many long Goals grow past a gigabyte.
 */
export const WORKFLOW_CACHE_SIZE = 500;

/**
 * Activities a worker side runs at once, by default (issue 13). Model steps
 * take these slots beside tool calls, and they are I/O-bound: a worker
 * serving many sessions holds one model step per busy session. With 16, 50
 * sessions at once left most model steps waiting in the server, where a
 * backlogged activity task is persisted by the matching service and read
 * back (unrouted sessions also missed eager dispatch, which needs a free
 * slot) — server CPU per read call 3.2 ms at 16, 2.6 ms at 64; read calls/s
 * with 50 unrouted sessions 198 (188–208) at 16, 221 (212–233) at 64
 * (bench/peer-bench.ts, 3 rounds each). Background commands (`bgCommand`)
 * hold a slot while they run: up to 64 at once per side. A session's own
 * side-effecting foreground calls still run one at a time (TD5).
 */
export const ACTIVITY_SLOTS = 64;

export interface ZunoWorkerOptions {
  address: string;
  namespace: string;
  taskQueue: string;
  store: ProjectionStore;
  stateDir: string;
  /** Bound on concurrently running activities (default {@link ACTIVITY_SLOTS}). */
  maxConcurrentActivities?: number;
  /** Worker identity shown in the Temporal history (ActivityTaskStarted `identity`); default `<pid>@<hostname>`. */
  identity?: string;
  /**
   * Entry module of the workflow bundle (default `workflows/index.ts`): tests host fixture
   * workflows next to Zuno's with an entry that re-exports it (`worker/workflow-bundle.ts`).
   */
  workflowsPath?: string;
  /** Called with the workflow id of every activity this worker starts (the service counts the work it serves). */
  onActivity?: (workflowId: string) => void;
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
  const codePath = await workflowBundlePath(opts.stateDir, opts.workflowsPath);
  const observers = createBgObserver(opts.store);
  const scripted = serveProviderEndpoints(opts.stateDir);
  const mcp = createMcpHub({ stateDir: opts.stateDir });
  const worker = await Worker.create({
    ...workflowOptions(codePath),
    ...activityOptions(opts, { observers, mcp }, (q) => q === opts.taskQueue),
    connection,
    namespace: opts.namespace,
    taskQueue: opts.taskQueue,
    ...(opts.identity ? { identity: opts.identity } : {}),
  });
  return { worker, close: () => closeAfter({ observers, mcp }, scripted, connection) };
}

/** What runs a routed worker pair: `run()` resolves when both stopped; `shutdown()` stops both. */
export interface RoutedWorker {
  run(): Promise<void>;
  shutdown(): void;
  close(): Promise<void>;
  /**
   * Also runs the activities of `taskQueue` (a route whose serving process
   * is gone, adopted by the host worker service: `worker/route-adoption.ts`)
   * until the returned stop function is called or the worker shuts down.
   * @throws whatever Temporal's worker creation throws.
   */
  serveQueue(taskQueue: string): Promise<() => Promise<void>>;
  /** The deployment version of the workflow side; null when unversioned. */
  version: WorkflowVersion | null;
  /**
   * Where the build stands once the workflow side polls (worker/version-start.ts:
   * promoted when new to the server, idle when another known build is current);
   * settled after `run()` started; null when unversioned. Never rejects.
   */
  settled(): Promise<VersionStatus | null>;
}

/**
 * A worker for routed sessions (DESIGN.md §1): workflow tasks from the
 * shared workflow task queue `opts.taskQueue`, and every activity (model
 * steps, tool calls, background commands, projection writes) from
 * `activityTaskQueue` — the route of the sessions this process serves
 * (`<base>/host/<host>` for `zuno worker`, `<base>/host/<host>/session/<id>`
 * for the in-process worker of one `zuno run`). Two Temporal workers on one
 * connection. Bounds the process's V8 heap growth first (worker/heap.ts).
 * @throws whatever Temporal's worker creation throws (e.g. an unreachable server).
 */
export async function createRoutedWorker(
  opts: ZunoWorkerOptions & {
    activityTaskQueue: string;
    /**
     * Also run activities from the workflow task queue itself: those of
     * sessions started without a route (before routing existed, or by a
     * client that does not route). `zuno worker` does; a `zuno run` never does.
     */
    unroutedActivities?: boolean;
    /**
     * Worker Deployment Versioning of the workflow side (issue 33, docs/versioning.md): on
     * in every production path; `false` only for tests on their own queues and the
     * time-skipping server. The activity side is never versioned: a host's activities run
     * on that host whatever build runs the workflow.
     */
    versioning: RoutedVersioning | false;
  },
): Promise<RoutedWorker> {
  // A long-lived worker: its heaps stay near their live size (issue 13 item 5, worker/heap.ts).
  boundHeapGrowth();
  const connection = await NativeConnection.connect({ address: opts.address });
  const codePath = await workflowBundlePath(opts.stateDir, opts.workflowsPath);
  const observers = createBgObserver(opts.store);
  const scripted = serveProviderEndpoints(opts.stateDir);
  // One MCP hub per process: every session's MCP connections, whichever queue its activities come from.
  const shared = { observers, mcp: createMcpHub({ stateDir: opts.stateDir }) };
  const common = { connection, namespace: opts.namespace, ...(opts.identity ? { identity: opts.identity } : {}) };
  const versioning = await prepareVersioning(opts.versioning, {
    namespace: opts.namespace,
    taskQueue: opts.taskQueue,
    identity: opts.identity ?? `zuno worker ${process.pid}`,
    ...(opts.workflowsPath ? { workflowsPath: opts.workflowsPath } : {}),
  });
  /** Routes adopted by {@link RoutedWorker.serveQueue}, with their workers. */
  const adopted = new Map<string, Worker>();
  // Local activities (issue 13) run only for sessions whose activities this process runs anyway.
  const serves = (q: string) =>
    q === opts.activityTaskQueue || adopted.has(q) || (opts.unroutedActivities === true && q === opts.taskQueue);
  const workflows = await Worker.create({
    ...common,
    ...workflowOptions(codePath),
    ...versioning.workerOptions,
    ...activityOptions(opts, shared, serves),
    // Without unrouted activities the workflow side runs local activities only: it polls no activity tasks.
    enableNonLocalActivities: opts.unroutedActivities === true,
    taskQueue: opts.taskQueue,
  });
  const activities = await Worker.create({
    ...common,
    ...activityOptions(opts, shared, serves),
    taskQueue: opts.activityTaskQueue,
  });
  await versioning.promoteIfNew();
  const adoptedRuns = new Set<Promise<void>>();
  const shutdown = () => {
    for (const w of [workflows, activities, ...adopted.values()]) if (w.getState() === 'RUNNING') w.shutdown();
  };
  let polling: () => void = () => undefined;
  const started = new Promise<void>((resolve) => (polling = resolve));
  return {
    version: versioning.version,
    settled: () => started.then(() => versioning.settle()),
    // When either side stops (shutdown or a fatal error), the other is stopped too.
    run: async () => {
      const sides = [workflows.run().finally(shutdown), activities.run().finally(shutdown)];
      polling();
      const ends = await Promise.allSettled(sides);
      await Promise.allSettled([...adoptedRuns]);
      const failed = ends.find((e) => e.status === 'rejected');
      if (failed) throw failed.reason;
    },
    shutdown,
    close: () => closeAfter(shared, scripted, connection),
    serveQueue: async (taskQueue) => {
      const w = await Worker.create({ ...common, ...activityOptions(opts, shared, serves), taskQueue });
      adopted.set(taskQueue, w);
      const running = w
        .run()
        .catch(() => undefined)
        .finally(() => {
          adopted.delete(taskQueue);
          adoptedRuns.delete(running);
        });
      adoptedRuns.add(running);
      return async () => {
        if (w.getState() === 'RUNNING') w.shutdown();
        await running;
      };
    },
  };
}

/** The workflow side of a Zuno worker. */
function workflowOptions(codePath: string) {
  return {
    workflowBundle: { codePath },
    maxCachedWorkflows: WORKFLOW_CACHE_SIZE,
    // A workflow task parked on a dead worker's sticky queue moves to the shared queue after this
    // (default 10 s): a killed worker delays its sessions' next decision by 3 s, not 10 s.
    stickyQueueScheduleToStartTimeout: STICKY_QUEUE_TIMEOUT_MS,
  };
}

/**
 * Closes a stopped worker's connection, first stopping the remote observers
 * it started that still run, its MCP connections (stdio servers exit) and the local providers of its scripted models (in a process that outlives its worker, such as
 * a test runner, they would run on unobserved; a worker process that exits
 * takes them with it).
 */
async function closeAfter(
  shared: ActivityShared,
  scripted: ScriptedModels,
  connection: NativeConnection,
): Promise<void> {
  await shared.observers.stopAll();
  await shared.mcp.closeAll();
  await scripted.close();
  await connection.close();
}

/**
 * Every activity Zuno's workflows call, as they declare it for
 * `proxyActivities` / `proxyLocalActivities` (workflows/): the worker's map
 * must satisfy it, so an activity missing from the worker, or registered
 * with another input or result, is a compile error rather than a workflow
 * task failing at run time.
 */
type WorkflowActivities = SessionActivities &
  GoalActivities &
  CouncilActivities &
  DelegationActivities &
  ToolActivities;

/** What every activity map of one worker process shares: remote observers and the MCP hub (issue 30). */
interface ActivityShared {
  observers: BgObserverActivities;
  mcp: McpHub;
}

/**
 * The activity side of a Zuno worker: every session activity, bound to the
 * projection store. `serves` tells whether this process runs the activities
 * of a task queue (a local activity of a session routed elsewhere refuses).
 */
function activityOptions(
  opts: Pick<ZunoWorkerOptions, 'store' | 'maxConcurrentActivities' | 'onActivity'>,
  { observers, mcp }: ActivityShared,
  serves: (taskQueue: string) => boolean,
) {
  const onActivity = opts.onActivity;
  return {
    ...(onActivity
      ? {
          interceptors: {
            activity: [
              (ctx: ActivityContext) => {
                const id = ctx.info.workflowExecution?.workflowId;
                if (id) onActivity(id);
                return {};
              },
            ],
          },
        }
      : {}),
    maxConcurrentActivityTaskExecutions: opts.maxConcurrentActivities ?? ACTIVITY_SLOTS,
    // TD10: a cancellation reaches a running activity only in a heartbeat response, so heartbeats
    // go out at least every second (default: 80 % of the heartbeat timeout) to keep the 2 s window.
    maxHeartbeatThrottleInterval: HEARTBEAT_THROTTLE_MAX_MS,
    activities: {
      modelStep: createModelStep({
        store: opts.store,
        ...toolOfferSets(),
        mcp,
      }),
      compactSession: createCompactSession({ store: opts.store }),
      finishTurn: createFinishTurn(opts.store, serves),
      recordGoal: createRecordGoal(opts.store),
      watchProbe: createWatchProbe(),
      startGoalSession: createStartGoalSession(),
      recordApproval: createRecordApproval(opts.store),
      recordQuestion: createRecordQuestion(opts.store),
      bgCommand: createBgCommand(opts.store),
      ...createDelegationActivities(opts.store),
      ...observers.activities,
      ...createToolActivities(toolImplementations, opts.store, serves, mcp),
      ...createCouncilActivities(opts.store),
    } satisfies WorkflowActivities,
  };
}
