/**
 * The Goal's audit trail (issue 26 item 7): one {@link GoalTransition} per
 * status change — the revision, time, from → to with its typed reason, who
 * or what caused it, the receipts it rests on and the budgets at that point —
 * built by the `goal` workflow and kept (the newest 200) in the projection
 * row by `recordGoal`. Pure.
 */
import { MAX_TRANSITIONS_KEPT, type GoalSnapshot, type GoalTransition } from './contract.js';
import type { GoalState } from './status.js';

/** The typed reason of a Goal's status, as its projection row's `reason` column holds it (null when the status has none). Pure. */
export function goalReason(s: GoalSnapshot): string | null {
  return stateReason(s.state);
}

/** The typed reason of a state: pause reason, block code, budget kind, backoff cause, who cancelled; else null. */
export function stateReason(st: GoalState): string | null {
  switch (st.status) {
    case 'paused':
      return st.reason;
    case 'blocked':
      return st.code;
    case 'budget_limited':
      return st.kind;
    case 'backoff':
      return st.cause;
    case 'cancelled':
      return st.by;
    default:
      return null;
  }
}

/** Whether `a` and `b` are the same status with the same reason (no transition between them). */
export function sameState(a: GoalState, b: GoalState): boolean {
  return a.status === b.status && stateReason(a) === stateReason(b);
}

/**
 * The transition that brought the Goal to `next` from the state `from`
 * (null: the Goal's start), caused by `by`, resting on `evidence`.
 */
export function transitionOf(
  from: GoalState | null,
  next: GoalSnapshot,
  by: string,
  evidence: string[] = [],
): GoalTransition {
  const st = next.state;
  return {
    revision: next.revision,
    atMs: next.updatedAtMs,
    from: from?.status ?? null,
    to: st.status,
    reason: stateReason(st),
    ...('message' in st && st.message ? { message: st.message } : {}),
    by,
    ...(evidence.length > 0 ? { evidence } : {}),
    spent: { ...next.spent },
    budgets: next.budgets,
  };
}

/**
 * `kept` with `added` appended — a transition already kept (same revision
 * and target status: a retried record) is not added twice — cut to the
 * newest {@link MAX_TRANSITIONS_KEPT}.
 */
export function keepTransitions(kept: GoalTransition[], added: GoalTransition[]): GoalTransition[] {
  const key = (t: GoalTransition) => `${t.revision}:${t.to}`;
  const seen = new Set(kept.map(key));
  const out = [...kept];
  for (const t of added) {
    if (seen.has(key(t))) continue;
    seen.add(key(t));
    out.push(t);
  }
  return out.slice(-MAX_TRANSITIONS_KEPT);
}
