import { describe, expect, it } from 'vitest';
import { DEFAULT_GOAL_BACKOFF, goalBackoffDelayMs } from '../../core/goal/backoff.js';
import {
  budgetStop,
  formatDuration,
  parseDuration,
  parseGoalBudgets,
  type GoalUsage,
} from '../../core/goal/budgets.js';
import { canTransition, mayAutoContinue, type GoalState } from '../../core/goal/status.js';

const usage = (over: Partial<GoalUsage> = {}): GoalUsage => ({
  tokens: 100,
  turnTokens: 10,
  toolCalls: 1,
  elapsedMs: 1000,
  ...over,
});

describe('Goal backoff (GL5, GL6)', () => {
  it('is positive, grows exponentially, is jittered within ±20 % and capped', () => {
    expect(goalBackoffDelayMs(1, 0.5)).toBe(5_000);
    expect(goalBackoffDelayMs(2, 0.5)).toBe(10_000);
    expect(goalBackoffDelayMs(1, 0)).toBe(4_000);
    expect(goalBackoffDelayMs(1, 0.999999)).toBe(6_000);
    expect(goalBackoffDelayMs(30, 0.999)).toBe(DEFAULT_GOAL_BACKOFF.maxDelayMs);
    for (let a = 1; a < 40; a++) expect(goalBackoffDelayMs(a, 0)).toBeGreaterThan(0);
  });
  it("takes a peer's Retry-After over an earlier local delay, truncated to the cap", () => {
    expect(goalBackoffDelayMs(1, 0.5, DEFAULT_GOAL_BACKOFF, 60_000)).toBe(60_000);
    expect(goalBackoffDelayMs(1, 0.5, DEFAULT_GOAL_BACKOFF, 2 * 3_600_000)).toBe(DEFAULT_GOAL_BACKOFF.maxDelayMs);
    // A shorter peer value never shortens the local backoff.
    expect(goalBackoffDelayMs(3, 0.5, DEFAULT_GOAL_BACKOFF, 1_000)).toBe(20_000);
  });
  it('refuses an attempt below 1, a random outside [0, 1) and non-positive parameters', () => {
    expect(() => goalBackoffDelayMs(0, 0.5)).toThrow(RangeError);
    expect(() => goalBackoffDelayMs(1, 1)).toThrow(RangeError);
    expect(() => goalBackoffDelayMs(1, 0.5, { ...DEFAULT_GOAL_BACKOFF, initialMs: 0 })).toThrow(RangeError);
  });
});

describe('Goal budgets (GL10–GL17)', () => {
  it('stops on each kind with its typed notice and status', () => {
    expect(budgetStop({ timeMs: 1000 }, usage())).toMatchObject({
      kind: 'time_budget',
      status: 'budget_limited',
      notice: 'budget.time_budget',
    });
    expect(budgetStop({ toolCalls: 1 }, usage())).toMatchObject({ kind: 'tool_call_budget', status: 'budget_limited' });
    expect(budgetStop({ tokens: { limit: 100, source: 'user' } }, usage())).toMatchObject({
      kind: 'token_budget',
      status: 'budget_limited',
    });
    expect(budgetStop({ turnTokens: 10 }, usage())).toMatchObject({
      kind: 'turn_budget',
      status: 'paused',
      notice: 'budget.turn_budget',
    });
    expect(
      budgetStop({ tokens: { limit: 1000, source: 'user' }, turnTokens: 50, toolCalls: 5, timeMs: 5000 }, usage()),
    ).toBeNull();
  });
  it('usage it cannot measure stops only under a budget the user set (GL15)', () => {
    const unknown = usage({ tokens: null, turnTokens: null });
    expect(budgetStop({ tokens: { limit: 1000, source: 'user' } }, unknown)).toMatchObject({
      kind: 'usage_unknown',
      status: 'paused',
    });
    expect(budgetStop({ tokens: { limit: 1000, source: 'host_default' } }, unknown)).toBeNull();
    expect(budgetStop({}, unknown)).toBeNull();
  });
  it('a stop the Goal already produced wins over every cap (GL16); caps are checked time, tool calls, tokens, unknown, turn', () => {
    expect(budgetStop({ timeMs: 1 }, usage(), true)).toBeNull();
    const all = { timeMs: 1, toolCalls: 1, tokens: { limit: 1, source: 'user' as const }, turnTokens: 1 };
    expect(budgetStop(all, usage())?.kind).toBe('time_budget');
    expect(budgetStop({ ...all, timeMs: undefined }, usage())?.kind).toBe('tool_call_budget');
    expect(budgetStop({ ...all, timeMs: undefined, toolCalls: undefined }, usage())?.kind).toBe('token_budget');
  });
  it('reads user budgets, refusing zero, negative, fractional, absurd and malformed values with every problem named', () => {
    expect(parseGoalBudgets({ tokens: '200000', turnTokens: 5000, toolCalls: '40', time: '2h30m' })).toEqual({
      ok: true,
      budgets: { tokens: { limit: 200_000, source: 'user' }, turnTokens: 5000, toolCalls: 40, timeMs: 9_000_000 },
    });
    const bad = parseGoalBudgets({ tokens: '0', turnTokens: -5, toolCalls: '1.5', time: '40d' });
    expect(bad.ok).toBe(false);
    expect(!bad.ok && bad.problems).toEqual([
      expect.stringContaining('token budget'),
      expect.stringContaining('turn budget'),
      expect.stringContaining('tool call budget'),
      expect.stringContaining('time budget'),
    ]);
    expect(parseGoalBudgets({ tokens: 1e12 }).ok).toBe(false);
    expect(parseGoalBudgets({ time: 'soon' }).ok).toBe(false);
  });
  it('durations read and print as people write them', () => {
    expect(parseDuration('90m')).toBe(5_400_000);
    expect(parseDuration('1d2h')).toBe(93_600_000);
    expect(parseDuration('')).toBeNull();
    expect(parseDuration('2 hours')).toBeNull();
    expect(formatDuration(9_000_000)).toBe('2h30m');
    expect(formatDuration(45_000)).toBe('45s');
    expect(formatDuration(0)).toBe('0s');
  });
});

describe('Goal status transitions (GL1, GL2, GL31)', () => {
  const active: GoalState = { status: 'active' };
  const paused: GoalState = { status: 'paused', reason: 'uncertain_side_effect', message: 'x' };
  it('completes only from active; terminal statuses move nowhere; cancel from anything else', () => {
    expect(canTransition(active, { status: 'completed' })).toBe(true);
    expect(canTransition(paused, { status: 'completed' })).toBe(false);
    expect(canTransition({ status: 'waiting_background', taskIds: ['bg_1'] }, { status: 'completed' })).toBe(true);
    expect(canTransition({ status: 'completed' }, active)).toBe(false);
    expect(canTransition({ status: 'cancelled', by: 'user' }, active)).toBe(false);
    expect(canTransition(paused, { status: 'cancelled', by: 'user' })).toBe(true);
    expect(canTransition(active, active)).toBe(false);
    expect(canTransition(paused, { status: 'paused', reason: 'no_progress', message: 'y' })).toBe(true);
  });
  it('only an active Goal continues by itself (GL22)', () => {
    expect(mayAutoContinue(active)).toBe(true);
    for (const s of [
      paused,
      { status: 'backoff', untilMs: 1, attempt: 1, cause: 'x' },
      { status: 'waiting_background', taskIds: [] },
    ] as GoalState[])
      expect(mayAutoContinue(s)).toBe(false);
  });
});
