import { CancellationScope, condition, proxyActivities, sleep } from '@temporalio/workflow';
import { observerStepOptions } from '../core/activity-policy.js';
import type {
  BgCommandInput,
  BgCommandResult,
  BgObserverInput,
  SessionActivities,
} from '../core/session/activities.js';
import { onRoute, type RouteHost, type RouteOptions } from './route.js';

export { OBSERVER_PATCH } from './generation.js';

/**
 * Longest gap between two polls of a running observer, in ms. The worker that
 * runs the command signals its end ({@link BG_SETTLED_SIGNAL}), so the polls
 * only catch what a signal cannot tell: a lost worker.
 */
export const OBSERVER_POLL_MAX_MS = 300_000;
/** Gap between polls once a stop was asked for, in ms (the SH5 window is 2 s). */
const STOPPING_POLL_MS = 1_000;
/** Polls in a row that may fail (no answer from the host) before the task is given up as lost. */
const MAX_FAILED_POLLS = 5;

/** The `bgSettled` hint of one task (a signal from the worker running it). */
export interface SettledHint {
  has(): boolean;
  clear(): void;
}

/**
 * Gap before poll `n` (0-based) of a running remote observer, in ms: 1 s,
 * 1 s, 2 s, 2 s, 4 s, … doubling every second poll, at most
 * {@link OBSERVER_POLL_MAX_MS} — after the first ~17 minutes, 12 polls an
 * hour (about 130 history events).
 */
export function observerPollDelayMs(n: number): number {
  return Math.min(OBSERVER_POLL_MAX_MS, 1000 * 2 ** Math.floor(n / 2));
}

/**
 * Runs one remote observer (SH9, GL26) with its wait held by the workflow:
 * `bgObserverStart` starts the command and returns, then the workflow
 * sleeps (a timer, cut short by the worker's `bgSettled` signal when the
 * command ends) and asks `bgObserverPoll` how the task stands, until it has
 * settled. Between polls no activity is in flight: the wait costs no
 * worker slot, and on the time-skipping test server an hour of it passes in
 * seconds. Cancelling the current scope (a `bg cancel`, a hard interrupt,
 * the session ending) asks the command to stop and keeps polling until its
 * settled report arrives, as a cancelled `bgCommand` does.
 *
 * @returns the settled task's small completion.
 * @throws ActivityFailure when the start was lost, or the host answered no
 *   poll {@link MAX_FAILED_POLLS} times in a row (the caller reports it lost).
 */
export async function observeRemoteTask(
  host: RouteHost,
  input: BgCommandInput,
  summary: string,
  settled: SettledHint,
): Promise<BgCommandResult> {
  let stopping = false;
  CancellationScope.current().cancelRequested.catch(() => {
    stopping = true;
  });
  const acts = (kind: 'start' | 'poll' | 'stop', o: RouteOptions) =>
    proxyActivities<SessionActivities>({ ...observerStepOptions(kind, summary), ...o });
  const where: BgObserverInput = {
    sessionId: input.sessionId,
    workspace: input.workspace,
    taskID: input.taskID,
    rowId: input.call.rowId,
  };
  // Everything below runs to the task's end: a cancellation only turns into a stop request.
  return CancellationScope.nonCancellable(async () => {
    const first = await onRoute(host, (o) => acts('start', o).bgObserverStart(input));
    if (first.result) return first.result;
    let stopSent = false;
    let failures = 0;
    for (let n = 0; ; n++) {
      if (stopping) await sleep(STOPPING_POLL_MS);
      else
        await condition(() => stopping || settled.has(), observerPollDelayMs(n), {
          summary: `observe ${summary} (next poll)`,
        });
      settled.clear();
      if (stopping && !stopSent) {
        stopSent = true;
        await onRoute(host, (o) => acts('stop', o).bgObserverStop(where)).catch(() => undefined);
      }
      try {
        const polled = await onRoute(host, (o) => acts('poll', o).bgObserverPoll(where));
        failures = 0;
        if (polled.result) return polled.result;
      } catch (err) {
        if (++failures < MAX_FAILED_POLLS) continue;
        // Given up as lost: ask the command to stop, so nothing runs on unobserved.
        await onRoute(host, (o) => acts('stop', o).bgObserverStop(where)).catch(() => undefined);
        throw err;
      }
    }
  });
}
