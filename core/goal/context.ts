import { formatDuration } from './budgets.js';
import type { GoalSnapshot } from './contract.js';

/** Segment id of the Goal's runtime context in the system prompt (GL19, GL20). */
export const GOAL_SEGMENT_ID = 'runtime.goal';
/** Longest objective shown, in characters (the rest is cut with a marker). */
const OBJECTIVE_SHOWN = 2000;
/** Criteria shown (the rest are counted). */
const CRITERIA_SHOWN = 20;

/**
 * The Goal as runtime context for one request of its session (GL19–GL21:
 * native runtime context, never a synthesized user message): objective,
 * status and revision, criteria with their evidence, what the budgets left,
 * and — for a continuation turn — that no person wrote anything and what
 * to do next. Regenerated for every request from the projection. Pure.
 * @param continuation the revision a continuation turn runs for; absent for a turn a person or a report drives.
 */
export function renderGoalContext(s: GoalSnapshot, continuation?: { revision: number }): string {
  const lines: string[] = [];
  const objective =
    s.objective.length > OBJECTIVE_SHOWN ? `${s.objective.slice(0, OBJECTIVE_SHOWN)} [… objective cut]` : s.objective;
  lines.push(`# Goal ${s.goalId} (revision ${s.revision}, ${s.state.status})`, '', objective, '');
  if (s.criteria.length > 0) {
    lines.push('Completion criteria:');
    for (const c of s.criteria.slice(0, CRITERIA_SHOWN)) {
      const ev = c.evidence ? ` — evidence [verification ${c.evidence.receiptId}]` : '';
      const need = c.check
        ? ` (owned by the check \`${c.check}\`: only a passing receipt of exactly that command, with no file written after it, counts)`
        : c.needsEvidence
          ? ' (needs a passing receipt)'
          : '';
      lines.push(`- ${c.id} [${c.status}] ${c.text}${need}${ev}`);
    }
    if (s.criteria.length > CRITERIA_SHOWN)
      lines.push(`- … ${s.criteria.length - CRITERIA_SHOWN} more (goal_get lists all)`);
    lines.push('');
  }
  const left: string[] = [];
  const b = s.budgets;
  if (b.tokens) left.push(`${Math.max(0, b.tokens.limit - s.spent.tokens)} of ${b.tokens.limit} tokens`);
  if (b.toolCalls !== undefined)
    left.push(`${Math.max(0, b.toolCalls - s.spent.toolCalls)} of ${b.toolCalls} tool calls`);
  if (b.timeMs !== undefined) left.push(`${formatDuration(b.timeMs)} of time in all`);
  if (b.turnTokens !== undefined) left.push(`${b.turnTokens} tokens per turn`);
  if (left.length > 0) lines.push(`Budget left: ${left.join(', ')}.`, '');
  if (continuation) {
    lines.push(
      `This turn is an automatic continuation of the goal (revision ${continuation.revision}): no person wrote a new message.`,
      'Continue the work toward the objective. If a background report from a remote observer (CI, a deploy, a release) arrived, re-query the remote system for its authoritative state first: a local process exit is not that state.',
      'When every criterion is met, call goal_update with complete: true, citing the [verification rcp_…] receipt of a passing check for each criterion that needs evidence. If you need something only the user can give, call goal_request_input.',
    );
  } else {
    lines.push(
      'This session works toward the goal above. Settle criteria and complete the goal with goal_update (cite [verification rcp_…] receipts as evidence); read it with goal_get.',
    );
  }
  return lines.join('\n');
}
