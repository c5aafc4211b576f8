import type { GoalTurnSource } from '../core/goal/contract.js';
import { type GoalState, TERMINAL_GOAL_STATUSES } from '../core/goal/status.js';

/** What a Goal makes of a turn of its session that started (GL5, GL28). */
export interface TurnStart {
  /** The Goal owns the turn: its end is decided by {@link decideAfterTurn} (goal-decide.ts) and counted. */
  owned: boolean;
  /** GL5: input ends a backoff early; the Goal is active again because of this (`user input`, `a background report`). */
  endsBackoff: string | null;
}

/**
 * A turn of the Goal's session started: the Goal owns it when it advances
 * (active, backoff, waiting_background) and the turn is not a discussion
 * (GL36); a user input or a background report ends a backoff. Pure.
 */
export function turnStarted(status: GoalState['status'], source: GoalTurnSource): TurnStart {
  const advancing = status === 'active' || status === 'backoff' || status === 'waiting_background';
  const wakes = status === 'backoff' && (source.kind === 'user' || source.kind === 'report');
  return {
    owned: source.kind !== 'discussion' && advancing,
    endsBackoff: wakes ? (source.kind === 'user' ? 'user input' : 'a background report') : null,
  };
}

/**
 * What a Goal does with a turn that ended: `count` — the Goal ended (the
 * turn that completed it): its spending is counted, nothing else follows;
 * `ignore` — a turn the Goal did not own (GL28) spends nothing and resumes
 * nothing; `decide` — the Goal's next state follows from the turn. A
 * continuation is always the Goal's own. Pure.
 */
export function turnEndPath(
  status: GoalState['status'],
  owned: boolean,
  source: GoalTurnSource,
): 'count' | 'ignore' | 'decide' {
  if (TERMINAL_GOAL_STATUSES.has(status)) return 'count';
  if (!owned && source.kind !== 'continuation') return 'ignore';
  return 'decide';
}
