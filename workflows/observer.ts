import { CancellationScope, condition, proxyActivities, sleep } from '@temporalio/workflow';
import { observerStepOptions } from '../core/activity-policy.js';
import type { BgCommandInput, BgCommandResult, BgObserverInput, SessionActivities } from '../core/session-contract.js';
import { onRoute, type RouteHost, type RouteOptions } from './route.js';

/** `patched()` id of remote observers whose wait the workflow holds (issue 10): before it, one `bgCommand` activity ran the observer to its end. */
export const OBSERVER_PATCH = 'zuno-remote-observer-v1';

/** Longest gap between two polls of a running observer, in ms. */
export const OBSERVER_POLL_MAX_MS = 60_000;
/** Gap between polls once a stop was asked for, in ms (the SH5 window is 2 s). */
const STOPPING_POLL_MS = 1_000;
/** Polls in a row that may fail (no answer from the host) before the task is given up as lost. */
const MAX_FAILED_POLLS = 5;

/**
 * Gap before poll `n` (0-based) of a running remote observer, in ms: 1 s,
 * 1 s, 2 s, 2 s, 4 s, … doubling every second poll, at most
 * {@link OBSERVER_POLL_MAX_MS}. A short CI run is reported within seconds of
 * its end; a wait of hours costs about 60 polls an hour.
 */
export function observerPollDelayMs(n: number): number {
  return Math.min(OBSERVER_POLL_MAX_MS, 1000 * 2 ** Math.floor(n / 2));
}

/**
 * Runs one remote observer (SH9, GL26) with its wait held by the workflow:
 * `bgObserverStart` starts the command and returns, then the workflow
 * sleeps (a timer) and asks `bgObserverPoll` how the task stands, until it
 * has settled. Between polls no activity is in flight: the wait costs no
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
      else await condition(() => stopping, observerPollDelayMs(n), { summary: `observe ${summary}` });
      if (stopping && !stopSent) {
        stopSent = true;
        await onRoute(host, (o) => acts('stop', o).bgObserverStop(where)).catch(() => undefined);
      }
      try {
        const polled = await onRoute(host, (o) => acts('poll', o).bgObserverPoll(where));
        failures = 0;
        if (polled.result) return polled.result;
      } catch (err) {
        if (++failures >= MAX_FAILED_POLLS) throw err;
      }
    }
  });
}
