import { sessionWorkflowId } from '../../core/ids.js';
import { ZunoError } from '../../core/errors.js';
import { resolvePaths } from '../context.js';
import { attachFollower } from '../follower.js';
import { hostWorkerGuard, workerMode } from '../serving.js';
import { pendingActivitiesOf } from '../live-progress.js';
import { processSink } from '../render.js';
import type { Sink } from '../sink.js';
import { recordedRoute } from '../goal-serve.js';
import { checkSessionId, sessionResultOf } from '../session-start.js';
import { openExistingStore } from '../session-target.js';
import { exitFor, followSession } from './run.js';

/**
 * `zuno session follow <id> [--json]`: re-attaches to a session — one whose
 * `zuno run` terminal went away, a Goal's session, a Council seat, a
 * delegated child — printing its stored events from the start and then live
 * until its turn ends, as `zuno run` would have. It sends nothing to the
 * session; Ctrl-C stops following and leaves the session running. When the
 * session is of this host, the host worker is started if it is not running
 * (a session waits for it otherwise). Exit code as `zuno run`'s: 0
 * completed, 1 failed/paused/blocked, 130 interrupted.
 * @throws ZunoError `usage_error` (malformed id), `session_not_found`, Temporal set-up errors.
 */
export async function sessionFollowCommand(id: string, opts: { json?: boolean }, sink: Sink = processSink) {
  checkSessionId(id);
  const paths = resolvePaths();
  const store = await openExistingStore(paths);
  const row = store ? await store.getSession(id) : null;
  if (!store || !row) {
    await store?.close();
    throw new ZunoError('session_not_found', `no session ${id} in Zuno's home ${paths.home}`);
  }
  const f = await attachFollower({
    paths,
    store,
    kind: 'session',
    id,
    session: row,
    workflowId: sessionWorkflowId(id),
    json: opts.json === true,
    sink,
  });
  try {
    const handle = f.temporal.client.workflow.getHandle(sessionWorkflowId(id));
    const result = await followSession(
      store,
      id,
      f.outage.retry(() => sessionResultOf(handle)),
      opts.json === true,
      sink,
      {
        after: 0,
        pendingActivities: pendingActivitiesOf(f.temporal.client, sessionWorkflowId(id)),
        // The host worker it relies on is started again if it dies while this command follows.
        ...(workerMode() === 'service'
          ? {
              watch: hostWorkerGuard({
                paths,
                temporal: f.temporal,
                baseQueue: f.temporal.cfg.taskQueue ?? 'zuno',
                notify: opts.json ? null : (l) => sink.err(`${l}\n`),
              }),
            }
          : {}),
      },
    );
    return exitFor(result, id, sink, recordedRoute(row)?.servedBy);
  } finally {
    await f.close();
    await store.close();
  }
}
