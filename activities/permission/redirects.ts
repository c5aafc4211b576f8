/**
 * What a simple command's redirections mean to its permission subject
 * (docs/permissions.md, issue 26): the input an interpreter would read as its
 * program, and which redirection targets are devices or descriptors rather
 * than files.
 */
import type { ShNode } from '../tools/shell/syntax.js';
import { literalWord } from '../tools/shell/words.js';

/** Redirection targets that are devices, not files a rule protects. */
export const DEVICES = /^\/dev\/(null|stdout|stderr|stdin|tty|fd\/\d+)$/;

/** Redirection destinations that are file descriptors, not paths (`2>&1`, `>&-`). */
export const FD_TARGET = /^(\d+|-)$/;

/** A command's standard input when a redirection gives it: literal text, text built at run time, or a file. */
export type Stdin = { kind: 'text'; text: string } | { kind: 'dynamic' } | { kind: 'file' };

/**
 * The input a command's redirections give it (the last one wins): a
 * here-string's literal value; a here-document's text (quoted delimiter: as
 * written; unquoted: `\$`, `\``, `\\` and backslash-newline unescaped, or
 * `dynamic` when it expands anything); `file` for `<` of a literal path;
 * `dynamic` for `<&` and for `<` of a process substitution or a path built at
 * run time.
 * Undefined when no redirection gives input. Pure.
 */
export function stdinOf(redirects: ShNode[]): Stdin | undefined {
  let found: Stdin | undefined;
  for (const r of redirects) {
    if (r.type === 'herestring_redirect') {
      const word = r.children.find((c) => c.named);
      const text = word ? literalWord(word) : null;
      found = text === null ? { kind: 'dynamic' } : { kind: 'text', text };
    } else if (r.type === 'heredoc_redirect') {
      const start = r.children.find((c) => c.type === 'heredoc_start')?.text ?? '';
      const body = r.children.find((c) => c.type === 'heredoc_body');
      const quoted = /['"\\]/.test(start);
      const raw = body?.text ?? '';
      if (quoted) found = { kind: 'text', text: raw };
      else if ((body?.children ?? []).some((c) => c.named && c.type !== 'heredoc_content')) found = { kind: 'dynamic' };
      // unquoted: `\$`, `\``, `\\` and backslash-newline are unescaped before the program reads the text
      else found = { kind: 'text', text: raw.replace(/\\\n/g, '').replace(/\\([\\$`])/g, '$1') };
    } else if (r.type === 'file_redirect') {
      const op = r.children.find((c) => !c.named)?.text ?? '';
      const dest = r.children.find((c) => c.field === 'destination');
      // `< <(…)`, `< "$F"`: input produced or chosen at run time
      if (op === '<') found = dest && literalWord(dest) !== null ? { kind: 'file' } : { kind: 'dynamic' };
      else if (op === '<&') found = { kind: 'dynamic' };
    }
  }
  return found;
}
