/**
 * The prompt texts as files (issue 32): `prompts/` at the installation root,
 * read from the source tree like the tool descriptions (never copied into
 * `dist/`), once per process. Each text is returned trimmed, with its
 * repository-relative path as provenance (SE28 "exact sources").
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { WireSurface } from '../../../core/messages.js';
import { ruleKey, type ExecutionRule } from '../../../core/prompt/execution.js';
import { INSTALL_ROOT } from '../../infra/install-root.js';

/** The prompts folder, relative to the installation root. */
export const PROMPTS_DIR = 'prompts';

/** A prompt text and the file it came from (`prompts/base.md`). */
export interface PromptText {
  file: string;
  text: string;
}

const cache = new Map<string, PromptText | null>();

/**
 * The text of `prompts/<rel>`, trimmed; null when the file does not exist
 * or holds only whitespace (an optional segment is then absent).
 * @throws Error for a file that exists but cannot be read.
 */
export function promptText(rel: string): PromptText | null {
  if (cache.has(rel)) return cache.get(rel)!;
  const file = `${PROMPTS_DIR}/${rel}`;
  let text: string | null;
  try {
    text = readFileSync(join(INSTALL_ROOT, file), 'utf8').trim();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    text = null;
  }
  const found = text ? { file, text } : null;
  cache.set(rel, found);
  return found;
}

/** The base instructions (`system.base`); the file must exist. */
export function baseText(): PromptText {
  const t = promptText('base.md');
  if (!t) throw new Error(`${PROMPTS_DIR}/base.md is missing or empty: the installation is incomplete`);
  return t;
}

/** The provider family's tuning (`system.family`), or null when its file is empty. */
export function familyText(surface: WireSurface): PromptText | null {
  return promptText(`family/${surface}.md`);
}

/** The role's instructions (`system.agent`), or null for a role with no file. */
export function roleText(role: string): PromptText | null {
  return /^[\w-]+$/.test(role) ? promptText(`roles/${role}.md`) : null;
}

let executionRules: ExecutionRule[] | undefined;

/** Every `prompts/execution/*.md` rule with the tools its file name keys it by (core/prompt/execution.ts). */
export function executionRuleFiles(): readonly ExecutionRule[] {
  if (executionRules) return executionRules;
  const dir = `${PROMPTS_DIR}/execution`;
  executionRules = readdirSync(join(INSTALL_ROOT, dir))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => ({ tools: ruleKey(f), file: `${dir}/${f}`, text: promptText(`execution/${f}`)?.text ?? '' }));
  return executionRules;
}
