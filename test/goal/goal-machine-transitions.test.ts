import { describe, expect, it } from 'vitest';
import type { GoalSnapshot, GoalTurnReport } from '../../core/goal/contract.js';
import type { TurnOutcome } from '../../core/session/outcome.js';
import { applyControl } from '../../workflows/goal-control.js';
import { decideAfterTurn, MAX_BACKOFF_ATTEMPTS, NO_PROGRESS_TURNS } from '../../workflows/goal-decide.js';
import { turnEndPath, turnStarted } from '../../workflows/goal-turns.js';
import { goalSnapshot } from './snapshot.js';

/**
 * GoalMachine's transitions without a server: what a turn's start and end
 * make of the Goal (workflows/goal-turns.ts, goal-decide.ts) and a person's
 * control (goal-control.ts). The machine applies exactly these decisions.
 */

const snap = goalSnapshot({ spent: { tokens: 10, unmeasuredRequests: 0, toolCalls: 1, turns: 1 } });

type Ended = Extract<GoalTurnReport, { event: 'ended' }>;
const ended = (end: Partial<Omit<Ended, 'outcome'>> & { outcome?: Partial<TurnOutcome> } = {}): Ended => ({
  event: 'ended',
  turn: 1,
  source: { kind: 'anchor' },
  usage: { tokens: 5, unmeasured: 0 },
  toolCalls: 2,
  changes: 0,
  uncertain: [],
  background: { running: [], remoteObservers: [] },
  progress: 'plan:1',
  workRemains: false,
  ...end,
  outcome: { turn: 1, steps: 1, inputIds: [], kind: 'final_answer', textLength: 3, ...end.outcome } as TurnOutcome,
});
const decide = (r: Ended, s: GoalSnapshot = snap, attempt = 0) => decideAfterTurn(s, r, attempt, 1_000, () => 0.5);

describe('a turn of the Goal session starts (GL5, GL28, GL36)', () => {
  it('an advancing Goal owns every turn but a discussion', () => {
    for (const st of ['active', 'backoff', 'waiting_background'] as const) {
      expect(turnStarted(st, { kind: 'anchor' }).owned).toBe(true);
      expect(turnStarted(st, { kind: 'discussion' }).owned).toBe(false);
    }
    expect(turnStarted('paused', { kind: 'user' }).owned).toBe(false);
  });

  it('user input or a background report ends a backoff early; a continuation does not', () => {
    expect(turnStarted('backoff', { kind: 'user' }).endsBackoff).toBe('user input');
    expect(turnStarted('backoff', { kind: 'report' }).endsBackoff).toBe('a background report');
    const continuation = { kind: 'continuation' as const, continuationId: 'c1', revision: 2 };
    expect(turnStarted('backoff', continuation).endsBackoff).toBeNull();
    expect(turnStarted('active', { kind: 'user' }).endsBackoff).toBeNull();
  });

  it('an ended turn is counted only once the Goal ended, ignored when not owned, else decided', () => {
    expect(turnEndPath('completed', true, { kind: 'anchor' })).toBe('count');
    expect(turnEndPath('paused', false, { kind: 'user' })).toBe('ignore');
    expect(turnEndPath('paused', false, { kind: 'continuation', continuationId: 'c', revision: 1 })).toBe('decide');
    expect(turnEndPath('active', true, { kind: 'user' })).toBe('decide');
  });
});

describe('a Goal-owned turn ends (decideAfterTurn, GL3–GL26)', () => {
  it('adds the turn to what the Goal spent and continues active', () => {
    const d = decide(ended());
    expect(d.spent).toEqual({ tokens: 15, unmeasuredRequests: 0, toolCalls: 3, turns: 2 });
    expect(d.state).toEqual({ status: 'active' });
    expect(d.attempt).toBe(0);
  });

  it('an unknown outcome pauses first, whatever the turn did (GL9)', () => {
    const uncertain = [{ callId: 'c1', tool: 'write', cause: 'lost_outcome' }];
    const d = decide(ended({ uncertain, outcome: { kind: 'interrupted' } }));
    expect(d.state).toMatchObject({ status: 'paused', reason: 'uncertain_side_effect' });
    expect(d.uncertain).toEqual(uncertain);
  });

  it("the turn's own end: interrupted, paused, blocked, a stagnant loop, a failure that will not go away", () => {
    expect(decide(ended({ outcome: { kind: 'interrupted' } })).state).toMatchObject({ reason: 'user_interrupt' });
    expect(
      decide(ended({ outcome: { kind: 'paused', reason: 'provider_auth', message: 'key' } as TurnOutcome })).state,
    ).toMatchObject({ status: 'paused', reason: 'provider_auth' });
    expect(decide(ended({ outcome: { kind: 'blocked', code: 'x', message: 'm' } as TurnOutcome })).state).toEqual({
      status: 'blocked',
      code: 'x',
      message: 'm',
    });
    const stagnant = { kind: 'limit', limit: 'stagnant_tool_loop', message: 'again' } as TurnOutcome;
    expect(decide(ended({ outcome: stagnant })).state).toMatchObject({ status: 'paused', reason: 'no_progress' });
    const fatal = { kind: 'failed', code: 'provider_bad_request', message: 'no' } as TurnOutcome;
    expect(decide(ended({ outcome: fatal })).state).toMatchObject({ status: 'blocked', code: 'provider_bad_request' });
  });

  it('a retryable failure backs off (honouring Retry-After), until the attempts run out (GL5, GL6)', () => {
    const flaky = { kind: 'failed', code: 'provider_unavailable', message: '503', retryable: true } as TurnOutcome;
    const d = decide(ended({ outcome: flaky, retryAfterMs: 60_000 }), snap, 2);
    expect(d.attempt).toBe(3);
    expect(d.state).toMatchObject({ status: 'backoff', attempt: 3, cause: 'provider_unavailable' });
    expect((d.state as { untilMs: number }).untilMs).toBeGreaterThanOrEqual(1_000 + 60_000);
    const last = decide(ended({ outcome: flaky }), snap, MAX_BACKOFF_ATTEMPTS);
    expect(last.state).toMatchObject({ status: 'blocked', code: 'retries_exhausted' });
    expect(last.attempt).toBe(MAX_BACKOFF_ATTEMPTS);
  });

  it('a budget stop beats a backoff and a continuation (GL16)', () => {
    const capped = { ...snap, budgets: { toolCalls: 3 } };
    const flaky = { kind: 'failed', code: 'provider_unavailable', message: '503', retryable: true } as TurnOutcome;
    const d = decide(ended({ outcome: flaky }), capped);
    expect(d.state).toMatchObject({ status: 'budget_limited' });
    expect(d.notice?.code).toMatch(/^budget\./);
    expect(decide(ended(), capped).state).toMatchObject({ status: 'budget_limited' });
  });

  it(`${NO_PROGRESS_TURNS} answered turns in a row that changed nothing pause the Goal (GL23)`, () => {
    let s = snap;
    const states: string[] = [];
    for (let i = 0; i < NO_PROGRESS_TURNS; i++) {
      const d = decide(ended(), s);
      s = { ...s, progress: d.progress, spent: d.spent };
      states.push(d.state.status);
    }
    expect(states).toEqual(['active', 'active', 'paused']);
    // A turn that changed something resets the count.
    expect(decide(ended({ changes: 1 }), s).progress).toEqual({ fingerprint: null, repeats: 0 });
  });

  it('a remote observer still running waits in waiting_background (GL26); a Goal that is not advancing stays', () => {
    const d = decide(ended({ background: { running: ['bg_1'], remoteObservers: ['bg_1'] } }));
    expect(d.state).toEqual({ status: 'waiting_background', taskIds: ['bg_1'] });
    const paused: GoalSnapshot = { ...snap, state: { status: 'paused', reason: 'user_interrupt', message: 'm' } };
    expect(decide(ended(), paused, 4)).toMatchObject({ state: paused.state, attempt: 4 });
  });
});

describe("a person's control (applyControl, GL27)", () => {
  it('pause and cancel move the revision; the directive is empty', () => {
    const paused = applyControl(snap, { action: 'pause' } as never, 5);
    expect(paused.next).toMatchObject({ revision: 3, updatedAtMs: 5, state: { status: 'paused' } });
    const cancelled = applyControl(snap, { action: 'cancel', by: 'ann' } as never, 5);
    expect(cancelled.next?.state).toEqual({ status: 'cancelled', by: 'ann' });
  });
});
