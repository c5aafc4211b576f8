import { describe, expect, it } from 'vitest';
import type { GoalTurnReport } from '../../core/goal/contract.js';
import { decideAfterTurn, MAX_BACKOFF_ATTEMPTS } from '../../workflows/goal-decide.js';
import { applyGoalUpdate } from '../../workflows/goal-update.js';
import { goalSnapshot } from './snapshot.js';

/** The pure parts of the goal workflow: the atomic goal_update (GL30–GL32) and the backoff cap. */
const snap = goalSnapshot({
  revision: 4,
  criteria: [
    { id: 'cr_1', text: 'tests pass', needsEvidence: true, status: 'pending' },
    { id: 'cr_2', text: 'docs updated', needsEvidence: false, status: 'pending' },
  ],
});

describe('goal_update', () => {
  it('never lets the model drop a criterion that needs evidence, and rolls the whole call back', () => {
    const out = applyGoalUpdate(
      snap,
      {
        expectedRevision: 4,
        settle: [
          { id: 'cr_2', status: 'satisfied' },
          { id: 'cr_1', status: 'dropped' },
        ],
        complete: true,
        receipts: {},
        turn: 0,
      },
      10,
    );
    expect(out.next).toBeUndefined();
    expect(out.result).toMatchObject({ ok: false, code: 'update_refused', revision: 4 });
    expect(out.result.ok === false && out.result.problems).toEqual([
      "cr_1 needs evidence: it is satisfied by a passing check's receipt, it cannot be dropped",
    ]);
  });

  it('refuses a cited receipt that is not one of the session, even on a criterion without evidence', () => {
    const out = applyGoalUpdate(
      snap,
      {
        expectedRevision: 4,
        settle: [{ id: 'cr_2', status: 'satisfied', receiptId: 'rcp_0000000000000000' }],
        receipts: { rcp_0000000000000000: { found: false } },
        turn: 0,
      },
      10,
    );
    expect(out.result.ok).toBe(false);
  });

  it('commits criteria and completion together with a passing authoritative receipt', () => {
    const out = applyGoalUpdate(
      snap,
      {
        expectedRevision: 4,
        settle: [
          { id: 'cr_1', status: 'satisfied', receiptId: 'rcp_1111111111111111' },
          { id: 'cr_2', status: 'dropped' },
        ],
        complete: true,
        receipts: {
          rcp_1111111111111111: { found: true, callId: 'c1', authority: 'authoritative', verdict: 'passed' },
        },
        turn: 0,
      },
      10,
    );
    expect(out.result).toMatchObject({ ok: true, revision: 5, status: 'completed' });
    expect(out.next!.criteria.map((c) => c.status)).toEqual(['satisfied', 'dropped']);
  });
});

describe('backoff cap', () => {
  const failed: Extract<GoalTurnReport, { event: 'ended' }> = {
    event: 'ended',
    turn: 1,
    source: { kind: 'continuation', continuationId: 'gc_1', revision: 4 },
    outcome: {
      turn: 1,
      steps: 1,
      inputIds: [],
      kind: 'failed',
      code: 'provider_unavailable',
      message: '503',
      retryable: true,
    },
    usage: { tokens: 0, unmeasured: 0 },
    toolCalls: 0,
    changes: 0,
    uncertain: [],
    background: { running: [], remoteObservers: [] },
    progress: '',
    workRemains: false,
  };
  it(`backs off up to ${MAX_BACKOFF_ATTEMPTS} times in a row, then blocks retries_exhausted`, () => {
    expect(decideAfterTurn(snap, failed, MAX_BACKOFF_ATTEMPTS - 1, 0, () => 0.5).state.status).toBe('backoff');
    expect(decideAfterTurn(snap, failed, MAX_BACKOFF_ATTEMPTS, 0, () => 0.5).state).toMatchObject({
      status: 'blocked',
      code: 'retries_exhausted',
    });
  });
});
