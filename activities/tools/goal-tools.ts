/**
 * Bodies of the Goal tools (GL38–GL40): `goal_get`, `goal_update`,
 * `goal_request_input`. They reach the session's Goal through
 * `ctx.goal` (activities/goal/goal-port.ts: the `goal` workflow owns it).
 * Refusals are typed `isError` results the model reads; nothing is changed
 * by a refused call (GL30: criteria and completion roll back together).
 */
import { formatDuration } from '../../core/goal/budgets.js';
import type { GoalSnapshot } from '../../core/goal/contract.js';
import {
  type GoalGetArgs,
  type GoalRequestInputArgs,
  type GoalUpdateArgs,
  receiptIdOf,
} from '../../core/tools/goal.js';
import type { ToolResult } from '../../core/tools/types.js';
import type { ToolContext } from './context.js';
import type { ToolBody } from './tool-body.js';

const NO_GOAL: ToolResult = {
  output: 'This session has no goal: goal tools work only in a session a goal drives (zuno goal start).',
  isError: true,
  errorCode: 'no_goal',
};

/** The failure of reaching the goal workflow itself (closed, unreachable) as a typed result. */
function unreachable(err: unknown): ToolResult {
  const message = (err as Error).message ?? String(err);
  const closed = /completed|not found|already/i.test(message);
  return {
    output: closed
      ? 'The goal has ended (completed or cancelled): it takes no more changes.'
      : `The goal could not be reached: ${message}`,
    isError: true,
    errorCode: closed ? 'goal_closed' : 'goal_unreachable',
  };
}

/** The Goal as the model reads it: plain text plus the snapshot in `data`. */
export function renderGoal(s: GoalSnapshot): string {
  const st = s.state;
  const reason =
    'reason' in st ? ` (${st.reason})` : 'kind' in st ? ` (${st.kind})` : 'code' in st ? ` (${st.code})` : '';
  const lines = [
    `goal ${s.goalId} · revision ${s.revision} · ${st.status}${reason}`,
    `objective: ${s.objective}`,
    `turns: ${s.spent.turns} · tool calls: ${s.spent.toolCalls} · tokens: ${s.spent.tokens}`,
  ];
  const b = s.budgets;
  const budgets = [
    ...(b.tokens ? [`tokens ${b.tokens.limit}`] : []),
    ...(b.turnTokens !== undefined ? [`per turn ${b.turnTokens} tokens`] : []),
    ...(b.toolCalls !== undefined ? [`tool calls ${b.toolCalls}`] : []),
    ...(b.timeMs !== undefined ? [`time ${formatDuration(b.timeMs)}`] : []),
  ];
  if (budgets.length) lines.push(`budgets: ${budgets.join(', ')}`);
  if (s.criteria.length === 0) lines.push('criteria: none (the goal may complete once its work is done)');
  for (const c of s.criteria) {
    lines.push(
      `- ${c.id} [${c.status}] ${c.text}${c.check ? ` (owned by the check \`${c.check}\`: only its passing, fresh receipt counts)` : c.needsEvidence ? ' (needs evidence)' : ''}${c.evidence ? ` — [verification ${c.evidence.receiptId}]` : ''}`,
    );
  }
  return lines.join('\n');
}

/** `goal_get`: the Goal as its workflow holds it now. */
export const goalGetTool: ToolBody<GoalGetArgs> = {
  needsGoal: true,
  async run(_args, ctx: ToolContext) {
    if (!ctx.goal) return NO_GOAL;
    try {
      const s = await ctx.goal.get();
      return { output: renderGoal(s), isError: false, data: { goal: s } };
    } catch (err) {
      return unreachable(err);
    }
  },
};

/** `goal_update`: criteria added and settled, and the goal completed, in one atomic commit (GL30). */
export const goalUpdateTool: ToolBody<GoalUpdateArgs> = {
  needsGoal: true,
  async run(args, ctx: ToolContext) {
    if (!ctx.goal) return NO_GOAL;
    try {
      const r = await ctx.goal.update({
        expectedRevision: args.expected_revision,
        ...(args.add_criteria
          ? {
              add: args.add_criteria.map((a) => ({
                text: a.text,
                needsEvidence: a.needs_evidence === true || a.check !== undefined,
                ...(a.check !== undefined ? { check: a.check } : {}),
              })),
            }
          : {}),
        ...(args.settle
          ? {
              settle: args.settle.map((s) => {
                const receiptId = s.evidence ? receiptIdOf(s.evidence) : null;
                return { id: s.id, status: s.status, ...(receiptId ? { receiptId } : {}) };
              }),
            }
          : {}),
        ...(args.complete ? { complete: true } : {}),
      });
      if (!r.ok) {
        return {
          output: `goal_update refused (${r.code}); nothing changed, the goal stays at revision ${r.revision} (${r.status}):\n${r.problems.map((p) => `- ${p}`).join('\n')}`,
          isError: true,
          errorCode: r.code,
          data: { result: r },
        };
      }
      const done = r.status === 'completed' ? ' The goal is completed.' : '';
      return {
        output: `goal_update committed: revision ${r.revision}, ${r.status}.${done}`,
        isError: false,
        data: { result: r },
      };
    } catch (err) {
      return unreachable(err);
    }
  },
};

/** `goal_request_input`: the goal pauses until the user answers this question (GL39). */
export const goalRequestInputTool: ToolBody<GoalRequestInputArgs> = {
  needsGoal: true,
  async run(args, ctx: ToolContext) {
    if (!ctx.goal) return NO_GOAL;
    try {
      const r = await ctx.goal.requestInput(args.expected_revision, args.question);
      if (!r.ok)
        return { output: `goal_request_input refused (${r.code}): ${r.message}`, isError: true, errorCode: r.code };
      return {
        output: `The question is with the user (request ${r.requestId}); the goal is paused until they answer. End your turn now: say what you asked and why.`,
        isError: false,
        data: { requestId: r.requestId, revision: r.revision },
      };
    } catch (err) {
      return unreachable(err);
    }
  },
};
