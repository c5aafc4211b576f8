/**
 * The simple commands of a shell call, as permission rules see them
 * (docs/permissions.md): every command that would run, each as its words
 * (word-text.ts) joined by single spaces, found anywhere in the syntax tree —
 * pipelines, `&&`/`||` lists, `;` sequences, subshells, blocks, loops,
 * conditions, function bodies, `$(…)`/`<(…)` and here-document expansions —
 * and inside the text given to `bash -c`/`sh -c` (and the other POSIX-ish
 * shells) and `eval` when that text is literal.
 */
import { parseCommand, type ShNode } from '../tools/shell/syntax.js';
import { commandWords, literalWord, NUMERIC_PARAM, programBase, WRAPPERS } from '../tools/shell/words.js';
import { wordText } from './word-text.js';

/** Shells whose `-c` text is bash-like enough to parse and recurse into. */
const SHELLS: ReadonlySet<string> = new Set(['bash', 'sh', 'dash', 'zsh', 'ksh', 'mksh', 'ash']);

/** Wrapper options that take the next word as their value (`sudo -u root …`). */
const VALUE_OPTIONS: Readonly<Record<string, readonly string[]>> = {
  sudo: ['-u', '-g', '-C', '-h', '-p', '-U', '-r', '-t', '-D', '-R', '-T'],
  doas: ['-u', '-C'],
  env: ['-u', '-C', '-S'],
  timeout: ['-s', '-k'],
  nice: ['-n'],
  xargs: ['-I', '-n', '-P', '-d', '-L', '-s', '-E', '-a'],
  stdbuf: ['-i', '-o', '-e'],
  time: ['-f', '-o'],
  exec: ['-a'],
};

/**
 * Wrappers the permission subjects also look through, beyond the shell
 * analyzer's list, with the positional arguments they take before the
 * command (`flock LOCKFILE cmd`, `chrt PRIO cmd`).
 */
const MORE_WRAPPERS: Readonly<Record<string, number>> = { ionice: 0, chrt: 1, flock: 1, busybox: 0, watch: 0 };

/** How deep `bash -c` / `eval` texts are recursed into. */
const MAX_DEPTH = 8;

interface Word {
  text: string;
  literal: string | null;
}

/** What {@link subjectCommands} collects, each text once, in order. */
export interface CommandTexts {
  commands: string[];
  unwrapped: string[];
}

interface Collected {
  commands: Set<string>;
  unwrapped: Set<string>;
}

function assignmentText(node: ShNode): string {
  const name = node.children.find((c) => c.field === 'name')?.text ?? '';
  const value = node.children.find((c) => c.field === 'value');
  return `${name}=${value ? wordText(value) : ''}`;
}

/** The index of the word a wrapper chain runs (`env -i A=1 sudo -u x rm` → `rm`), or null when a word is not literal. */
function programIndex(words: Word[]): number | null {
  let i = 0;
  for (;;) {
    const w = words[i];
    if (!w || w.literal === null) return w ? null : i;
    const base = programBase(w.literal);
    if (!WRAPPERS.has(base) && !(base in MORE_WRAPPERS)) return i;
    i++;
    while (i < words.length) {
      const a = words[i]!.literal;
      if (a === null) return null;
      if (a === '--') {
        i++;
        break;
      }
      if (a.startsWith('-')) i += VALUE_OPTIONS[base]?.includes(a) ? 2 : 1;
      else if (!(base in MORE_WRAPPERS) && (NUMERIC_PARAM.test(a) || (base === 'env' && a.includes('=')))) i++;
      else break;
    }
    i += MORE_WRAPPERS[base] ?? 0;
  }
}

/** The literal `-c` text a shell program is given (`bash -ec 'x'`, `sh -c -- 'x'`), if any. */
function shellCText(program: string, args: Word[]): string | null {
  if (!SHELLS.has(program)) return null;
  let hasC = false;
  let j = 0;
  while (j < args.length) {
    const a = args[j]!.literal;
    if (a === null) return null;
    if (a === '--') {
      j++;
      break;
    }
    if (!/^[-+]/.test(a)) break;
    if (/^-[A-Za-z]*c[A-Za-z]*$/.test(a)) hasC = true;
    j += a === '-o' || a === '+o' || a === '-O' || a === '+O' ? 2 : 1;
  }
  return hasC ? (args[j]?.literal ?? null) : null;
}

async function addCommand(node: ShNode, out: Collected, depth: number): Promise<void> {
  const assignments = node.children.filter((c) => c.type === 'variable_assignment').map(assignmentText);
  const { name, args } = commandWords(node);
  const words: Word[] = (name ? [name, ...args] : args).map((n) => ({ text: wordText(n), literal: literalWord(n) }));
  const full = [...assignments, ...words.map((w) => w.text)].join(' ');
  if (full !== '') out.commands.add(full);
  const at = programIndex(words);
  if (at === null || at >= words.length) return;
  const runs = words.slice(at);
  const inner = runs.map((w) => w.text).join(' ');
  if (inner !== full) out.unwrapped.add(inner);
  const program = programBase(runs[0]!.literal!);
  const rest = runs.slice(1).map((w) => w.text);
  // `/bin/rm x` is `rm x` to a rule; what `xargs` runs gets arguments from its input (`xargs rm` runs `rm …`).
  if (program !== runs[0]!.literal) out.unwrapped.add([program, ...rest].join(' '));
  if (words.slice(0, at).some((w) => w.literal !== null && programBase(w.literal) === 'xargs'))
    out.unwrapped.add([program, ...rest, '<input>'].join(' '));
  const nested = program === 'eval' ? evalText(runs.slice(1)) : shellCText(program, runs.slice(1));
  if (nested !== null && depth < MAX_DEPTH) await collect(nested, out, depth + 1);
}

function evalText(args: Word[]): string | null {
  if (args.length === 0 || args.some((a) => a.literal === null)) return null;
  return args.map((a) => a.literal).join(' ');
}

async function walk(node: ShNode, out: Collected, depth: number): Promise<void> {
  if (node.type === 'command') {
    await addCommand(node, out, depth);
  } else if (node.type === 'declaration_command' || node.type === 'unset_command') {
    const parts = node.children
      .filter((c) => c.type !== 'comment')
      .map((c) => (c.type === 'variable_assignment' ? assignmentText(c) : c.named ? wordText(c) : c.text));
    out.commands.add(parts.join(' '));
  }
  for (const child of node.children) await walk(child, out, depth);
}

async function collect(source: string, out: Collected, depth: number): Promise<void> {
  const parsed = await parseCommand(source);
  if (!parsed.ok) {
    const raw = source.trim();
    if (raw !== '') out.commands.add(raw);
    return;
  }
  await walk(parsed.root, out, depth);
}

/**
 * The simple commands of a shell call's `command` text.
 *
 * @returns `commands`: each simple command as spelled (leading assignments
 *   included, `FOO=1 make`), in source order, each once; `unwrapped`: for a
 *   command behind leading assignments or wrappers (`env`, `sudo`, `timeout`,
 *   `nice`, `xargs`, …: words.ts `WRAPPERS`), the command they run
 *   (`sudo rm -rf /` → `rm -rf /`). Text that does not parse is one command,
 *   the text itself, trimmed. Never throws (a parser that cannot load counts
 *   as text that does not parse).
 */
export async function subjectCommands(command: string): Promise<CommandTexts> {
  const out: Collected = { commands: new Set(), unwrapped: new Set() };
  await collect(command, out, 0);
  return { commands: [...out.commands], unwrapped: [...out.unwrapped].filter((u) => !out.commands.has(u)) };
}
