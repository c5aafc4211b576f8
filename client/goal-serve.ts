import type { SessionRoute } from '../core/session/meta.js';
import type { ProjectionStore, SessionRow } from '../activities/projection/index.js';
import type { TemporalContext, ZunoPaths } from './context.js';
import { hostId } from './routing.js';
import { liveLocalPoller } from './route-pollers.js';
import { serveInProcess, standaloneServes } from './serve.js';

/** The route a session's row recorded (its host and task queue), or null for a session from before routing. */
export function recordedRoute(row: SessionRow): SessionRoute | null {
  if (!row.host || !row.taskQueue) return null;
  return { host: row.host, taskQueue: row.taskQueue, servedBy: row.taskQueue.includes('/session/') ? 'run' : 'worker' };
}

/** Who serves a Goal's session for the length of one command. */
export interface GoalServing {
  /** The route the session's activities run on (null: unrouted). */
  route: SessionRoute | null;
  /** true when this process started a worker for it (stopped by {@link GoalServing.stop}). */
  servedHere: boolean;
  /** In plain words: who serves it (`this host's zuno worker`, `zuno goal start 123@host`, …). */
  by: string;
  stop(): Promise<void>;
}

/**
 * Makes sure someone runs a Goal's workflow and its session's recorded
 * route while one command (`goal pause`, `cancel`, `answer`, `budgets`,
 * `resume --choice keep-paused`) talks to it: a Goal's workflow tasks need
 * some Zuno worker, and what it records (`recordGoal`) runs on its
 * session's route. A route of this host's own `…/session/<id>` queue whose
 * driving command has ended (no live process of this host polls it) is
 * served by this process until {@link GoalServing.stop}; a route the
 * standalone `zuno worker` serves, or a live command serves, is left to it;
 * another host's route is not served here (a control then waits for that
 * host's worker, and says `no_worker` when none comes).
 */
export async function serveRecordedRoute(opts: {
  paths: ZunoPaths;
  temporal: TemporalContext;
  store: ProjectionStore;
  baseQueue: string;
  session: SessionRow;
  command: string;
}): Promise<GoalServing> {
  const route = recordedRoute(opts.session);
  const none = async () => undefined;
  if (!route) return { route, servedHere: false, by: 'the workers of the shared task queue', stop: none };
  if (route.servedBy === 'worker' || route.host !== hostId()) {
    const by = standaloneServes(opts.paths, opts.temporal, opts.baseQueue)
      ? "this host's `zuno worker`"
      : `the \`zuno worker\` of host ${route.host}`;
    return { route, servedHere: false, by, stop: none };
  }
  const live = await liveLocalPoller(opts.temporal, route.taskQueue);
  if (live) return { route, servedHere: false, by: live, stop: none };
  const stop = await serveInProcess({ ...opts, route });
  return { route, servedHere: true, by: 'this command', stop };
}
