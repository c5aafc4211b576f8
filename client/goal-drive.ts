import type { Client } from '@temporalio/client';
import { ZunoError } from '../core/errors.js';
import { goalWorkflowId } from '../core/goal/contract.js';
import { TERMINAL_GOAL_STATUSES } from '../core/goal/status.js';
import { sessionWorkflowId } from '../core/ids.js';
import { STATE_QUERY } from '../core/session/updates.js';
import type { SessionState } from '../core/session/state.js';
import type { ProjectionStore } from '../activities/projection/index.js';
import { CTRL_C_DELIVERY_MS, SCRIPTED_SETTLE_MS } from './commands/run.js';
import { queryGoal, sendGoalControl } from './goal-client.js';
import { goalExit, goalFinalJsonLine } from './goal-end.js';
import { FOLLOWED_GOAL_STATUSES, followGoal, type GoalFollowState } from './goal-follow.js';
import { waitUntilQuiet } from './goal-quiet.js';
import { pendingActivitiesOf } from './live-progress.js';
import type { Sink } from './sink.js';
import { interruptSession } from './session-start.js';
import { goalSessionResult } from './goal-start.js';
import { probeOf, TemporalOutage } from './temporal-outage.js';

/** What {@link driveGoal} follows. */
export interface GoalDrive {
  client: Client;
  store: ProjectionStore;
  goalId: string;
  sessionId: string;
  /** Follow the session's events after this seq. */
  after: number;
  json: boolean;
  sink: Sink;
  /** This process's in-process worker serves the Goal's session: the Goal cannot go on once it ends. */
  servesHere: boolean;
  /** The session's model is a script served by this process. */
  scripted: boolean;
  /** Who the Goal is paused by when this command stops serving it early, e.g. `zuno goal start`. */
  command: string;
  /** The Temporal address, named when it stops answering. */
  address?: string;
}

/**
 * Follows a Goal until it stops (completed, paused, blocked, out of budget,
 * cancelled) and resolves to the exit code — 0 only for completed, 1 for
 * every other stop (its reason and what to do next are printed), 130 after
 * Ctrl-C. With `json` the events go to stdout as NDJSON and the last line
 * is `goal.<status>` (goal-end.ts).
 *
 * Ctrl-C pauses the Goal (`goalControl` pause, bound to the revision just
 * queried) and hard-interrupts the running turn; following goes on until
 * the pause is recorded and the interrupted turn settled (at most 6 s); a
 * second Ctrl-C stops following at once. A Goal this process serves that is
 * left while still at work (second Ctrl-C, an error) is paused — never
 * terminated: it waits, its workflow open, for `zuno goal resume`, which
 * serves it again (with `--script` again for a scripted model).
 * @throws ZunoError `interrupted` (exit 130) for a second Ctrl-C; what {@link followGoal} throws.
 */
export async function driveGoal(d: GoalDrive): Promise<number> {
  const state: GoalFollowState = { turnOpen: false };
  const abort = new AbortController();
  let ctrlC = false;
  let finished = false;
  let onSigint: (() => void) | undefined;
  const interrupted = new Promise<never>((_, reject) => {
    onSigint = () => {
      if (!ctrlC) {
        ctrlC = true;
        pauseAndInterrupt(d, 'you (Ctrl-C)', (line) => d.sink.err(line)).then(
          (left) => {
            if (left !== 'waiting') return void (state.settleBy = Date.now() + SCRIPTED_SETTLE_MS);
            // Issue 31: a Goal waiting on its release watch is not working; the host worker keeps serving it.
            reject(
              new ZunoError(
                'interrupted',
                `stopped following goal ${d.goalId}: it keeps waiting on its release watch, served by the host worker (\`zuno goal show ${d.goalId}\` shows it, \`zuno goal cancel ${d.goalId}\` drops it)`,
              ),
            );
          },
          (err: unknown) =>
            reject(
              new ZunoError(
                'interrupted',
                `could not pause goal ${d.goalId}: ${(err as Error).message ?? String(err)}`,
              ),
            ),
        );
        return;
      }
      reject(new ZunoError('interrupted', `stopped following goal ${d.goalId}`));
    };
    process.on('SIGINT', onSigint);
    process.on('SIGTERM', onSigint); // `kill`, `timeout`: handled as Ctrl-C — the goal is paused, never left working
  });
  // An outage rejects the results in flight: they are obtained again once Temporal answers.
  const outage = new TemporalOutage({
    probe: probeOf(d.client),
    say: (t) => d.sink.err(t),
    ...(d.address ? { address: d.address } : {}),
    kind: 'goal',
    id: d.goalId,
  });
  const followed = followGoal(
    d.store,
    { goalId: d.goalId, sessionId: d.sessionId },
    {
      after: d.after,
      json: d.json,
      sink: d.sink,
      state,
      goalClosed: outage.retry(() => d.client.workflow.getHandle(goalWorkflowId(d.goalId)).result()),
      sessionClosed: outage.retry(() => goalSessionResult(d.client, d.goalId, d.sessionId, abort.signal)),
      pendingActivities: pendingActivitiesOf(d.client, sessionWorkflowId(d.sessionId)),
      signal: abort.signal,
    },
  );
  followed.catch(() => undefined); // after a second Ctrl-C nobody awaits it
  try {
    const stop = await Promise.race([followed, interrupted]);
    finished = true;
    if (d.json) d.sink.out(goalFinalJsonLine(stop));
    if (ctrlC && !TERMINAL_GOAL_STATUSES.has(stop.status)) {
      d.sink.err(
        `zuno: interrupted: goal ${d.goalId} is ${stop.status}${stop.reason ? ` (${stop.reason})` : ''}; resume it with \`zuno goal resume ${d.goalId}${d.scripted ? ' --script FILE' : ''}\`\n`,
      );
      return 130;
    }
    return goalExit(stop, d.sink, { scripted: d.scripted });
  } finally {
    process.removeListener('SIGINT', onSigint!);
    process.removeListener('SIGTERM', onSigint!);
    abort.abort();
    if (!finished && d.servesHere) await leavePaused(d);
    // What the Goal and its session do right after the stop (the Goal's record, its directive) is done by this worker.
    if (d.servesHere) await waitUntilQuiet(d.client, [goalWorkflowId(d.goalId), sessionWorkflowId(d.sessionId)]);
  }
}

/**
 * Pauses the Goal unless it already stopped — or, for a Goal waiting on its
 * release watch that the host worker serves, leaves it waiting and answers
 * `waiting` (issue 31: waiting is not working) — then interrupts the session's
 * running turn (and, when this process serves it, its background tasks —
 * they could not outlive it). Bound to the revision just read; a revision
 * that moved in between is read once more.
 */
async function pauseAndInterrupt(
  d: GoalDrive,
  by: string,
  say?: (line: string) => void,
): Promise<'paused' | 'waiting'> {
  for (let attempt = 0; ; attempt++) {
    const snap = await queryGoal(d.client, d.goalId, CTRL_C_DELIVERY_MS);
    if (!FOLLOWED_GOAL_STATUSES.has(snap.state.status)) break;
    const waiting = snap.state.status === 'waiting_watch';
    if (waiting && !d.servesHere) return 'waiting';
    if (attempt === 0)
      say?.(
        waiting
          ? `zuno: pausing goal ${d.goalId}, which waits on its release watch: this process serves it (Ctrl-C again to stop following)\n`
          : `zuno: pausing goal ${d.goalId} and interrupting its running turn: running calls get 2 s to stop, then are recorded uncertain (Ctrl-C again to stop following)\n`,
      );
    try {
      await sendGoalControl(
        d.client,
        d.goalId,
        { action: 'pause', expectedRevision: snap.revision, by },
        CTRL_C_DELIVERY_MS,
      );
      break;
    } catch (err) {
      if (attempt === 0 && err instanceof ZunoError && err.code === 'stale_revision') continue;
      throw err;
    }
  }
  const s = await d.client.connection
    .withAbortSignal(AbortSignal.timeout(CTRL_C_DELIVERY_MS), () =>
      d.client.workflow.getHandle(sessionWorkflowId(d.sessionId)).query<SessionState>(STATE_QUERY),
    )
    .catch(() => null);
  const busy = s !== null && (s.phase === 'running_turn' || s.phase === 'interrupting');
  if (busy || (d.servesHere && s !== null && s.background.length > 0)) {
    await interruptSession(d.client, d.sessionId, 'cli:ctrl-c', CTRL_C_DELIVERY_MS);
  }
  return 'paused';
}

/**
 * This process served a Goal that is still at work and stops following it:
 * the Goal is paused and its running turn interrupted, then the turn gets
 * {@link SCRIPTED_SETTLE_MS} to settle while this process still serves it.
 * Best effort: what cannot be reached is said, never retried.
 */
async function leavePaused(d: GoalDrive): Promise<void> {
  try {
    await pauseAndInterrupt(d, `the ending \`${d.command}\` that served it`);
    const until = Date.now() + SCRIPTED_SETTLE_MS;
    while (Date.now() < until) {
      const s = await d.client.workflow
        .getHandle(sessionWorkflowId(d.sessionId))
        .query<SessionState>(STATE_QUERY)
        .catch(() => null);
      if (!s || (s.phase !== 'running_turn' && s.phase !== 'interrupting')) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    d.sink.err(
      `zuno: goal ${d.goalId} is left paused: this process served it; resume it with \`zuno goal resume ${d.goalId}${d.scripted ? ' --script FILE' : ''}\`\n`,
    );
  } catch (err) {
    d.sink.err(
      `zuno: goal ${d.goalId} could not be paused (${(err as Error).message ?? String(err)}): nothing serves it after this process; \`zuno goal resume ${d.goalId}\` serves it again\n`,
    );
  }
}
