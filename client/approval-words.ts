/**
 * How an approval's subject reads on a terminal (issue 26 items 1 and 3):
 * the full text as the model sent it — kept as lines in the prompt, escaped
 * onto one line in list cells and confirmations — its parsed parts as a
 * secondary line, and what a session-wide grant covers, in words. Model text
 * is made inert (core/terminal-text.ts) before it reaches the terminal. Pure.
 */
import type { ApprovalRow } from '../activities/projection/index.js';
import { exactPattern } from '../core/permission/glob.js';
import type { SessionGrant } from '../core/permission/types.js';
import { inertBlock, inertText } from '../core/terminal-text.js';

/** The fields of an approval these words read. */
export type ShownApproval = Pick<ApprovalRow, 'tool' | 'subjectText' | 'subjectKind' | 'subjectParts'>;

/**
 * The subject for the prompt: on the same line as `lead` when it is one
 * line (`Zuno wants to run shell: echo hello > note.txt`), else `lead:` and
 * each line of the text after a `  │ ` gutter, so a heredoc reads as written
 * (control characters other than line feed and tab escaped). Pure.
 */
export function subjectBlock(lead: string, a: ShownApproval): string {
  const text = inertBlock(a.subjectText);
  if (!text.includes('\n')) return `${lead}: ${text}`;
  return `${lead}:\n${text
    .split('\n')
    .map((l) => `  │ ${l}`)
    .join('\n')}`;
}

/** The subject on one line, whole: line feeds, tabs and other control characters as visible escapes (`\n`). Pure. */
export function subjectCell(a: Pick<ApprovalRow, 'subjectText'>): string {
  return inertText(a.subjectText);
}

/**
 * The secondary line: `parts: echo hello; ls` — what the rules read in the
 * text — or null when there are none or they say nothing the text does not
 * (a single path, an approval asked before issue 26). Pure.
 */
export function partsLine(a: ShownApproval): string | null {
  const parts = a.subjectParts ?? [];
  if (parts.length === 0 || (parts.length === 1 && parts[0] === a.subjectText)) return null;
  return `parts: ${inertText(parts.join('; '))}`;
}

/**
 * false for an approval that can only be approved once or denied: a command
 * too large for the workflow's history (its row has a digest but no grant
 * scope). Pure.
 */
export function canGrantSession(a: Pick<ApprovalRow, 'subjectDigest' | 'grantScope'>): boolean {
  return a.subjectDigest === null || a.grantScope === 'call';
}

/**
 * `this exact command` / `this exact <tool> call` / `<tool> calls of this URL (any query)` (a URL subject is matched
 * without its query, docs/web.md): the choice the prompt offers for the session. Pure.
 */
export function exactNoun(a: Pick<ApprovalRow, 'tool' | 'subjectKind'>): string {
  if (a.subjectKind === 'url') return `${a.tool} calls of this URL (any query)`;
  return a.subjectKind === 'command' ? 'this exact command' : `this exact ${a.tool} call`;
}

/**
 * What a session-wide grant covers, in words, one line:
 * `this exact command: echo hello > note.txt`,
 * `this exact write call: src/a.ts`, `shell commands matching the pattern: echo hello > *.txt`,
 * and for a grant of an approval asked before issue 26 (per simple command)
 * `shell calls whose parts all match: echo hello`. `grant` absent: the
 * grant an approval for the session would store (the exact text). Pure.
 */
export function grantWords(
  a: ShownApproval & Pick<ApprovalRow, 'grantScope' | 'grantPattern'>,
  grant?: SessionGrant,
): string {
  const scope = grant ? grant.scope : a.grantScope;
  if (scope !== 'call') {
    const patterns = grant ? [grant.pattern] : (a.grantPattern?.split('\n') ?? ['*']);
    return `${a.tool} calls whose parts all match: ${inertText(patterns.join('; '))}`;
  }
  const pattern = grant?.pattern ?? a.grantPattern ?? exactPattern(a.subjectText);
  if (pattern === exactPattern(a.subjectText))
    return a.subjectKind === 'none'
      ? `every ${a.tool} call (it has nothing else to tell them apart)`
      : `${exactNoun(a)}: ${inertText(a.subjectText)}`;
  const noun = a.subjectKind === 'command' ? `${a.tool} commands` : `${a.tool} calls`;
  return `${noun} matching the pattern: ${inertText(pattern)}`;
}
