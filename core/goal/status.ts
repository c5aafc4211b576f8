/**
 * Goal status and typed stop reasons (GL1, GL2; SEED-GAP decided in
 * docs/goals.md): one status field with a typed reason, and the transitions
 * a Goal may take. Pure.
 */

/** Why a paused Goal is paused (GL2). */
export type GoalPauseReason =
  | 'no_progress'
  | 'uncertain_side_effect'
  | 'turn_budget'
  | 'usage_unknown'
  | 'user_interrupt'
  | 'required_input'
  | 'provider_auth'
  /** Issue 33: its session's workspace is missing on its host; the session is paused with the Goal. */
  | 'workspace_unavailable';

/** Pause reasons a Goal shares with its paused session: resuming the Goal resumes the session's paused turn. */
export const SESSION_PAUSE_REASONS: ReadonlySet<GoalPauseReason> = new Set(['provider_auth', 'workspace_unavailable']);

/** Why a Goal's overall budget stopped it (GL10, GL14, GL17: notice code `budget.<kind>`). */
export type GoalBudgetKind = 'token_budget' | 'tool_call_budget' | 'time_budget';

/**
 * The Goal's status (`ZunoGoalStatus` in the Temporal UI is `status`):
 * - `active`: it keeps advancing (GL1);
 * - `backoff`: active, waiting out one persisted retry delay (GL5) — user input ends the wait early;
 * - `waiting_background`: active, a remote observer runs; no auto-continuation until it reports (GL26);
 * - `waiting_watch`: a release watch checks a URL before the Goal's first turn (issue 31); no session, no tokens yet;
 * - `paused` with a {@link GoalPauseReason}: a person must act (resume, answer, Resume goal / Keep paused);
 * - `blocked` with a code: the setup or durable state is broken (GL7);
 * - `budget_limited` with a {@link GoalBudgetKind}: the overall budget is spent (GL10);
 * - `completed`: the completion audit passed (GL30–GL32);
 * - `cancelled`: the user cancelled the Goal (a Goal state the seeds do not name; not the legacy Plan-step value).
 */
export type GoalState =
  | { status: 'active' }
  | { status: 'backoff'; untilMs: number; attempt: number; cause: string }
  | { status: 'waiting_background'; taskIds: string[] }
  | { status: 'waiting_watch' }
  | { status: 'paused'; reason: GoalPauseReason; message: string }
  | { status: 'blocked'; code: string; message: string }
  | { status: 'budget_limited'; kind: GoalBudgetKind; message: string }
  | { status: 'completed' }
  | { status: 'cancelled'; by: string };

/** The values of `ZunoGoalStatus`. */
export type GoalStatus = GoalState['status'];

/** Statuses in which a Goal advances by itself or through its own turns (its turns may settle and complete it). */
export const ADVANCING: ReadonlySet<GoalStatus> = new Set(['active', 'backoff', 'waiting_background']);

/** Statuses a Goal never leaves. */
export const TERMINAL_GOAL_STATUSES: ReadonlySet<GoalStatus> = new Set(['completed', 'cancelled']);

/** Statuses in which the Goal may start a continuation turn by itself (GL22). */
export function mayAutoContinue(s: GoalState): boolean {
  return s.status === 'active';
}

/**
 * Whether `from` may move to `to` (the transition table the seeds leave
 * open, GL2 SEED-GAP). Terminal statuses move nowhere; `completed` is
 * reached only from an advancing Goal — `active`, or `waiting_background` /
 * `backoff` whose own report or user turn runs the audit (a paused Goal
 * cannot be completed from an independent input, GL31);
 * `cancelled` from anything not terminal; a paused, blocked or
 * budget-limited Goal becomes `active` only by an explicit resume (checked
 * by the caller, bound to goal id + revision).
 */
export function canTransition(from: GoalState, to: GoalState): boolean {
  if (TERMINAL_GOAL_STATUSES.has(from.status)) return false;
  if (to.status === 'cancelled') return true;
  if (to.status === 'completed') return ADVANCING.has(from.status);
  // active → active changes nothing; every other move (a new pause reason included) is a transition.
  return !(from.status === 'active' && to.status === 'active');
}

/** Every {@link GoalStatus}, in the order people read them (`zuno goal list --status` accepts exactly these). */
export const GOAL_STATUSES = [
  'active',
  'backoff',
  'waiting_background',
  'waiting_watch',
  'paused',
  'blocked',
  'budget_limited',
  'completed',
  'cancelled',
] as const satisfies readonly GoalStatus[];

// The list names every status: a status added to GoalState without it here does not compile.
type Unlisted = Exclude<GoalStatus, (typeof GOAL_STATUSES)[number]>;
const _everyStatusListed: Unlisted extends never ? true : never = true;
void _everyStatusListed;
