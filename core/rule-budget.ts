/**
 * Rule-file budget (SE10, SPEC-DIGEST SE27): rule files enter the prompt
 * whole or not at all, under one byte budget shared by every file in order.
 * Pure: no I/O (the reading is `activities/session/rule-files.ts`).
 *
 * "64 KB" is the seed's spelling, kept deliberately (SPEC-DIGEST §18: not
 * KiB), so it means SI kilobytes: 64 000 bytes of UTF-8, not 65 536.
 */
import type { ErrorCode } from './error-codes.js';

/** The fixed bound of the rule budget: "64 KB" = 64 000 bytes (SI, not KiB). */
export const RULE_BUDGET_CAP_BYTES = 64_000;

/** Error code of a local rule file that exists but cannot be read as text (SE27); it blocks the session (PR3). */
export const RULE_FILE_UNREADABLE = 'rule_file_unreadable' satisfies ErrorCode;

/** Stable prompt-segment id of the rule files (SE28). */
export const RULES_SEGMENT_ID = 'instructions.rules';

/**
 * The rule budget in bytes: min(64 KB, context window / 4).
 * @param contextWindowTokens the model's context window in tokens, when the
 *   provider/model config declares one (today none does: the budget is then
 *   64 000). A token of text is at least one byte of UTF-8, so a quarter of
 *   the window counted as bytes keeps the rules within a quarter of the
 *   window in tokens, whatever the tokenizer.
 * @returns a whole number of bytes, ≥ 0.
 */
export function ruleBudgetBytes(contextWindowTokens?: number): number {
  if (contextWindowTokens === undefined || !Number.isFinite(contextWindowTokens)) return RULE_BUDGET_CAP_BYTES;
  return Math.max(0, Math.min(RULE_BUDGET_CAP_BYTES, Math.floor(contextWindowTokens / 4)));
}

/** A rule file skipped whole: its size, the budget and what was left of it when its turn came. */
export interface SkippedRule<T> {
  entry: T;
  /** The file's size, UTF-8 bytes. */
  bytes: number;
  /** The whole budget, bytes. */
  budget: number;
  /** What was left of the budget when this file came up, bytes (< `bytes`). */
  remaining: number;
}

/** Which rule files are in force and which are skipped (entries in their given order). */
export interface RulePlan<T> {
  inForce: T[];
  skipped: SkippedRule<T>[];
  /** Budget left after every file in force, bytes. */
  remaining: number;
}

/**
 * Decides which rule files enter the prompt (SE27): in the given order, a
 * file enters whole when its size fits what is left of the budget and then
 * uses that much; a file that does not fit is skipped whole (never
 * truncated) and the later, smaller files are still considered.
 * @param entries the candidate files in precedence order, each with its size in UTF-8 bytes.
 * @param budget the whole budget in bytes ({@link ruleBudgetBytes}).
 */
export function planRuleFiles<T extends { bytes: number }>(entries: readonly T[], budget: number): RulePlan<T> {
  let remaining = budget;
  const inForce: T[] = [];
  const skipped: SkippedRule<T>[] = [];
  for (const entry of entries) {
    if (entry.bytes <= remaining) {
      inForce.push(entry);
      remaining -= entry.bytes;
    } else skipped.push({ entry, bytes: entry.bytes, budget, remaining });
  }
  return { inForce, skipped, remaining };
}

/** Where a rule file comes from: the user-level Zuno home or the workspace root. */
export type RuleScope = 'user' | 'workspace';

/** A rule file in force, with its whole text. */
export interface RuleText {
  path: string;
  scope: RuleScope;
  text: string;
}

/**
 * The text of the `instructions.rules` prompt segment (SE28): a short
 * preamble, then each file in force under a heading naming its scope and
 * exact path, its text verbatim and whole. Empty files add no section.
 * @returns null when no file has text (the segment is then absent).
 */
export function renderRulesSegment(rules: readonly RuleText[]): string | null {
  const sections = rules
    .filter((r) => r.text !== '')
    .map((r) => `## ${r.scope === 'user' ? 'User' : 'Workspace'} rules: ${r.path}\n\n${r.text}`);
  if (sections.length === 0) return null;
  return [
    'The following rule files (AGENTS.md) are in force. Follow them; where they conflict, ' +
      'a later file (the workspace) takes precedence over an earlier one (the user).',
    ...sections,
  ].join('\n\n');
}

/** The rules segment's provenance (SE28): `rule files: <path>, …`, the files in force in order. */
export function rulesSource(files: readonly { path: string }[]): string {
  return `rule files: ${files.map((f) => f.path).join(', ')}`;
}
