/**
 * What an attempt cost, read from the stored record: tokens (every bucket:
 * input, cached input, output, reasoning) and tool calls, a delegating
 * session's children and a Council's seats included.
 */
import { sessionTokens, showCouncil, showGoal, showSession } from './receipts.js';
import type { Attempt, TaskDef } from './types.js';
import type { ZunoEnv } from './zuno.js';

/** Tokens and tool calls of one attempt. */
export interface Cost {
  tokens: number;
  toolCalls: number;
}

/** A session's cost plus its delegated children's (one level, as the tasks delegate). */
async function sessionCost(z: ZunoEnv, id: string): Promise<Cost> {
  const s = await showSession(z, id);
  const cost = { tokens: sessionTokens(s), toolCalls: s.toolCalls.length };
  for (const d of s.delegations) {
    if (!d.childSessionId) continue;
    const child = await showSession(z, d.childSessionId);
    cost.tokens += sessionTokens(child);
    cost.toolCalls += child.toolCalls.length;
  }
  return cost;
}

/** The synthesis' usage from `council run --json` output ({council, result}), 0 when it is not there. */
function synthesisTokens(stdout: string): number {
  try {
    const u = (JSON.parse(stdout) as { result?: { synthesisUsage?: Record<string, number> } }).result?.synthesisUsage;
    return (u?.inputTokens ?? 0) + (u?.outputTokens ?? 0);
  } catch {
    return 0;
  }
}

/** A Council's cost: its seats' usage and tool calls (every attempt's child session) and the synthesis. */
async function councilCost(z: ZunoEnv, id: string, stdout: string): Promise<Cost> {
  const c = await showCouncil(z, id);
  const cost = { tokens: synthesisTokens(stdout), toolCalls: 0 };
  for (const seat of c.seats) {
    cost.tokens += (seat.usage?.inputTokens ?? 0) + (seat.usage?.outputTokens ?? 0);
    for (const child of seat.childSessionIds) cost.toolCalls += (await showSession(z, child)).toolCalls.length;
  }
  return cost;
}

/** The attempt's cost, or null when its record cannot be read (no id printed, or the show command failed). */
export async function attemptCost(task: TaskDef, attempt: Attempt, z: ZunoEnv): Promise<Cost | null> {
  try {
    if (task.mode === 'council') {
      return attempt.councilId ? await councilCost(z, attempt.councilId, attempt.command.stdout) : null;
    }
    if (task.mode === 'goal') {
      if (!attempt.goalId) return null;
      const g = await showGoal(z, attempt.goalId);
      return { tokens: g.goal.spent.tokens, toolCalls: g.goal.spent.toolCalls };
    }
    return attempt.sessionId ? await sessionCost(z, attempt.sessionId) : null;
  } catch {
    return null;
  }
}
