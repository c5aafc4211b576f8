/**
 * The stored record of an attempt, read through the CLI's JSON outputs
 * (`zuno session show --json`, `zuno goal show --json`, `zuno council show
 * --json`): only the fields the checkers and the metrics use.
 */
import { zunoJson, type ZunoEnv } from './zuno.js';

/** A stored tool call (`toolCalls[]` of `session show --json`). */
export interface ToolCallRow {
  callId: string;
  tool: string;
  argsJson: string;
  status: string;
  outcome: string | null;
  output: string | null;
  startedAtMs: number | null;
  endedAtMs: number | null;
  result: {
    receipt?: { id: string; command: string; verdict: string; authority: string; exitCode: number | null };
  } | null;
}

/** A delegation of the session (`delegations[]`). */
export interface DelegationRow {
  childSessionId: string | null;
  agent: string;
  status: string;
  report: string | null;
}

/** `zuno session show --json`, narrowed. */
export interface SessionRecord {
  session: { id: string; status: string; agent: string; finalText: string | null; workspace: string };
  toolCalls: ToolCallRow[];
  delegations: DelegationRow[];
  usage: { cumulative?: { tokens?: Record<string, number> } } | null;
}

/** `zuno goal show --json`, narrowed. */
export interface GoalRecord {
  goal: {
    goalId: string;
    sessionId: string;
    state: { status: string };
    spent: { tokens: number; toolCalls: number; turns: number };
    criteria: { id: string; check?: string; status: string; evidence?: { receiptId?: string; callId?: string } }[];
  };
}

/** A Council seat (`seats[]` of `council show --json`). */
export interface SeatRow {
  agent: string;
  status: string;
  validity: string;
  childSessionIds: string[];
  usage: { inputTokens?: number; outputTokens?: number } | null;
}

/** `zuno council show --json`, narrowed. */
export interface CouncilRecord {
  id: string;
  status: string;
  synthesis: string | null;
  seats: SeatRow[];
}

/** The stored session `id`. @throws when `zuno session show` fails. */
export function showSession(z: ZunoEnv, id: string): Promise<SessionRecord> {
  return zunoJson<SessionRecord>(['session', 'show', id], z);
}

/** The stored Goal `id`. @throws when `zuno goal show` fails. */
export function showGoal(z: ZunoEnv, id: string): Promise<GoalRecord> {
  return zunoJson<GoalRecord>(['goal', 'show', id], z);
}

/** The stored Council `id`. @throws when `zuno council show` fails. */
export function showCouncil(z: ZunoEnv, id: string): Promise<CouncilRecord> {
  return zunoJson<CouncilRecord>(['council', 'show', id], z);
}

/** Tokens a session spent: the sum of its cumulative token buckets (0 when none were recorded). */
export function sessionTokens(s: SessionRecord): number {
  return Object.values(s.usage?.cumulative?.tokens ?? {}).reduce((a, b) => a + b, 0);
}
