import { ApplicationFailure } from '@temporalio/workflow';
import { budgetStop } from '../core/goal/budgets.js';
import { MAX_GOAL_OBJECTIVE_CHARS } from '../core/goal/objective.js';
import type { GoalControlRequest, GoalDirective, GoalSnapshot } from '../core/goal/contract.js';
import { SESSION_PAUSE_REASONS, TERMINAL_GOAL_STATUSES } from '../core/goal/status.js';
import type { ErrorCode } from '../core/error-codes.js';

const ACTIONS = ['pause', 'resume', 'cancel', 'answer', 'edit', 'budgets'] as const;

function reject(code: ErrorCode, message: string): never {
  throw ApplicationFailure.nonRetryable(message, code);
}

/**
 * Validator of `goalControl`: a malformed request, a stale revision, or an
 * action the Goal's status does not allow is a typed rejection (nothing is
 * recorded). Codes: `input_invalid`, `stale_revision`, `goal_closed`
 * (completed or cancelled), `goal_not_paused`, `goal_blocked`,
 * `budget_exhausted`, `no_question`.
 */
export function validateControl(req: unknown, s: GoalSnapshot): void {
  if (typeof req !== 'object' || req === null || Array.isArray(req))
    reject('input_invalid', 'a goal control must be an object');
  const r = req as Record<string, unknown>;
  if (typeof r.commandId !== 'string' || r.commandId === '')
    reject('input_invalid', 'commandId must be a non-empty string');
  if (!ACTIONS.includes(r.action as (typeof ACTIONS)[number]))
    reject('input_invalid', `action must be one of ${ACTIONS.join(', ')}`);
  if (r.expectedRevision !== undefined && r.expectedRevision !== s.revision)
    reject('stale_revision', `the goal is at revision ${s.revision}, not ${String(r.expectedRevision)}`);
  const st = s.state.status;
  if (TERMINAL_GOAL_STATUSES.has(st))
    reject('goal_closed', `goal ${s.goalId} is ${st}; it cannot be ${verb(r.action)}`);
  switch (r.action) {
    case 'resume': {
      if (r.choice !== 'resume' && r.choice !== 'keep_paused')
        reject('input_invalid', "resume needs choice 'resume' (Resume goal) or 'keep_paused' (Keep paused)");
      if (st === 'blocked')
        reject(
          'goal_blocked',
          `goal ${s.goalId} is blocked (${s.state.code}): ${s.state.message}; cancel it and start a new goal`,
        );
      if (st !== 'paused' && st !== 'budget_limited')
        reject('goal_not_paused', `goal ${s.goalId} is ${st}, not paused: there is nothing to resume`);
      if (st === 'budget_limited' && r.choice === 'resume' && stillOver(s))
        reject(
          'budget_exhausted',
          `goal ${s.goalId} has spent its ${s.state.kind.replaceAll('_', ' ')}; raise it first (zuno goal budgets ${s.goalId} …)`,
        );
      return;
    }
    case 'answer':
      if (st !== 'paused' || s.state.reason !== 'required_input' || !s.question)
        reject('no_question', `goal ${s.goalId} is not waiting for an answer`);
      if (r.requestId !== s.question.requestId)
        reject(
          'no_question',
          `goal ${s.goalId} waits for an answer to ${s.question.requestId}, not ${String(r.requestId)}`,
        );
      if (typeof r.text !== 'string' || r.text.trim() === '')
        reject('input_invalid', 'the answer must be non-empty text');
      return;
    case 'edit':
      if (typeof r.objective !== 'string' || r.objective.trim() === '')
        reject('input_invalid', 'the objective must be non-empty text');
      if (r.objective.length > MAX_GOAL_OBJECTIVE_CHARS)
        reject('input_invalid', `the objective is longer than ${MAX_GOAL_OBJECTIVE_CHARS} characters`);
      return;
    case 'budgets':
      if (typeof r.budgets !== 'object' || r.budgets === null) reject('input_invalid', 'budgets must be an object');
      return;
    case 'pause':
      if (st === 'paused') reject('goal_not_active', `goal ${s.goalId} is already paused (${s.state.reason})`);
      return;
    default:
      return;
  }
}

/** The budget that stopped a budget-limited Goal still stops it (a resume would stop again at once). */
function stillOver(s: GoalSnapshot): boolean {
  const stop = budgetStop(s.budgets, {
    tokens: s.spent.tokens,
    turnTokens: 0,
    toolCalls: s.spent.toolCalls,
    elapsedMs: 0,
  });
  if (s.state.status === 'budget_limited' && s.state.kind === 'time_budget')
    return s.budgets.timeMs !== undefined && Date.now() - s.createdAtMs >= s.budgets.timeMs;
  return stop !== null && stop.status === 'budget_limited';
}

function verb(action: unknown): string {
  return action === 'pause'
    ? 'paused'
    : action === 'cancel'
      ? 'cancelled'
      : action === 'edit'
        ? 'edited'
        : `${String(action)}d`;
}

/**
 * Applies a validated `goalControl` (GL27, GL39): the next snapshot (absent
 * when nothing changes, e.g. Keep paused), what the session is told, and a
 * plain-words message. Every change moves the revision.
 */
export function applyControl(
  s: GoalSnapshot,
  req: GoalControlRequest,
  nowMs: number,
): { next?: GoalSnapshot; directive: Omit<GoalDirective, 'revision' | 'status'>; message: string } {
  const moved = (patch: Partial<GoalSnapshot>): GoalSnapshot => ({
    ...s,
    ...patch,
    revision: s.revision + 1,
    updatedAtMs: nowMs,
  });
  switch (req.action) {
    case 'pause':
      return {
        next: moved({
          state: { status: 'paused', reason: 'user_interrupt', message: `paused by ${req.by ?? 'the user'}` },
        }),
        directive: {},
        message: 'the goal is paused; it will not start another turn until you resume it',
      };
    case 'cancel':
      return {
        next: moved({ state: { status: 'cancelled', by: req.by ?? 'user' } }),
        directive: {},
        message: 'the goal is cancelled',
      };
    case 'resume': {
      if (req.choice === 'keep_paused') {
        return { directive: {}, message: 'the goal stays paused; nothing was run' };
      }
      // Issue 33: a missing workspace pauses the session with its Goal, as a missing key does (PR3).
      const wasAuth = s.state.status === 'paused' && SESSION_PAUSE_REASONS.has(s.state.reason);
      const { uncertain: _u, question: _q, ...rest } = s;
      return {
        next: {
          ...rest,
          state: { status: 'active' },
          progress: { fingerprint: null, repeats: 0 },
          revision: s.revision + 1,
          updatedAtMs: nowMs,
        },
        directive: wasAuth ? { resumeSession: true } : {},
        message: 'the goal is active again',
      };
    }
    case 'answer':
      return {
        next: (({ question: _q, ...rest }) => ({
          ...rest,
          state: { status: 'active' as const },
          revision: s.revision + 1,
          updatedAtMs: nowMs,
        }))(s),
        directive: { answer: { requestId: req.requestId, text: req.text } },
        message: 'the answer was handed to the goal',
      };
    case 'edit':
      return {
        next: moved({ objective: req.objective.trim() }),
        directive: {},
        message: `the objective is now revision ${s.revision + 1}`,
      };
    case 'budgets':
      return {
        next: moved({ budgets: req.budgets }),
        directive: {},
        message: 'the budgets are set',
      };
  }
}
