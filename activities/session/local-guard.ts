import { ApplicationFailure, Context } from '@temporalio/activity';
import { ApplicationFailureCategory } from '@temporalio/common';
import { LOCAL_ELSEWHERE } from '../../core/session/tool-activity.js';

/** Which task queues' activities this worker process runs (worker/worker.ts). */
export type Serves = (taskQueue: string) => boolean;

/**
 * The guard of an activity that may run as a local activity (issue 13: a
 * short read, a fast turn's `finishTurn`): run locally, it goes on only in
 * a worker that serves `localOn` — the session's route, the workspace's and
 * projection's host — and refuses otherwise, so the workflow schedules the
 * regular activity on the route. Returns whether this run is local.
 * @throws a non-retryable, BENIGN ApplicationFailure of type
 *   {@link LOCAL_ELSEWHERE} (an expected refusal: no warning in the worker's log).
 */
export function localHere(serves: Serves, localOn: string | undefined): boolean {
  const info = Context.current().info;
  if (!info.isLocal) return false;
  const queue = localOn ?? info.taskQueue;
  if (serves(queue)) return true;
  throw ApplicationFailure.create({
    message: `this worker does not run the activities of task queue ${queue}`,
    type: LOCAL_ELSEWHERE,
    nonRetryable: true,
    category: ApplicationFailureCategory.BENIGN,
  });
}
