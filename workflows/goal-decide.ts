import { DEFAULT_GOAL_BACKOFF, goalBackoffDelayMs } from '../core/goal/backoff.js';
import { budgetStop } from '../core/goal/budgets.js';
import type { GoalSnapshot, GoalTurnReport } from '../core/goal/contract.js';
import { type GoalPauseReason, type GoalState, SESSION_PAUSE_REASONS } from '../core/goal/status.js';

/**
 * Backoffs in a row after which a Goal stops retrying and blocks
 * `retries_exhausted` (decided, docs/goals.md: the seeds give no cap; at the
 * 15-minute delay cap twenty attempts span about 4 h 30 min of waiting).
 */
export const MAX_BACKOFF_ATTEMPTS = 20;

/** Turns in a row with the same progress fingerprint that pause a Goal `no_progress` (GL23). */
export const NO_PROGRESS_TURNS = 3;

/** What a Goal-owned turn's end decides. */
export interface TurnDecision {
  state: GoalState;
  /** Backoff attempts in a row (0 after a turn that did not fail). */
  attempt: number;
  spent: GoalSnapshot['spent'];
  progress: GoalSnapshot['progress'];
  /** GL17: the typed notice of a budget stop (`budget.<kind>`). */
  notice?: { code: string; message: string };
  uncertain?: GoalSnapshot['uncertain'];
}

type Ended = Extract<GoalTurnReport, { event: 'ended' }>;

/**
 * The Goal's next state after one of its turns ended (GL3–GL10, GL16,
 * GL22–GL26, GL33). Deterministic (`random` is the workflow's). Order, first
 * match wins:
 * 1. a stop the Goal produced during the turn (completed by `goal_update`,
 *    paused by `goal_request_input`, paused or cancelled by a person) stands;
 * 2. an unknown outcome of a call → paused `uncertain_side_effect` (GL9: never relabelled);
 * 3. the turn's own end (budgets, step 4, come before a backoff): interrupted → paused `user_interrupt`; paused →
 *    paused with its reason; blocked → blocked; `stagnant_tool_loop` → paused
 *    `no_progress`; a retryable failure (GL5) → one persisted backoff
 *    honouring the peer's Retry-After (GL6); any other failure → blocked;
 * 4. budgets (GL16 precedence in core/goal/budgets.ts);
 * 5. the progress fingerprint: the third turn in a row that changed nothing
 *    and left the same work state → paused `no_progress` (GL23);
 * 6. a remote observer still running → `waiting_background` (GL26);
 * 7. otherwise active: the Goal continues.
 */
export function decideAfterTurn(
  snap: GoalSnapshot,
  r: Ended,
  attempt: number,
  nowMs: number,
  random: () => number,
): TurnDecision {
  const spent = spentAfter(snap, r);
  const progress = progressAfter(snap, r);
  const base = { spent, progress, attempt: 0 };
  const s = snap.state.status;
  if (s !== 'active' && s !== 'backoff' && s !== 'waiting_background') return { ...base, state: snap.state, attempt };
  if (r.uncertain.length > 0) return { ...base, uncertain: r.uncertain, state: uncertainPause(r.uncertain) };
  const stopped = budgetDecision(snap, r, spent, nowMs, base);
  if (r.outcome.kind !== 'final_answer') {
    return outcomeDecision(r.outcome, base, stopped) ?? retryDecision(r, attempt, nowMs, random, base);
  }
  if (stopped) return stopped;
  if (progress.repeats >= NO_PROGRESS_TURNS) {
    const message = `${progress.repeats} turns in a row changed nothing and left the same work state`;
    return { ...base, state: { status: 'paused', reason: 'no_progress', message } };
  }
  if (r.background.remoteObservers.length > 0) {
    return { ...base, state: { status: 'waiting_background', taskIds: r.background.remoteObservers } };
  }
  return { ...base, state: { status: 'active' } };
}

/** What a decision carries whatever it decides: the Goal's spending and progress after the turn, attempts reset. */
type DecisionBase = Pick<TurnDecision, 'spent' | 'progress' | 'attempt'>;

/** GL10–GL15: the Goal's spending with the turn's added (one turn more). */
function spentAfter(snap: GoalSnapshot, r: Ended): GoalSnapshot['spent'] {
  return {
    tokens: snap.spent.tokens + r.usage.tokens,
    unmeasuredRequests: snap.spent.unmeasuredRequests + r.usage.unmeasured,
    toolCalls: snap.spent.toolCalls + r.toolCalls,
    turns: snap.spent.turns + 1,
  };
}

/**
 * GL23: the progress fingerprint of an answered turn that changed nothing
 * (work state, Goal revision, criteria decided) and how many turns in a row
 * left it; any other turn resets it.
 */
function progressAfter(snap: GoalSnapshot, r: Ended): GoalSnapshot['progress'] {
  if (r.changes > 0 || r.outcome.kind !== 'final_answer') return { fingerprint: null, repeats: 0 };
  const satisfied = snap.criteria.filter((c) => c.status !== 'pending').length;
  const fingerprint = `${r.progress}|goal:${snap.revision}|satisfied:${satisfied}`;
  return { fingerprint, repeats: fingerprint === snap.progress.fingerprint ? snap.progress.repeats + 1 : 1 };
}

/** GL9: the pause of a Goal whose turn left unknown outcomes (never relabelled). */
function uncertainPause(uncertain: Ended['uncertain']): GoalState {
  const calls = uncertain.map((u) => `${u.tool} ${u.callId}`).join(', ');
  return {
    status: 'paused',
    reason: 'uncertain_side_effect',
    message: `the outcome of ${calls} is unknown; check what it did, then choose Resume goal or Keep paused`,
  };
}

/** GL16: the stop a budget makes after this turn (budget_limited, or paused for a time cap), with its notice; else null. */
function budgetDecision(
  snap: GoalSnapshot,
  r: Ended,
  spent: GoalSnapshot['spent'],
  nowMs: number,
  base: DecisionBase,
): TurnDecision | null {
  const userTokens = snap.budgets.tokens?.source === 'user';
  const stop = budgetStop(snap.budgets, {
    tokens: spent.unmeasuredRequests > 0 && userTokens ? null : spent.tokens,
    turnTokens: r.usage.unmeasured > 0 && userTokens ? null : r.usage.tokens,
    toolCalls: spent.toolCalls,
    elapsedMs: nowMs - snap.createdAtMs,
  });
  if (!stop) return null;
  return {
    ...base,
    state:
      stop.status === 'budget_limited'
        ? { status: 'budget_limited', kind: stop.kind, message: stop.message }
        : { status: 'paused', reason: stop.kind, message: stop.message },
    notice: { code: stop.notice, message: stop.message },
  };
}

/**
 * The decision a turn's own end makes when it did not answer: interrupted,
 * paused, blocked, a stagnant loop, a failure that is not retryable; null
 * for a retryable failure (see {@link retryDecision}).
 */
function outcomeDecision(
  o: Exclude<Ended['outcome'], { kind: 'final_answer' }>,
  base: DecisionBase,
  stopped: TurnDecision | null,
): TurnDecision | null {
  switch (o.kind) {
    case 'interrupted':
      return { ...base, state: { status: 'paused', reason: 'user_interrupt', message: 'the turn was interrupted' } };
    case 'paused': {
      // A session pause the Goal shares (its session waits for resume); any other pause asks for input.
      const shared = SESSION_PAUSE_REASONS.has(o.reason as GoalPauseReason);
      const reason = shared ? (o.reason as GoalPauseReason) : 'required_input';
      return { ...base, state: { status: 'paused', reason, message: o.message } };
    }
    case 'blocked':
      return { ...base, state: { status: 'blocked', code: o.code, message: o.message } };
  }
  const code = o.kind === 'limit' ? o.limit : o.code;
  if (code === 'stagnant_tool_loop')
    return { ...base, state: { status: 'paused', reason: 'no_progress', message: o.message } };
  const retryable = o.kind === 'limit' ? code === 'turn_step_limit' : o.retryable === true;
  if (!retryable) return { ...base, state: { status: 'blocked', code, message: o.message } };
  return stopped; // GL16: caps beat continuing
}

/** GL5, GL6: a retryable failure's persisted backoff (honouring Retry-After), or blocked `retries_exhausted` after {@link MAX_BACKOFF_ATTEMPTS}. */
function retryDecision(
  r: Ended,
  attempt: number,
  nowMs: number,
  random: () => number,
  base: DecisionBase,
): TurnDecision {
  const o = r.outcome as Extract<Ended['outcome'], { kind: 'limit' | 'failed' }>;
  const code = o.kind === 'limit' ? o.limit : o.code;
  const next = attempt + 1;
  if (next > MAX_BACKOFF_ATTEMPTS) {
    const message = `${attempt} retryable failures in a row, the last ${code}: ${o.message}`;
    return { ...base, attempt, state: { status: 'blocked', code: 'retries_exhausted', message } };
  }
  const delayMs = goalBackoffDelayMs(next, random(), DEFAULT_GOAL_BACKOFF, r.retryAfterMs);
  return { ...base, attempt: next, state: { status: 'backoff', untilMs: nowMs + delayMs, attempt: next, cause: code } };
}
