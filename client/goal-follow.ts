import { ZunoError } from '../core/errors.js';
import { EV, parseEvent, TURN_END_EVENTS } from '../core/events.js';
import type { GoalSnapshot, GoalSpent } from '../core/goal/contract.js';
import type { GoalStatus } from '../core/goal/status.js';
import type { EventRow, ProjectionStore } from '../activities/projection/index.js';
import { goalReason } from '../core/goal/transitions.js';
import type { PendingActivitiesReader } from './live-progress.js';
import { eventToJsonLine, HumanRenderer } from './render.js';
import type { Sink } from './sink.js';
import { watchingLine } from './commands/goal-watch-view.js';
import { TAIL_EVERY_MS, WATCH_EVERY_MS } from './commands/run.js';
import { DescendantApprovals, offerDescendantApprovals } from './descendant-approvals.js';

/** Statuses in which a followed Goal is still at work: following goes on. */
export const FOLLOWED_GOAL_STATUSES: ReadonlySet<GoalStatus> = new Set([
  'active',
  'backoff',
  'waiting_background',
  'waiting_watch',
]);

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
  opts: GoalFollowOptions,
): Promise<GoalStop> {
  const follower = new GoalFollower(store, ids, opts);
  try {
    return await follower.run();
  } finally {
    follower.human.progress.stop();
  }
}

/** Options of {@link followGoal}. */
export interface GoalFollowOptions {
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
}

/** How the Goal's workflow closed: with its final snapshot, or not (terminated, failed). */
type GoalEnd = { ok: true; snapshot: GoalSnapshot } | { ok: false; why: string };

/** One {@link followGoal}: the tail's position, the stop seen so far, and how the workflows closed. */
class GoalFollower {
  readonly human: HumanRenderer;
  private after: number;
  private stop: GoalStop | null = null;
  private goalEnd: GoalEnd | undefined;
  private sessionClosedAt: number | undefined;
  private watchedAtMs = 0;
  /** The approvals of the sessions the goal's session delegated to are announced with the command that decides them. */
  private readonly below: DescendantApprovals | null;

  constructor(
    private readonly store: ProjectionStore,
    private readonly ids: { goalId: string; sessionId: string },
    private readonly opts: GoalFollowOptions,
  ) {
    this.after = opts.after;
    this.human = new HumanRenderer(
      opts.sink,
      process.stdout.isTTY === true,
      opts.pendingActivities ? { pendingActivities: opts.pendingActivities } : {},
    );
    // A goal's background task reports to the goal; Ctrl-C pauses the goal rather than stopping the task.
    this.human.backgroundNote = (ids) =>
      `(background task${ids.length > 1 ? 's' : ''} ${ids.join(', ')} ${ids.length > 1 ? 'keep' : 'keeps'} running: ${ids.length > 1 ? 'their completion reports reach' : 'its completion report reaches'} the goal)`;
    opts.goalClosed.then(
      (s) => (this.goalEnd = { ok: true, snapshot: s as GoalSnapshot }),
      (err: unknown) => (this.goalEnd = { ok: false, why: (err as Error)?.message ?? String(err) }),
    );
    const closed = () => (this.sessionClosedAt = Date.now());
    opts.sessionClosed?.then(closed, closed);
    this.below = opts.json ? null : new DescendantApprovals(store, ids.sessionId);
  }

  /** Polls the event table until the Goal stopped (and its open turn settled) or ended otherwise. */
  async run(): Promise<GoalStop> {
    for (;;) {
      if (this.opts.signal?.aborted) throw new ZunoError('aborted', 'stopped following');
      const endedBeforePoll = this.goalEnd;
      const events: EventRow[] = await this.store.listEvents(this.ids.sessionId, this.after, 500);
      for (const e of events) await this.onEvent(e);
      const { state } = this.opts;
      const settled = !state.turnOpen || (state.settleBy !== undefined && Date.now() >= state.settleBy);
      if (this.stop && settled) return this.finalStop(this.stop);
      if (endedBeforePoll && events.length === 0) return this.endedWithoutStop(endedBeforePoll);
      this.refuseGoneSession();
      if (this.below && Date.now() - this.watchedAtMs >= WATCH_EVERY_MS) {
        this.watchedAtMs = Date.now();
        await offerDescendantApprovals(this.below, null, (t) => this.opts.sink.err(t));
      }
      if (events.length < 500) await new Promise((r) => setTimeout(r, TAIL_EVERY_MS));
    }
  }

  /** Renders one event and tracks the open turn and this Goal's status. */
  private async onEvent(e: EventRow): Promise<void> {
    const { json, sink, state } = this.opts;
    this.after = e.seq;
    if (json) sink.out(eventToJsonLine(e));
    else this.human.render(e);
    if (e.type === EV.turnStarted) {
      state.turnOpen = true;
      const d = parseEvent(e);
      if (!json && d?.type === EV.turnStarted && d.data.trigger === 'goal_continuation')
        sink.err(`(turn ${d.data.turn + 1}: the goal continues on its own)\n`);
    } else if (TURN_END_EVENTS.has(e.type)) {
      state.turnOpen = false;
    } else if (e.type === EV.goalStatus) {
      const d = parseEvent(e);
      if (d?.type !== EV.goalStatus || d.data.goalId !== this.ids.goalId) return;
      if (FOLLOWED_GOAL_STATUSES.has(d.data.status as GoalStatus)) {
        this.stop = null; // resumed meanwhile: it works again
        if (!json) await sayWaiting(this.store, this.ids.goalId, d.data, sink);
      } else {
        this.stop = await stopOf(this.store, this.ids, d.data);
      }
    }
  }

  /** A completed goal closes once its completing turn reported what it spent: prefer that final snapshot. */
  private async finalStop(stop: GoalStop): Promise<GoalStop> {
    if (stop.status !== 'completed') return stop;
    await Promise.race([this.opts.goalClosed.catch(() => undefined), new Promise((r) => setTimeout(r, FINAL_WAIT_MS))]);
    const end = this.goalEnd;
    return end?.ok ? stopFromSnapshot(end.snapshot) : stop;
  }

  /** The Goal's workflow closed and no stop event is left to read. @throws ZunoError `goal_ended`. */
  private endedWithoutStop(end: GoalEnd): GoalStop {
    if (end.ok) return stopFromSnapshot(end.snapshot);
    throw new ZunoError(
      'goal_ended',
      `goal ${this.ids.goalId}'s workflow ended without finishing (${end.why}); \`zuno goal show ${this.ids.goalId}\` shows where it stood`,
    );
  }

  /** @throws ZunoError `session_gone` when the session closed 15 s ago and the Goal said nothing. */
  private refuseGoneSession(): void {
    if (this.stop || this.sessionClosedAt === undefined) return;
    if (Date.now() - this.sessionClosedAt <= SESSION_GONE_GRACE_MS) return;
    throw new ZunoError(
      'session_gone',
      `the session ${this.ids.sessionId} of goal ${this.ids.goalId} ended while the goal was working; \`zuno goal show ${this.ids.goalId}\` shows where it stood`,
    );
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
  } else if (d.status === 'waiting_watch') {
    const snap = (await rowAt(store, goalId, d.revision)) ?? null;
    sink.err(
      `${snap ? watchingLine(snap) : 'waiting for its release watch'}: no turn runs and no token is spent until it reports\n`,
    );
  } else if (d.status === 'waiting_background') {
    const ids = st?.status === 'waiting_background' ? st.taskIds : [];
    sink.err(
      ids.length === 0
        ? 'waiting for CI: a remote observer is running\n'
        : `waiting for CI: remote observer${ids.length > 1 ? 's' : ''} ${ids.join(', ')} ${ids.length > 1 ? 'are' : 'is'} running\n`,
    );
  }
}
