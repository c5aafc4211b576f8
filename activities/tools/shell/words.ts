/**
 * Reading words of a parsed command (SH2, SH7): the literal value of a word
 * when the shell would not expand it, and the effective program of a simple
 * command behind wrappers such as `env`, `sudo` or `timeout`.
 */
import type { ShNode } from './syntax.js';

/** Unquoted characters that make a word subject to globbing, brace or tilde expansion. */
const EXPANDING = /[*?[{~]/;

/** An unquoted word's value: backslash-newline removed, a backslash before any other character dropped. */
export function unescapeUnquoted(text: string): string {
  return text.replace(/\\\n/g, '').replace(/\\(.)/gs, '$1');
}

/** Double-quoted text's value: backslash-newline removed, a backslash before a backslash, `"`, `$` or a backquote dropped. */
export function unescapeDouble(text: string): string {
  return text.replace(/\\\n/g, '').replace(/\\([\\"$`])/g, '$1');
}

/**
 * The literal value of a word node: `word`, `number`, `'raw'`, `"plain"`
 * (no expansions inside) or a concatenation of those. Returns null when the
 * shell would expand it (`$X`, `$(…)`, globs, braces, `~`), since its value is
 * then not statically known.
 */
export function literalWord(node: ShNode): string | null {
  switch (node.type) {
    case 'word':
      if (EXPANDING.test(node.text.replace(/\\./gs, ''))) return null;
      return unescapeUnquoted(node.text);
    case 'number':
      return node.text;
    case 'raw_string':
      return node.text.slice(1, -1);
    case 'string': {
      if (node.children.some((c) => c.named && c.type !== 'string_content')) return null;
      return unescapeDouble(node.text.slice(1, -1));
    }
    case 'concatenation': {
      let out = '';
      for (const c of node.children) {
        const v = literalWord(c);
        if (v === null) return null;
        out += v;
      }
      return out;
    }
    case 'command_name': {
      const inner = node.children[0];
      return inner ? literalWord(inner) : null;
    }
    default:
      return null;
  }
}

/** The last path segment of a program name (`/usr/bin/bash` → `bash`). */
export function programBase(name: string): string {
  const i = name.lastIndexOf('/');
  return i >= 0 ? name.slice(i + 1) : name;
}

/** Wrappers that run their first non-option argument as the program. */
export const WRAPPERS: ReadonlySet<string> = new Set([
  'env',
  'sudo',
  'doas',
  'nohup',
  'time',
  'exec',
  'command',
  'nice',
  'timeout',
  'stdbuf',
  'setsid',
  'xargs',
  'builtin',
]);
/** A wrapper's numeric parameter (`timeout 10s …`, `nice -n 5 …`), never a program name. */
export const NUMERIC_PARAM = /^\d+(\.\d+)?[smhd]?$/;

/** The words of a simple command: its name node and argument nodes, in order. */
export function commandWords(command: ShNode): { name: ShNode | null; args: ShNode[] } {
  let name: ShNode | null = null;
  const args: ShNode[] = [];
  for (const c of command.children) {
    if (c.field === 'name') name = c;
    else if (c.field === 'argument') args.push(c);
  }
  return { name, args };
}

/**
 * The effective program of a simple command and the arguments it receives,
 * looking through wrappers (`env -i FOO=1 bash -c …` → `bash`, `-c`, …).
 * Words that are not literal are returned as null.
 *
 * @returns null when the command has no literal name.
 */
export function effectiveProgram(command: ShNode): { program: string; args: (string | null)[] } | null {
  const { name, args } = commandWords(command);
  if (!name) return null;
  const first = literalWord(name);
  if (first === null) return null;
  const words = [first, ...args.map(literalWord)];
  let i = 0;
  while (i < words.length) {
    const w = words[i];
    if (w === null || w === undefined) return null;
    const base = programBase(w);
    if (!WRAPPERS.has(base)) return { program: base, args: words.slice(i + 1) };
    i++;
    while (i < words.length) {
      const a = words[i];
      if (a === null || a === undefined) return null;
      if (a.startsWith('-') || NUMERIC_PARAM.test(a) || (base === 'env' && a.includes('='))) i++;
      else break;
    }
  }
  return null;
}
