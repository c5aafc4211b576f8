import type { GoalBudgetKind } from './status.js';

/**
 * Goal budgets (GL10–GL18; SEED-GAP GL18 decided in docs/goals.md). Pure.
 *
 * Units: tokens are the sum of the four PR11 usage buckets of every provider
 * request (input, cache read, cache write, output) — what the provider
 * processed; tool calls count every call the Goal's turns scheduled; time is
 * wall time since the Goal started, in ms.
 */
export interface GoalBudgets {
  /** The Goal's total token allowance; `source: 'host_default'` when it came from `goal.default_token_budget` (GL13). */
  tokens?: { limit: number; source: 'user' | 'host_default' };
  /** Tokens one turn may spend (GL10: exceeding it pauses the Goal, which does not auto-continue). */
  turnTokens?: number;
  /** Tool calls the Goal may schedule in all (GL14). */
  toolCalls?: number;
  /** Wall time the Goal may run, ms (GL14). */
  timeMs?: number;
}

/** What the Goal has spent so far. `tokens`/`turnTokens` are null when some request's usage could not be measured. */
export interface GoalUsage {
  tokens: number | null;
  /** Tokens of the turn that just ran (null: unmeasured). */
  turnTokens: number | null;
  toolCalls: number;
  elapsedMs: number;
}

/** A budget stop (GL17: a notice `budget.<kind>`): the Goal's status and reason after it. */
export type BudgetStop =
  | { kind: GoalBudgetKind; status: 'budget_limited'; notice: `budget.${GoalBudgetKind}`; message: string }
  | {
      kind: 'turn_budget' | 'usage_unknown';
      status: 'paused';
      notice: `budget.${'turn_budget' | 'usage_unknown'}`;
      message: string;
    };

/**
 * The budget stop that applies after a turn, or null to go on (GL12: called
 * before and after every provider request; GL16: a stop the Goal already
 * produced wins — pass `goalStopped: true` and nothing is returned). The
 * order between caps (decided, docs/goals.md): time, then tool calls, then
 * the token total, then unmeasurable usage under a user-set token budget
 * (GL15: under the host fallback, unmeasured usage just is not counted),
 * then the per-turn allowance.
 */
export function budgetStop(b: GoalBudgets, u: GoalUsage, goalStopped = false): BudgetStop | null {
  if (goalStopped) return null;
  if (b.timeMs !== undefined && u.elapsedMs >= b.timeMs) {
    return limited(
      'time_budget',
      `the Goal ran ${formatDuration(u.elapsedMs)} of its ${formatDuration(b.timeMs)} time budget`,
    );
  }
  if (b.toolCalls !== undefined && u.toolCalls >= b.toolCalls) {
    return limited('tool_call_budget', `the Goal made ${u.toolCalls} of its ${b.toolCalls} tool calls`);
  }
  if (b.tokens !== undefined && u.tokens !== null && u.tokens >= b.tokens.limit) {
    return limited('token_budget', `the Goal spent ${u.tokens} of its ${b.tokens.limit} tokens`);
  }
  if (b.tokens?.source === 'user' && (u.tokens === null || u.turnTokens === null)) {
    return {
      kind: 'usage_unknown',
      status: 'paused',
      notice: 'budget.usage_unknown',
      message: 'a provider request reported no usage, so the token budget you set cannot be kept',
    };
  }
  if (b.turnTokens !== undefined && u.turnTokens !== null && u.turnTokens >= b.turnTokens) {
    return {
      kind: 'turn_budget',
      status: 'paused',
      notice: 'budget.turn_budget',
      message: `the last turn spent ${u.turnTokens} tokens, its allowance is ${b.turnTokens}; the next turn would spend it the same way`,
    };
  }
  return null;
}

function limited(kind: GoalBudgetKind, message: string): BudgetStop {
  return { kind, status: 'budget_limited', notice: `budget.${kind}`, message };
}

/** Largest budgets accepted: beyond these a value is a typo, not a budget. */
export const BUDGET_MAX = {
  tokens: 10_000_000_000,
  turnTokens: 100_000_000,
  toolCalls: 1_000_000,
  timeMs: 30 * 86_400_000,
};

/**
 * Reads user-given budgets (CLI flags or tool arguments: integers as strings
 * or numbers, the time as a duration like `90m`, `2h`, `1h30m`, `45s`).
 * Returns the budgets, or every problem at once, each naming its field.
 */
export function parseGoalBudgets(raw: {
  tokens?: string | number;
  turnTokens?: string | number;
  toolCalls?: string | number;
  time?: string;
}): { ok: true; budgets: GoalBudgets } | { ok: false; problems: string[] } {
  const problems: string[] = [];
  const budgets: GoalBudgets = {};
  const count = (name: string, v: string | number | undefined, max: number): number | undefined => {
    if (v === undefined) return undefined;
    const n = typeof v === 'number' ? v : /^\d+$/.test(v.trim()) ? Number(v.trim()) : NaN;
    if (!Number.isSafeInteger(n) || n < 1 || n > max) {
      problems.push(`${name} must be a whole number from 1 to ${max} (got ${JSON.stringify(v)})`);
      return undefined;
    }
    return n;
  };
  const tokens = count('token budget', raw.tokens, BUDGET_MAX.tokens);
  if (tokens !== undefined) budgets.tokens = { limit: tokens, source: 'user' };
  const turnTokens = count('turn budget', raw.turnTokens, BUDGET_MAX.turnTokens);
  if (turnTokens !== undefined) budgets.turnTokens = turnTokens;
  const toolCalls = count('tool call budget', raw.toolCalls, BUDGET_MAX.toolCalls);
  if (toolCalls !== undefined) budgets.toolCalls = toolCalls;
  if (raw.time !== undefined) {
    const ms = parseDuration(raw.time);
    if (ms === null || ms < 1000 || ms > BUDGET_MAX.timeMs) {
      problems.push(
        `time budget must be a duration from 1s to 30d, like 90m or 2h30m (got ${JSON.stringify(raw.time)})`,
      );
    } else budgets.timeMs = ms;
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, budgets };
}

/** `1d2h30m15s` (each part optional, in this order) → ms; null when malformed. */
export function parseDuration(text: string): number | null {
  const m = /^(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/.exec(text.trim());
  if (!m || text.trim() === '') return null;
  const [d, h, min, s] = m.slice(1).map((x) => (x === undefined ? 0 : Number(x)));
  return (((d! * 24 + h!) * 60 + min!) * 60 + s!) * 1000;
}

/** ms as people read a budget: `2h30m`, `45s`, `1d`. */
export function formatDuration(ms: number): string {
  let s = Math.round(ms / 1000);
  const parts: string[] = [];
  for (const [unit, size] of [
    ['d', 86_400],
    ['h', 3600],
    ['m', 60],
  ] as const) {
    if (s >= size) {
      parts.push(`${Math.floor(s / size)}${unit}`);
      s %= size;
    }
  }
  if (s > 0 || parts.length === 0) parts.push(`${s}s`);
  return parts.join('');
}
