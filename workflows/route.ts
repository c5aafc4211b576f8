import {
  ActivityFailure,
  type ActivityOptions,
  TimeoutFailure,
  getCurrentDetails,
  setCurrentDetails,
} from '@temporalio/workflow';
import type { SessionMeta } from '../core/session/meta.js';
import type { SessionState } from '../core/session/state.js';
import { statusLine } from './status-line.js';

/**
 * How long an activity of a routed session waits in its task queue before
 * the session says it waits for a worker of its host, in ms. Temporal's
 * schedule-to-start timeout detects it (the documented use: host-specific
 * task queues); nothing has started then, so scheduling again is safe for
 * every replay policy.
 */
export const WORKER_NOTICE_AFTER_MS = 10_000;

/** What {@link onRoute} needs from the session. */
export interface RouteHost {
  readonly meta: SessionMeta;
  /** Set while at least one activity waits for a worker of the route (the state query shows it). */
  waitingForWorker?: SessionState['waitingForWorker'];
}

/** The task-queue options of one scheduling. */
export type RouteOptions = Pick<ActivityOptions, 'taskQueue' | 'scheduleToStartTimeout'>;

const waiting = new WeakMap<RouteHost, number>();

/**
 * Schedules one activity of the session on its route (DESIGN.md §1: work
 * routed to the host that owns the workspace): `schedule(opts)` must start
 * the activity with `opts` merged into its options. A session without a
 * route (started before routing existed) schedules on the workflow's own
 * task queue, unchanged. When no worker of the route takes the task within
 * {@link WORKER_NOTICE_AFTER_MS}, the Temporal current details say so —
 * naming the host, the workspace and the task queue — and the activity is
 * scheduled once more, on the same route, with no schedule-to-start limit: it
 * waits as long as it takes, adding nothing to the history meanwhile (the
 * route of a session only changes by `resume`, when nothing is scheduled).
 * Deterministic.
 * @throws whatever the activity throws, except a schedule-to-start timeout.
 */
export async function onRoute<T>(host: RouteHost, schedule: (opts: RouteOptions) => Promise<T>): Promise<T> {
  if (!host.meta.route) return schedule({});
  let noticed = false;
  let line = '';
  try {
    const route = host.meta.route;
    try {
      return await schedule({ taskQueue: route.taskQueue, scheduleToStartTimeout: WORKER_NOTICE_AFTER_MS });
    } catch (err) {
      if (!noWorkerTookIt(err)) throw err;
    }
    noticed = true;
    waiting.set(host, (waiting.get(host) ?? 0) + 1);
    const sinceMs = host.waitingForWorker?.sinceMs ?? Date.now() - WORKER_NOTICE_AFTER_MS;
    host.waitingForWorker = { host: route.host, taskQueue: route.taskQueue, sinceMs };
    line = statusLine.waitingForWorker(route, host.meta.workspace, sinceMs);
    setCurrentDetails(line);
    return await schedule({ taskQueue: route.taskQueue });
  } finally {
    if (noticed) {
      const left = (waiting.get(host) ?? 1) - 1;
      waiting.set(host, left);
      if (left === 0) {
        host.waitingForWorker = undefined;
        if (getCurrentDetails() === line) setCurrentDetails('');
      }
    }
  }
}

/** true for the failure of an activity no worker picked up within its schedule-to-start timeout. */
function noWorkerTookIt(err: unknown): boolean {
  return (
    err instanceof ActivityFailure &&
    err.cause instanceof TimeoutFailure &&
    err.cause.timeoutType === 'SCHEDULE_TO_START'
  );
}
