import { goalWorkflowId } from '../../core/goal/contract.js';
import { sessionWorkflowId } from '../../core/ids.js';
import type { ProjectionStore, SessionRow } from '../../activities/projection/index.js';

import type { ZunoPaths } from '../context.js';
import { attachFollower } from '../follower.js';
import { goalExit, goalFinalJsonLine } from '../goal-end.js';
import { FOLLOWED_GOAL_STATUSES, followGoal } from '../goal-follow.js';
import { pendingActivitiesOf } from '../live-progress.js';
import type { Sink } from '../sink.js';
import { sessionResultOf } from '../session-start.js';

/**
 * `zuno goal show <id> --follow` after the Goal's view was printed:
 * re-attaches to a Goal whose `goal start` terminal went away and follows
 * it — its session's events from now on, as `goal start` shows them —
 * until it stops. The host worker is started when the Goal is of this host
 * and none runs. It sends the Goal nothing: Ctrl-C stops following and
 * leaves it working. Resolves to `goal start`'s exit codes (0 completed, 1
 * any other stop, 130 Ctrl-C); 0 at once for a Goal that is not at work.
 * @throws Temporal set-up errors; ZunoError `temporal_unreachable` after a long outage.
 */
export async function followGoalFromShow(opts: {
  paths: ZunoPaths;
  store: ProjectionStore;
  goalId: string;
  session: SessionRow;
  /** The event seq the view was read at: following starts after it. */
  after: number;
  json: boolean;
  sink: Sink;
}): Promise<number> {
  const { paths, store, goalId, session, sink } = opts;
  const row = await store.getGoal(goalId);
  if (!row || !FOLLOWED_GOAL_STATUSES.has(row.snapshot.state.status)) return 0;
  const f = await attachFollower({
    paths,
    store,
    kind: 'goal',
    id: goalId,
    session,
    workflowId: goalWorkflowId(goalId),
    json: opts.json,
    sink,
  });
  try {
    const { temporal, outage } = f;
    const stop = await followGoal(
      store,
      { goalId, sessionId: session.id },
      {
        after: opts.after,
        json: opts.json,
        sink,
        state: { turnOpen: false },
        goalClosed: outage.retry(() => temporal.client.workflow.getHandle(goalWorkflowId(goalId)).result()),
        sessionClosed: outage.retry(() =>
          sessionResultOf(temporal.client.workflow.getHandle(sessionWorkflowId(session.id))),
        ),
        pendingActivities: pendingActivitiesOf(temporal.client, sessionWorkflowId(session.id)),
      },
    );
    if (opts.json) sink.out(goalFinalJsonLine(stop));
    return goalExit(stop, sink, { scripted: session.provider === 'local' });
  } finally {
    await f.close();
  }
}
