import { pidAlive } from '../worker/dev-server.js';
import type { TemporalContext } from './context.js';
import { hostId } from './routing.js';

/**
 * The identity of a live process of this host, other than this one, polling
 * the activity task queue `taskQueue` (`zuno goal start 1234@host`: the pid
 * is checked with signal 0), or null. Temporal lists a poller for about a
 * minute after it stopped; the pid check tells a live command from one that
 * has ended. Other hosts' pollers and Temporal errors count as none.
 */
export async function liveLocalPoller(
  temporal: Pick<TemporalContext, 'connection' | 'namespace'>,
  taskQueue: string,
): Promise<string | null> {
  try {
    const { default: proto } = await import('@temporalio/proto');
    const api = proto.temporal.api;
    const res = await temporal.connection.withDeadline(Date.now() + 5_000, () =>
      temporal.connection.workflowService.describeTaskQueue({
        namespace: temporal.namespace,
        taskQueue: { name: taskQueue, kind: api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
        taskQueueType: api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY,
      }),
    );
    const here = hostId();
    for (const p of res.pollers ?? []) {
      const m = /^(.*) (\d+)@(\S+)$/.exec(p.identity ?? '');
      if (!m || m[3] !== here || Number(m[2]) === process.pid) continue;
      if (pidAlive(Number(m[2]))) return p.identity!;
    }
    return null;
  } catch {
    return null;
  }
}
