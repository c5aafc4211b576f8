import { proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { GoalActivities } from '../core/goal/activities.js';
import type { GoalCriterion, GoalSnapshot } from '../core/goal/contract.js';
import type { GoalState } from '../core/goal/status.js';
import {
  type GoalWatchState,
  type WatchProbeResult,
  type WatchReport,
  watchConditionText,
  watchGapMs,
  watchReportText,
} from '../core/goal/watch.js';
import { urlShown } from '../core/url-text.js';
import { onRoute, type RouteHost } from './route.js';

/** One check's activity: a Safe fetch, retried a little (a lost worker), never long. */
const PROBE_OPTIONS = {
  startToCloseTimeout: '60s',
  retry: { initialInterval: '2s', backoffCoefficient: 2, maximumAttempts: 3 },
} as const;
/** Starting the session: Safe (attaches to a running one, admits the input once); retried until it lands. */
const START_OPTIONS = {
  startToCloseTimeout: '60s',
  retry: { initialInterval: '2s', backoffCoefficient: 2, maximumInterval: '60s', maximumAttempts: 10 },
} as const;

/** The first snapshot of a watched Goal: `waiting_watch`, the first check due at once. */
export function watchedStart(snap: GoalSnapshot, spec: NonNullable<GoalSnapshot['watch']>['spec']): GoalSnapshot {
  return {
    ...snap,
    state: { status: 'waiting_watch' },
    watch: { spec, attempts: 0, failures: 0, nextCheckAtMs: snap.createdAtMs },
  };
}

/** The next check's time while the Goal waits on its watch (the timeout's, when that comes first); null otherwise. */
export function watchDeadline(snap: GoalSnapshot): number | null {
  const w = snap.watch;
  if (snap.state.status !== 'waiting_watch' || !w || w.report || w.nextCheckAtMs === undefined) return null;
  return Math.min(w.nextCheckAtMs, snap.createdAtMs + w.spec.timeoutMs);
}

/** Whether the watched Goal's session is still to be started (its watch reported and the Goal is active). */
export function sessionDue(snap: GoalSnapshot): boolean {
  return snap.watch !== undefined && !snap.watch.sessionStarted && snap.state.status === 'active';
}

/**
 * What a person's resume of a watched Goal leads to: back to waiting while
 * the watch has not reported (its next check runs at once), else `state`.
 */
export function resumedState(snap: GoalSnapshot, state: GoalState): GoalState {
  return state.status === 'active' && snap.watch && !snap.watch.report ? { status: 'waiting_watch' } : state;
}

/**
 * Runs one check of the Goal's watch (the `watchProbe` activity on the
 * session's route) — or, past the watch's timeout, none — and returns the
 * watch as it now stands: with its report when this check decided it.
 * A check whose activity failed counts as a failed check.
 */
export async function checkWatch(host: RouteHost, snap: GoalSnapshot, nowMs: number): Promise<GoalWatchState> {
  const w = snap.watch!;
  const timeoutAt = snap.createdAtMs + w.spec.timeoutMs;
  if (nowMs >= timeoutAt) return { ...w, report: report(snap, w, 'timed_out', timeoutAt) };
  const attempt = w.attempts + 1;
  const seen: WatchProbeResult = await onRoute(host, (o) =>
    proxyActivities<GoalActivities>({
      ...PROBE_OPTIONS,
      ...o,
      summary: `watch: check ${attempt} of ${urlShown(w.spec.url)}`,
    }).watchProbe({
      goalId: snap.goalId,
      url: w.spec.url,
      until: w.spec.until,
      attempt,
      allowPrivate: host.meta.network?.allowPrivate ?? [],
    }),
  ).catch((err: unknown) => ({
    matched: false,
    fetchedAtMs: Date.now(),
    error: { code: 'watch_probe_failed', message: String((err as Error).message ?? err).slice(0, 200) },
  }));
  const failures = seen.error || seen.status === undefined ? w.failures + 1 : 0;
  const next: GoalWatchState = {
    ...w,
    attempts: attempt,
    failures,
    nextCheckAtMs: Date.now() + watchGapMs(w.spec.everyMs, failures),
    last: {
      atMs: seen.fetchedAtMs,
      ...(seen.status !== undefined ? { status: seen.status } : {}),
      ...(seen.error ? { error: `${seen.error.code}: ${seen.error.message}`.slice(0, 300) } : {}),
    },
  };
  if (!seen.matched) return next;
  return { ...next, report: report(snap, next, 'matched', seen.fetchedAtMs, seen) };
}

function report(
  snap: GoalSnapshot,
  w: GoalWatchState,
  outcome: WatchReport['outcome'],
  atMs: number,
  seen?: WatchProbeResult,
): WatchReport {
  return {
    reportId: `wr_${snap.goalId}`,
    outcome,
    url: urlShown(w.spec.url),
    until: watchConditionText(w.spec.until),
    atMs,
    attempts: w.attempts,
    ...(seen?.value !== undefined ? { value: seen.value } : {}),
    ...(seen?.status !== undefined ? { status: seen.status } : {}),
    ...(outcome === 'timed_out' && w.last?.error ? { lastError: w.last.error } : {}),
  };
}

/**
 * The snapshot once the watch reported: its report kept, the next check
 * cleared, and — when it matched — every criterion the watch owns satisfied
 * with the report as evidence. The caller moves the status.
 */
export function withReport(snap: GoalSnapshot, w: GoalWatchState): GoalSnapshot {
  const r = w.report!;
  const { nextCheckAtMs: _done, ...kept } = w;
  const criteria: GoalCriterion[] = snap.criteria.map((c) =>
    c.watch && r.outcome === 'matched' && c.status === 'pending'
      ? { ...c, status: 'satisfied', evidence: { receiptId: r.reportId, callId: 'watch' } }
      : c,
  );
  return { ...snap, watch: kept, criteria };
}

/**
 * Starts the watched Goal's session (`startGoalSession` on its route) with
 * the objective and the watch's report as its first input.
 * @throws ActivityFailure when it could not be started after its retries.
 */
export async function startWatchedSession(host: RouteHost, snap: GoalSnapshot): Promise<void> {
  const r = snap.watch?.report;
  const text = r ? `${snap.objective}\n\n${watchReportText(r)}` : snap.objective;
  await onRoute(host, (o) =>
    proxyActivities<GoalActivities>({ ...START_OPTIONS, ...o, summary: 'start the goal session' }).startGoalSession({
      goalId: snap.goalId,
      taskQueue: workflowInfo().taskQueue,
      meta: host.meta,
      text,
    }),
  );
}
