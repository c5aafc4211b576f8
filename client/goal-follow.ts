import { ZunoError } from '../core/errors.js';
import { EV, parseEvent, TURN_END_EVENTS } from '../core/events.js';
import type { GoalSnapshot, GoalSpent } from '../core/goal/contract.js';
import type { GoalStatus } from '../core/goal/status.js';
import type { EventRow, ProjectionStore } from '../activities/projection/index.js';
import { goalReason } from '../core/goal/transitions.js';
import type { PendingActivitiesReader } from './live-progress.js';
import { eventToJsonLine, HumanRenderer } from './render.js';
import type { Sink } from './sink.js';
import { TAIL_EVERY_MS, WATCH_EVERY_MS } from './commands/run.js';
import { DescendantApprovals, offerDescendantApprovals } from './descendant-approvals.js';

/** Statuses in which a followed Goal is still at work: following goes on. */
export const FOLLOWED_GOAL_STATUSES: ReadonlySet<GoalStatus> = new Set(['active', 'backoff', 'waiting_background']);

/** Where a followed Goal stopped: the `goal.status` event that said so (and what it had spent then). */
export interface GoalStop {
  goalId: string;
  sessionId: string;
  /** completed, paused, blocked, budget_limited or cancelled. */
  status: GoalStatus;
  /** The pause reason, block code, budget kind or who cancelled; null when none. */
  reason: string | null;
  message: string | null;
  revision: number;
  /** What the Goal had spent at that revision (null when the projection row has moved past it). */
  spent: GoalSpent | null;
  /** The Goal's snapshot at that revision, when the projection row still holds it. */
  snapshot: GoalSnapshot | null;
}

/** What the follower and the command driving it share. */
export interface GoalFollowState {
  /** A turn of the session started (its `session.turn.started` event) and has not ended yet. */
  turnOpen: boolean;
  /**
   * A stopped Goal is followed on until its open turn ends — the turn's last
   * calls are shown and, when this process serves it, not cut off — but no
   * longer than this instant once set (Ctrl-C sets it: the interrupted turn
   * must settle within seconds).
   */
  settleBy?: number;
}

/** How long a Goal's session may have closed without the Goal saying it stopped, in ms. */
const SESSION_GONE_GRACE_MS = 15_000;

/** `14:03:10 UTC` */
function clock(ms: number): string {
  return `${new Date(ms).toISOString().slice(11, 19)} UTC`;
}

/**
 * Tails the session's stored events (from `after`) while its Goal works and
 * returns where the Goal stopped: the first `goal.status` event of this
 * Goal whose status is not active, backoff or waiting_background — once the
 * turn that was open then has ended (see {@link GoalFollowState.settleBy}).
 * Renders every event as NDJSON (`json`, the stream `zuno run --json` gives)
 * or for people (the session's tool calls, progress and answers through
 * {@link HumanRenderer}; plain lines when the Goal continues on its own,
 * backs off or waits for a remote observer).
 * @throws ZunoError `goal_ended` when the Goal's workflow ended without a
 *   stop event (terminated, failed), `session_gone` when its session closed
 *   and the Goal said nothing within 15 s; `aborted` when `signal` aborts.
 */
export async function followGoal(
  store: ProjectionStore,
  ids: { goalId: string; sessionId: string },
  opts: {
    after: number;
    json: boolean;
    sink: Sink;
    state: GoalFollowState;
    /** The Goal's workflow result: settles when it closes. */
    goalClosed: Promise<unknown>;
    /** The session's workflow result: settles when it closes. */
    sessionClosed?: Promise<unknown>;
    pendingActivities?: PendingActivitiesReader;
    signal?: AbortSignal;
  },
): Promise<GoalStop> {
  const { sink, state } = opts;
  const human = new HumanRenderer(
    sink,
    process.stdout.isTTY === true,
    opts.pendingActivities ? { pendingActivities: opts.pendingActivities } : {},
  );
  // A goal's background task reports to the goal; Ctrl-C pauses the goal rather than stopping the task.
  human.backgroundNote = (ids) =>
    `(background task${ids.length > 1 ? 's' : ''} ${ids.join(', ')} ${ids.length > 1 ? 'keep' : 'keeps'} running: ${ids.length > 1 ? 'their completion reports reach' : 'its completion report reaches'} the goal)`;
  let goalEnd: { ok: true; snapshot: GoalSnapshot } | { ok: false; why: string } | undefined;
  opts.goalClosed.then(
    (s) => (goalEnd = { ok: true, snapshot: s as GoalSnapshot }),
    (err: unknown) => (goalEnd = { ok: false, why: (err as Error)?.message ?? String(err) }),
  );
  let sessionClosedAt: number | undefined;
  opts.sessionClosed?.then(
    () => (sessionClosedAt = Date.now()),
    () => (sessionClosedAt = Date.now()),
  );
  let after = opts.after;
  let stop: GoalStop | null = null;
  // The approvals of the sessions the goal's session delegated to are announced with the command that decides them.
  const below = opts.json ? null : new DescendantApprovals(store, ids.sessionId);
  let watchedAtMs = 0;
  try {
    for (;;) {
      if (opts.signal?.aborted) throw new ZunoError('aborted', 'stopped following');
      const endedBeforePoll = goalEnd;
      const events: EventRow[] = await store.listEvents(ids.sessionId, after, 500);
      for (const e of events) {
        after = e.seq;
        if (opts.json) sink.out(eventToJsonLine(e));
        else human.render(e);
        if (e.type === EV.turnStarted) {
          state.turnOpen = true;
          const d = parseEvent(e);
          if (!opts.json && d?.type === EV.turnStarted && d.data.trigger === 'goal_continuation')
            sink.err(`(turn ${d.data.turn + 1}: the goal continues on its own)\n`);
        } else if (TURN_END_EVENTS.has(e.type)) {
          state.turnOpen = false;
        } else if (e.type === EV.goalStatus) {
          const d = parseEvent(e);
          if (d?.type !== EV.goalStatus || d.data.goalId !== ids.goalId) continue;
          if (FOLLOWED_GOAL_STATUSES.has(d.data.status as GoalStatus)) {
            stop = null; // resumed meanwhile: it works again
            if (!opts.json) await sayWaiting(store, ids.goalId, d.data, sink);
          } else {
            stop = await stopOf(store, ids, d.data);
          }
        }
      }
      const settled = !state.turnOpen || (state.settleBy !== undefined && Date.now() >= state.settleBy);
      if (stop && settled) {
        // A completed goal closes once its completing turn reported what it spent: prefer that final snapshot.
        if (stop.status === 'completed') {
          await Promise.race([
            opts.goalClosed.catch(() => undefined),
            new Promise((r) => setTimeout(r, FINAL_WAIT_MS)),
          ]);
          const end = goalEnd as typeof goalEnd;
          if (end?.ok) return stopFromSnapshot(end.snapshot);
        }
        return stop;
      }
      if (endedBeforePoll && events.length === 0) {
        if (endedBeforePoll.ok) return stopFromSnapshot(endedBeforePoll.snapshot);
        throw new ZunoError(
          'goal_ended',
          `goal ${ids.goalId}'s workflow ended without finishing (${endedBeforePoll.why}); \`zuno goal show ${ids.goalId}\` shows where it stood`,
        );
      }
      if (!stop && sessionClosedAt !== undefined && Date.now() - sessionClosedAt > SESSION_GONE_GRACE_MS) {
        throw new ZunoError(
          'session_gone',
          `the session ${ids.sessionId} of goal ${ids.goalId} ended while the goal was working; \`zuno goal show ${ids.goalId}\` shows where it stood`,
        );
      }
      if (below && Date.now() - watchedAtMs >= WATCH_EVERY_MS) {
        watchedAtMs = Date.now();
        await offerDescendantApprovals(below, null, (t) => sink.err(t));
      }
      if (events.length < 500) await new Promise((r) => setTimeout(r, TAIL_EVERY_MS));
    }
  } finally {
    human.progress.stop();
  }
}

/** How long a follower waits for a completed goal's workflow to close with its final snapshot, in ms. */
const FINAL_WAIT_MS = 5_000;

type GoalStatusData = {
  goalId: string;
  revision: number;
  status: string;
  reason: string | null;
  message: string | null;
};

/** The Goal's projection row when it is still at `revision` (the event and the row are written together). */
async function rowAt(store: ProjectionStore, goalId: string, revision: number): Promise<GoalSnapshot | null> {
  const row = await store.getGoal(goalId);
  return row && row.snapshot.revision === revision ? row.snapshot : null;
}

async function stopOf(
  store: ProjectionStore,
  ids: { goalId: string; sessionId: string },
  d: GoalStatusData,
): Promise<GoalStop> {
  const snapshot = await rowAt(store, ids.goalId, d.revision);
  return {
    ...ids,
    status: d.status as GoalStatus,
    reason: d.reason,
    message: d.message,
    revision: d.revision,
    spent: snapshot?.spent ?? null,
    snapshot,
  };
}

/** A Goal whose workflow completed: where it stopped, from its final snapshot. */
function stopFromSnapshot(s: GoalSnapshot): GoalStop {
  const st = s.state;
  return {
    goalId: s.goalId,
    sessionId: s.sessionId,
    status: st.status,
    reason: goalReason(s),
    message: 'message' in st ? st.message : null,
    revision: s.revision,
    spent: s.spent,
    snapshot: s,
  };
}

/** The plain line of a Goal that backs off or waits for a remote observer (nothing for active). */
async function sayWaiting(store: ProjectionStore, goalId: string, d: GoalStatusData, sink: Sink): Promise<void> {
  if (d.status === 'active') return;
  const st = (await rowAt(store, goalId, d.revision))?.state;
  if (d.status === 'backoff') {
    const when = st?.status === 'backoff' ? ` at ${clock(st.untilMs)} (attempt ${st.attempt})` : '';
    sink.err(`retrying after ${d.reason ?? 'a failure'}${when}\n`);
  } else if (d.status === 'waiting_background') {
    const ids = st?.status === 'waiting_background' ? st.taskIds : [];
    sink.err(
      ids.length === 0
        ? 'waiting for CI: a remote observer is running\n'
        : `waiting for CI: remote observer${ids.length > 1 ? 's' : ''} ${ids.join(', ')} ${ids.length > 1 ? 'are' : 'is'} running\n`,
    );
  }
}
