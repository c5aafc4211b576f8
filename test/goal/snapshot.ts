import type { GoalSnapshot } from '../../core/goal/contract.js';

/**
 * A Goal snapshot for the pure tests of the Goal's transitions: active, at
 * revision 2, one criterion that needs evidence, nothing spent; `over`
 * replaces any field.
 */
export function goalSnapshot(over: Partial<GoalSnapshot> = {}): GoalSnapshot {
  return {
    goalId: 'goal_x',
    sessionId: 'ses_x',
    objective: 'make it pass',
    revision: 2,
    state: { status: 'active' },
    budgets: {},
    spent: { tokens: 0, unmeasuredRequests: 0, toolCalls: 0, turns: 0 },
    criteria: [{ id: 'cr_1', text: 'tests pass', needsEvidence: true, status: 'pending' }],
    progress: { fingerprint: null, repeats: 0 },
    createdAtMs: 0,
    updatedAtMs: 0,
    ...over,
  };
}
