import { ZunoError } from '../core/errors.js';
import { type GoalBudgets, parseGoalBudgets } from '../core/goal/budgets.js';
import type { GoalWorkflowInput } from '../core/goal/contract.js';
import { criteriaProblems, objectiveProblems } from '../core/goal/objective.js';
import { checkProblems } from '../core/goal/check.js';

/**
 * One `--check <command>` of `zuno goal start` and the criterion option
 * right before it on the command line (`of`: which list and its 0-based
 * place there; null when no criterion came before it).
 */
export interface GoalCheckFlag {
  command: string;
  of: { kind: 'criterion' | 'evidenceCriterion'; index: number } | null;
}

/** The budget flags of `zuno goal start` and `zuno goal budgets`, as commander hands them over (strings). */
export interface GoalBudgetFlags {
  tokenBudget?: string;
  turnBudget?: string;
  toolCallBudget?: string;
  timeBudget?: string;
}

/** What `zuno goal start` hands to the `goal` workflow, checked. */
export interface GoalStartInput {
  /** Trimmed. */
  objective: string;
  criteria: GoalWorkflowInput['criteria'];
  budgets: GoalBudgets;
}

/**
 * Checks everything a person typed for `zuno goal start` at once — the
 * objective (core/goal/objective.ts), each `--criterion` /
 * `--evidence-criterion` with the `--check` that follows it (issue 26 item
 * 6: the command that owns the criterion; it then needs evidence), each
 * budget flag (core/goal/budgets.ts `parseGoalBudgets`) — and returns the
 * Goal's input (the host's default token budget is added later,
 * {@link withHostTokenBudget}). Pure.
 * @throws ZunoError `usage_error` for a `--check` with no criterion before
 *   it or a second `--check` for one criterion (checked first);
 *   `input_invalid` naming every other problem, separated by `; `.
 */
export function goalStartInput(
  objective: string,
  flags: GoalBudgetFlags & { criterion?: string[]; evidenceCriterion?: string[]; check?: GoalCheckFlag[] },
): GoalStartInput {
  const owned = new Map<string, string>();
  for (const c of flags.check ?? []) {
    const shown = JSON.stringify(c.command.slice(0, 60));
    if (c.of === null)
      throw new ZunoError(
        'usage_error',
        `--check ${shown} names no criterion: put it right after the --criterion (or --evidence-criterion) it checks`,
      );
    const key = `${c.of.kind}:${c.of.index}`;
    if (owned.has(key))
      throw new ZunoError(
        'usage_error',
        `--check ${shown} is the second check of one criterion: a criterion is owned by one command`,
      );
    owned.set(key, c.command);
  }
  const criteria = [
    ...(flags.criterion ?? []).map((text, i) => ({ text, needsEvidence: false, check: owned.get(`criterion:${i}`) })),
    ...(flags.evidenceCriterion ?? []).map((text, i) => ({
      text,
      needsEvidence: true,
      check: owned.get(`evidenceCriterion:${i}`),
    })),
  ];
  const parsed = parseBudgetFlags(flags);
  const problems = [
    ...objectiveProblems(objective),
    ...criteriaProblems(criteria),
    ...criteria.flatMap((c, i) =>
      c.check === undefined ? [] : checkProblems(c.check, `--check of criterion cr_${i + 1}`),
    ),
    ...(parsed.ok ? [] : parsed.problems),
  ];
  if (problems.length > 0 || !parsed.ok) throw new ZunoError('input_invalid', problems.join('; '));
  return {
    objective: objective.trim(),
    criteria: criteria.map((c) => ({
      text: c.text.trim(),
      // A criterion that owns a check is satisfied only by that check's receipt: it needs evidence.
      needsEvidence: c.needsEvidence || c.check !== undefined,
      ...(c.check !== undefined ? { check: c.check.trim() } : {}),
    })),
    budgets: parsed.budgets,
  };
}

/**
 * GL13: without a token budget of the person's own, the host's
 * (`zuno.json` `goal.default_token_budget`) is the Goal's token total, with
 * `source: 'host_default'` — under it a request that reports no usage is
 * simply not counted (GL15). A budget the person set is kept. Pure.
 */
export function withHostTokenBudget(budgets: GoalBudgets, hostDefaultTokens: number | undefined): GoalBudgets {
  if (budgets.tokens || hostDefaultTokens === undefined) return budgets;
  return { ...budgets, tokens: { limit: hostDefaultTokens, source: 'host_default' } };
}

/** The budget flags through `parseGoalBudgets`, each problem named by its flag. Pure. */
export function parseBudgetFlags(
  flags: GoalBudgetFlags,
): { ok: true; budgets: GoalBudgets } | { ok: false; problems: string[] } {
  const r = parseGoalBudgets({
    ...(flags.tokenBudget !== undefined ? { tokens: flags.tokenBudget } : {}),
    ...(flags.turnBudget !== undefined ? { turnTokens: flags.turnBudget } : {}),
    ...(flags.toolCallBudget !== undefined ? { toolCalls: flags.toolCallBudget } : {}),
    ...(flags.timeBudget !== undefined ? { time: flags.timeBudget } : {}),
  });
  if (r.ok) return r;
  const flag: [RegExp, string][] = [
    [/^token budget/, '--token-budget'],
    [/^turn budget/, '--turn-budget'],
    [/^tool call budget/, '--tool-call-budget'],
    [/^time budget/, '--time-budget'],
  ];
  return {
    ok: false,
    problems: r.problems.map((p) => {
      const f = flag.find(([re]) => re.test(p));
      return f ? p.replace(f[0], f[1]) : p;
    }),
  };
}

/** How `zuno goal resume` spells the two answers of GL27 on the command line. */
export const RESUME_CHOICES = ['resume', 'keep-paused'] as const;

/**
 * The choice a resume sends (GL27): a Goal paused `uncertain_side_effect`
 * needs the person's explicit **Resume goal** or **Keep paused** — given as
 * `--choice`, or asked on a terminal (`'ask'`); skipping authorizes nothing,
 * so there is no default. Any other pause resumes unless `--choice
 * keep-paused` says otherwise. Pure.
 * @throws ZunoError `usage_error` for an unknown `--choice`, or for a missing
 *   one on an unknown-outcome pause when no terminal can ask.
 */
export function resumeChoice(
  goalId: string,
  pauseReason: string | null,
  given: string | undefined,
  canAsk: boolean,
): 'resume' | 'keep_paused' | 'ask' {
  if (given !== undefined) {
    if (!(RESUME_CHOICES as readonly string[]).includes(given))
      throw new ZunoError(
        'usage_error',
        `--choice ${JSON.stringify(given.slice(0, 40))} is not a choice (${RESUME_CHOICES.join(', ')})`,
      );
    return given === 'resume' ? 'resume' : 'keep_paused';
  }
  if (pauseReason !== 'uncertain_side_effect') return 'resume';
  if (canAsk) return 'ask';
  throw new ZunoError(
    'usage_error',
    `goal ${goalId} is paused because a call's outcome is unknown: choose explicitly with --choice resume (Resume goal) or --choice keep-paused (Keep paused); nothing is chosen for you`,
  );
}
