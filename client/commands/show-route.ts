import type { SessionRow } from '../../activities/projection/index.js';
import type { Client, Connection } from '@temporalio/client';
import type { ZunoPaths } from '../context.js';
import type { TemporalConfig } from '../../worker/temporal-config.js';

/** A poller seen longer ago than this is taken for gone (a live worker long-polls at most ~60 s at a time), in ms. */
const POLLER_FRESH_MS = 75_000;
/** How long a quick look (session show, goal show) waits for Temporal before it leaves what it asked unknown, in ms. */
export const LOOKUP_TIMEOUT_MS = 1_000;

/** Who serves a session's route right now, as far as Temporal knows. */
export interface RouteStatus {
  host: string;
  taskQueue: string;
  /** Identities of the workers polling the route (`zuno run 123@host`, `zuno worker 456@host`); null when Temporal could not be asked. */
  workers: string[] | null;
  /** How long the session's oldest activity has waited for any worker to take it, in ms; 0 when none waits. */
  waitingMs: number;
  /** Set when what waits longest is a workflow task: no worker runs the session's workflow at all (this queue). */
  workflowQueue?: string;
}

/**
 * For a session that is not over (running, waiting for background work or
 * paused), asks Temporal which workers poll its route's activity task queue
 * — without starting anything: the configured server, or the dev server
 * this home started if it runs; at most {@link LOOKUP_TIMEOUT_MS}. Null for a
 * session without a route or one that is over.
 */
export async function routeStatus(paths: ZunoPaths, row: SessionRow): Promise<RouteStatus | null> {
  if (!row.host || !row.taskQueue) return null;
  if (!['running', 'waiting_background', 'paused'].includes(row.status)) return null;
  const base = { host: row.host, taskQueue: row.taskQueue, waitingMs: 0 };
  try {
    // Loaded only for a live session: showing a finished one never loads the Temporal client.
    const [{ default: proto }, target] = await Promise.all([import('@temporalio/proto'), lookupTarget(paths)]);
    const { temporal } = proto;
    if (!target) return { ...base, workers: null };
    const { cfg, namespace } = target;
    const { connection } = await target.connect();
    try {
      const res = await connection.withDeadline(Date.now() + LOOKUP_TIMEOUT_MS, () =>
        connection.workflowService.describeTaskQueue({
          namespace,
          taskQueue: { name: row.taskQueue!, kind: temporal.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
          taskQueueType: temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY,
        }),
      );
      const now = Date.now();
      const described = await connection.withDeadline(Date.now() + LOOKUP_TIMEOUT_MS, () =>
        connection.workflowService.describeWorkflowExecution({ namespace, execution: { workflowId: row.workflowId } }),
      );
      const scheduled = temporal.api.enums.v1.PendingActivityState.PENDING_ACTIVITY_STATE_SCHEDULED;
      const task = described.pendingWorkflowTask;
      const activityWaitMs = Math.max(
        0,
        ...(described.pendingActivities ?? [])
          .filter((a) => a.state === scheduled && a.scheduledTime?.seconds != null)
          .map((a) => now - Number(a.scheduledTime!.seconds) * 1000),
      );
      // A workflow task nobody took: no worker runs the session's workflow at all.
      const taskWaitMs =
        task && !task.startedTime && task.scheduledTime?.seconds != null
          ? now - Number(task.scheduledTime.seconds) * 1000
          : 0;
      const waitingMs = Math.max(activityWaitMs, taskWaitMs);
      const workflowQueue =
        taskWaitMs > activityWaitMs ? (described.executionConfig?.taskQueue?.name ?? cfg.taskQueue) : undefined;
      const workers = (res.pollers ?? [])
        .filter((p) => {
          const at = p.lastAccessTime?.seconds;
          return at !== undefined && at !== null && now - Number(at) * 1000 < POLLER_FRESH_MS;
        })
        .map((p) => p.identity ?? 'a worker');
      return { ...base, workers, waitingMs, ...(workflowQueue ? { workflowQueue } : {}) };
    } finally {
      await connection.close();
    }
  } catch (err) {
    // No such workflow (yet): a watched Goal's session before its watch reported — nothing serves it to show.
    if ((err as { code?: unknown }).code === GRPC_NOT_FOUND) return null;
    return { ...base, workers: null };
  }
}

/** gRPC status NOT_FOUND. */
const GRPC_NOT_FOUND = 5;

/** An activity not taken for this long means no worker serves the route (the workflow says so after 10 s too), in ms. */
const WAITING_NOTICE_MS = 10_000;

/** The human line of a route status: who serves it, or that nothing does and what to start. */
export function renderRouteStatus(r: RouteStatus, sessionId: string): string {
  const where = `host ${r.host}, task queue ${r.taskQueue}`;
  if (r.workers === null)
    return `tool calls run on ${where} (Temporal not reachable: whether a worker serves it is unknown)\n`;
  if (r.waitingMs < WAITING_NOTICE_MS && r.workers.length > 0)
    return `tool calls run on ${where}: served by ${r.workers.join(', ')}\n`;
  if (r.waitingMs < WAITING_NOTICE_MS) return `tool calls run on ${where}; no worker serves it now\n`;
  if (r.workflowQueue) {
    return `waiting for a worker: no worker has run the session's workflow for ${Math.round(r.waitingMs / 1000)} s (task queue ${r.workflowQueue}); start it with \`zuno worker start\` on ${r.host} (any Zuno worker runs workflows; its tool calls need one on ${r.host})\n`;
  }
  // Any kind of work (a session, a Goal's session, a Council seat, a delegated child) goes on once
  // the host's worker runs: it serves the host's route and adopts the route of a command that died.
  const start = `start the host worker on ${r.host} with \`zuno worker start\` (it serves this route too), then follow it with \`zuno session follow ${sessionId}\``;
  return `waiting for a worker: its next step has waited ${Math.round(r.waitingMs / 1000)} s on ${where}; ${start}\n`;
}

/**
 * The Temporal server a quick look (`session show`, `goal show`) asks,
 * starting nothing: TEMPORAL_ADDRESS, an external server of temporal.yaml,
 * or the dev server this home started when it runs; null when none is
 * known to run. `connect` fails within {@link LOOKUP_TIMEOUT_MS}.
 */
export async function lookupTarget(paths: ZunoPaths): Promise<{
  cfg: TemporalConfig;
  address: string;
  namespace: string;
  connect(): Promise<{ connection: Connection; client: Client }>;
} | null> {
  const [{ readDevServerState, pidAlive }, { connectClient }, { resolveDeployment }] = await Promise.all([
    import('../../worker/dev-server.js'),
    import('../../worker/connection.js'),
    import('../deployment/resolve.js'),
  ]);
  const { cfg, ...d } = resolveDeployment(paths);
  const dev = readDevServerState(paths.stateDir);
  const address = d.address?.value ?? (dev && pidAlive(dev.pid) ? dev.address : null);
  if (!address) return null;
  const namespace = d.namespace.value;
  return {
    cfg,
    address,
    namespace,
    connect: () => connectClient({ address, namespace, connectTimeoutMs: LOOKUP_TIMEOUT_MS }),
  };
}
