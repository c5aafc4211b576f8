/**
 * What a person may give a Goal as its objective and completion criteria
 * (the CLI checks these before anything starts; decided in docs/goals.md).
 * Pure.
 */
import { hasPrintable } from '../terminal-text.js';

/** Longest objective, in UTF-16 units — also the limit the `goal` workflow's `edit` applies (workflows/goal-control.ts). */
export const MAX_GOAL_OBJECTIVE_CHARS = 4000;

/** Longest completion criterion, in UTF-16 units. */
export const MAX_CRITERION_CHARS = 1000;

/** Most completion criteria a Goal starts with. */
export const MAX_CRITERIA = 50;

/**
 * Problems of an objective as typed (empty array: none): empty or only
 * white space, longer than {@link MAX_GOAL_OBJECTIVE_CHARS} after trimming,
 * or holding a NUL character.
 */
export function objectiveProblems(text: string): string[] {
  const t = text.trim();
  if (t === '') return ['the objective is empty: say what the goal should achieve'];
  const out: string[] = [];
  if (t.length > MAX_GOAL_OBJECTIVE_CHARS)
    out.push(
      `the objective is ${t.length} characters long, more than ${MAX_GOAL_OBJECTIVE_CHARS}: put the details in a file in the workspace and name it`,
    );
  if (t.includes('\u0000')) out.push('the objective holds a NUL character');
  else if (!hasPrintable(t)) out.push('the objective has no printable character (only control characters)');
  return out;
}

/**
 * Problems of the completion criteria (each named by its flag and place):
 * empty, longer than {@link MAX_CRITERION_CHARS}, holding NUL, or more than
 * {@link MAX_CRITERIA} in all.
 */
export function criteriaProblems(criteria: { text: string; needsEvidence: boolean }[]): string[] {
  const out: string[] = [];
  if (criteria.length > MAX_CRITERIA) out.push(`${criteria.length} criteria given, at most ${MAX_CRITERIA}`);
  const seen = { plain: 0, evidence: 0 };
  for (const c of criteria) {
    const n = c.needsEvidence ? ++seen.evidence : ++seen.plain;
    const name = `${c.needsEvidence ? '--evidence-criterion' : '--criterion'} #${n}`;
    const t = c.text.trim();
    if (t === '') out.push(`${name} is empty`);
    else if (t.length > MAX_CRITERION_CHARS)
      out.push(`${name} is ${t.length} characters long, more than ${MAX_CRITERION_CHARS}`);
    if (t.includes('\u0000')) out.push(`${name} holds a NUL character`);
    else if (t !== '' && !hasPrintable(t)) out.push(`${name} has no printable character (only control characters)`);
  }
  return out;
}
