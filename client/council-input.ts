/**
 * `zuno council run`'s offline checks (issue 12 item 5): the question, the
 * preset, the git range and the budget flags, each refused with a typed
 * error naming the problem before anything starts.
 */
import { execa } from 'execa';
import { ZunoError } from '../core/errors.js';
import { councilPreset } from '../core/council/preset.js';
import { GIT_RANGE } from '../core/tools/council-run.js';

/** Flags that would override the frozen preset (DC23): accepted by the parser only to be refused by name. */
export const FROZEN_BUDGET_FLAGS = [
  'deadlineMs',
  'totalMs',
  'timeoutMs',
  'synthesisMs',
  'seatDeadlineMs',
  'seats',
  'quorum',
  'retries',
  'timeBudget',
  'tokenBudget',
] as const;

/** `--deadline-ms` for `deadlineMs`. */
function flagName(key: string): string {
  return `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
}

/**
 * Checks a Council's inputs offline.
 * @throws ZunoError `input_invalid` (empty or too long question, a range that is no git range),
 *   `preset_unknown`, `preset_frozen` (a budget flag).
 */
export function councilRunInput(
  question: string,
  opts: { preset?: string; diff?: string } & Partial<Record<(typeof FROZEN_BUDGET_FLAGS)[number], unknown>>,
): { question: string; preset: 'balanced-review'; diffRange?: string } {
  const given = FROZEN_BUDGET_FLAGS.filter((k) => opts[k] !== undefined);
  if (given.length)
    throw new ZunoError(
      'preset_frozen',
      `${given.map(flagName).join(', ')}: the balanced-review preset is frozen (600000 ms in all, three seats sharing 540000 ms, 60000 ms for synthesis, quorum 2, one retry); its budgets cannot be set`,
    );
  const q = question.trim();
  if (q === '') throw new ZunoError('input_invalid', 'the question is empty: say what the Council should review');
  if (q.length > 4000) throw new ZunoError('input_invalid', `the question is ${q.length} characters; at most 4000`);
  const preset = opts.preset ?? 'balanced-review';
  if (!councilPreset(preset))
    throw new ZunoError('preset_unknown', `unknown preset "${preset}": the only preset is balanced-review`);
  if (opts.diff !== undefined && (!GIT_RANGE.test(opts.diff) || opts.diff.startsWith('-') || /^\.+$/.test(opts.diff)))
    throw new ZunoError('input_invalid', `--diff "${opts.diff}" is not a git range such as HEAD~1..HEAD`);
  return { question: q, preset: 'balanced-review', ...(opts.diff !== undefined ? { diffRange: opts.diff } : {}) };
}

/**
 * Checks that git resolves `range` in `workspace` (before anything starts).
 * @throws ZunoError `diff_invalid` (not a git repository, or git's answer), `diff_empty` (a range without changes).
 */
export async function checkGitRange(workspace: string, range: string): Promise<void> {
  const inside = await execa('git', ['rev-parse', '--is-inside-work-tree'], { cwd: workspace, reject: false });
  if (inside.exitCode !== 0 || String(inside.stdout).trim() !== 'true')
    throw new ZunoError(
      'diff_invalid',
      `--diff ${range}: ${workspace} is not inside a git repository (give --dir one)`,
    );
  const r = await execa('git', ['diff', '--quiet', range, '--'], { cwd: workspace, reject: false });
  // 1: the range has changes; 0: none — a Council would review nothing.
  if (r.exitCode === 1) return;
  if (r.exitCode === 0)
    throw new ZunoError('diff_empty', `--diff ${range} in ${workspace} has no changes: there is nothing to review`);
  const why = String(r.stderr || `git exited ${r.exitCode}`)
    .trim()
    .split('\n')[0];
  throw new ZunoError('diff_invalid', `--diff ${range} in ${workspace}: ${why}`);
}
