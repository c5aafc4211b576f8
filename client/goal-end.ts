import { messageWithoutCode } from '../core/errors.js';
import type { GoalStop } from './goal-follow.js';
import type { Sink } from './sink.js';

/**
 * The last NDJSON line of a followed Goal (`--json`):
 * `{"type":"goal.<status>", goalId, sessionId, status, reason, message, revision, spent}`.
 */
export function goalFinalJsonLine(stop: GoalStop): string {
  return `${JSON.stringify({
    type: `goal.${stop.status}`,
    goalId: stop.goalId,
    sessionId: stop.sessionId,
    status: stop.status,
    reason: stop.reason,
    message: stop.message,
    revision: stop.revision,
    spent: stop.spent,
  })}\n`;
}

/** White space (newlines included) collapsed: a message always prints as one line. */
function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/**
 * The code a stopped Goal's closing line names: the pause reason, the block
 * code, the budget kind; `goal_cancelled` for a cancelled Goal.
 */
export function goalStopCode(stop: GoalStop): string {
  if (stop.status === 'cancelled') return 'goal_cancelled';
  return stop.reason ?? `goal_${stop.status}`;
}

/**
 * What a person reads when a followed Goal stopped without completing: the
 * one line `zuno: <code>: goal <id> <status>: <message>` (the code said
 * once) and what to do next, in plain words — resume, answer, choose, raise
 * a budget, or cancel. `scripted`: the Goal's model was a script served by
 * the command that ended (a resume needs `--script FILE` again). Pure.
 */
export function goalStopLines(stop: GoalStop, opts: { scripted: boolean }): string {
  const id = stop.goalId;
  const code = goalStopCode(stop);
  const message = oneLine(messageWithoutCode(stop.message ?? '', code));
  const status = stop.status === 'budget_limited' ? 'stopped by its budget' : stop.status;
  const lines = [`zuno: ${code}: goal ${id} ${status}${message ? `: ${message}` : ''}`];
  const resume = `zuno goal resume ${id}${opts.scripted ? ' --script FILE' : ''}`;
  const question = stop.snapshot?.question?.text;
  switch (stop.status) {
    case 'paused':
      switch (stop.reason) {
        case 'uncertain_side_effect':
          lines.push(
            `  check what those calls did (zuno session show ${stop.sessionId}), then choose: ${resume} --choice resume (Resume goal) or --choice keep-paused (Keep paused)`,
          );
          break;
        case 'required_input':
          if (question && oneLine(question) !== message) lines.push(`  the goal asks: ${oneLine(question)}`);
          lines.push(`  answer it: zuno goal answer ${id} "…"`);
          break;
        case 'provider_auth':
          lines.push(`  fix the key, then resume: ${resume}`);
          break;
        case 'workspace_unavailable':
          lines.push(`  restore the workspace, then resume: ${resume}`);
          break;
        case 'turn_budget':
          lines.push(`  raise the allowance (zuno goal budgets ${id} --turn-budget N), or resume as it is: ${resume}`);
          break;
        case 'no_progress':
          lines.push(
            `  when there is something new to try, resume it: ${resume} (or cancel it: zuno goal cancel ${id})`,
          );
          break;
        default:
          lines.push(`  resume it: ${resume}`);
      }
      break;
    case 'budget_limited':
      lines.push(
        `  raise it (zuno goal budgets ${id} --${(stop.reason ?? 'token_budget').replace(/_/g, '-')} N), then resume: ${resume}`,
      );
      break;
    case 'blocked':
      lines.push(`  fix that, then cancel this goal (zuno goal cancel ${id}) and start a new one`);
      break;
    default:
      break;
  }
  return `${lines.join('\n')}\n`;
}

/**
 * Prints how a followed Goal ended and returns the exit code: 0 for
 * completed (one line naming the turns it took), 1 for every other stop,
 * with {@link goalStopLines}.
 */
export function goalExit(stop: GoalStop, sink: Sink, opts: { scripted: boolean }): number {
  if (stop.status === 'completed') {
    const turns = stop.spent?.turns;
    sink.err(
      `goal ${stop.goalId} completed${turns !== undefined ? ` after ${turns} turn${turns === 1 ? '' : 's'}` : ''}\n`,
    );
    return 0;
  }
  sink.err(goalStopLines(stop, opts));
  return 1;
}
