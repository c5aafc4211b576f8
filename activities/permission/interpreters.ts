/**
 * Where an interpreter takes its program from (docs/permissions.md "Fail
 * closed", issue 26): code given on the command line (`bash -c`, `python -c`,
 * `node -e`, `perl -e`, …), a script file or module, or its standard input.
 * A shell's literal `-c` text is parsed again by commands.ts; code built at
 * run time and a program read from the input fail closed.
 */
import type { Word } from './shell-parts.js';

/** Shells whose `-c` text is bash-like enough to parse and recurse into. */
export const SHELLS: ReadonlySet<string> = new Set(['bash', 'sh', 'dash', 'zsh', 'ksh', 'mksh', 'ash']);

/** Where an interpreter's program comes from. */
export type InterpreterSource =
  /** literal code on the command line */
  | { kind: 'code'; text: string }
  /** code on the command line that is built at run time, or a word that could be an option giving it */
  | { kind: 'dynamic_code' }
  /** the standard input (`sh`, `bash -s`, `python -`, `node` with no script) */
  | { kind: 'input' }
  /** a script file (`script`: its path as written), a module, or an option that runs no program (`--version`) */
  | { kind: 'file'; script?: string };

interface InterpreterSpec {
  /** Short options whose value is the code (`-c`, `-e`); for shells the code is the first operand. */
  code: string;
  longCode?: readonly string[];
  /** Short options that name the program another way (`python -m`) or run none (`-V`). */
  other: string;
  longOther?: readonly string[];
  /** Short options that take a value (attached or the next word). */
  value?: string;
  longValue?: readonly string[];
  /** Short options that take the rest of their cluster as a value (`perl -i.bak`). */
  attached?: string;
  /** Shells: the code of `-c` is the first operand, and `-s` reads the input. */
  shell?: boolean;
}

const SHELL: InterpreterSpec = {
  code: 'c',
  other: '',
  longOther: ['--version', '--help'],
  value: 'oO',
  longValue: ['--rcfile', '--init-file'],
  shell: true,
};
const PYTHON: InterpreterSpec = { code: 'c', other: 'mVh', longOther: ['--version', '--help'], value: 'WX' };
const SPECS: Readonly<Record<string, InterpreterSpec>> = {
  node: {
    code: 'ep',
    longCode: ['--eval', '--print'],
    other: 'vhc',
    longOther: ['--version', '--help', '--check', '--test', '--run'],
    value: 'rC',
    longValue: ['--require', '--import', '--loader', '--experimental-loader', '--input-type', '--conditions'],
  },
  perl: { code: 'eE', other: 'vVh', attached: 'iIlMm0xCdD' },
  ruby: { code: 'e', other: 'vh', longOther: ['--version', '--help'], value: 'CIr' },
  php: { code: 'r', other: 'vhmilS', value: 'cdzt' },
  lua: { code: 'e', other: 'v', value: 'l' },
};
/** Operands that name the standard input. */
const STDIN_NAMES: ReadonlySet<string> = new Set(['-', '/dev/stdin', '/dev/fd/0', '/proc/self/fd/0']);

function specOf(program: string): InterpreterSpec | null {
  if (SHELLS.has(program)) return SHELL;
  if (/^(python|pypy)[0-9.]*$/.test(program)) return PYTHON;
  if (program === 'nodejs') return SPECS.node!;
  if (program === 'luajit') return SPECS.lua!;
  return SPECS[program] ?? null;
}

/** The code value of a code option: attached text, else the next word. */
function codeValue(rest: string, next: Word | undefined): InterpreterSource {
  if (rest !== '') return { kind: 'code', text: rest };
  if (next === undefined) return { kind: 'file' }; // the interpreter refuses a missing value; nothing runs
  return next.literal === null ? { kind: 'dynamic_code' } : { kind: 'code', text: next.literal };
}

/**
 * Where `program` (a base name) would take its program from when run with
 * `args`.
 *
 * @returns null when `program` is not an interpreter Zuno knows (the shells
 *   of {@link SHELLS}, `python*`, `pypy*`, `node`, `nodejs`, `perl`, `ruby`,
 *   `php`, `lua`, `luajit`); else see {@link InterpreterSource}. A word that is
 *   not literal before the script is `dynamic_code` (it could be `-c` and its
 *   code). Pure; never throws.
 */
export function interpreterSource(program: string, args: readonly Word[]): InterpreterSource | null {
  const spec = specOf(program);
  if (!spec) return null;
  let shellCode = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!.literal;
    if (a === null) return { kind: 'dynamic_code' };
    if (a === '--') {
      const next = args[i + 1];
      if (next === undefined) return shellCode ? { kind: 'file' } : { kind: 'input' };
      if (next.literal === null) return { kind: 'dynamic_code' };
      if (shellCode) return { kind: 'code', text: next.literal };
      return STDIN_NAMES.has(next.literal) ? { kind: 'input' } : { kind: 'file', script: next.literal };
    }
    if (STDIN_NAMES.has(a)) return { kind: 'input' };
    if (a.startsWith('--')) {
      const eq = a.indexOf('=');
      const name = eq > 0 ? a.slice(0, eq) : a;
      if (spec.longCode?.includes(name)) return codeValue(eq > 0 ? a.slice(eq + 1) : '', args[i + 1]);
      if (spec.longOther?.includes(name)) return { kind: 'file' };
      if (eq < 0 && spec.longValue?.includes(name)) i++;
      continue;
    }
    const isOption = a.startsWith('-') || (spec.shell === true && a.startsWith('+'));
    if (!isOption) {
      if (shellCode) return { kind: 'code', text: a };
      return { kind: 'file', script: a };
    }
    for (let k = 1; k < a.length; k++) {
      const c = a[k]!;
      const rest = a.slice(k + 1);
      if (spec.code.includes(c)) {
        if (spec.shell) {
          shellCode = true;
          continue;
        }
        return codeValue(rest, args[i + 1]);
      }
      if (spec.other.includes(c)) return { kind: 'file' };
      if (spec.shell && c === 's' && !shellCode) return { kind: 'input' };
      if (spec.value?.includes(c)) {
        if (rest === '') i++;
        break;
      }
      if (spec.attached?.includes(c)) break;
    }
  }
  return shellCode ? { kind: 'file' } : { kind: 'input' };
}
