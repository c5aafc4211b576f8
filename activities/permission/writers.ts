/**
 * The files a well-known program writes, read from its arguments
 * (docs/permissions.md "Writes", issue 26): `tee`, `dd of=`, `cp`/`mv`/
 * `install`/`ln` destinations (`mv` sources too: they are removed), `touch`,
 * `truncate`, `rm`, `rmdir`, `unlink`, `shred`, `mkdir`, `sed -i`,
 * `find -fprint…`, `link`, the sources of a hard link (`ln` without `-s`,
 * `cp -l`), and the files `curl -o/-c/-D` and `wget -O/-o/-a` name. Any
 * other program's writes are not read from its arguments (docs/permissions.md
 * says what an `edit` deny therefore does not stop).
 */
import { baseName, scanArgs, type OptionSpec, type RawWrite, type Word } from './shell-parts.js';

/** What one command writes: the targets known statically; `unknown` when some target is not (it fails closed). */
export interface ProgramWrites {
  writes: RawWrite[];
  unknown: boolean;
}

const NONE: ProgramWrites = { writes: [], unknown: false };

/** Option syntax of the programs whose operands are all written. */
const OPERAND_WRITERS: Readonly<Record<string, OptionSpec>> = {
  tee: {},
  touch: { shortValue: 'dtr', longValue: ['--date', '--reference'] },
  truncate: { shortValue: 'sr', longValue: ['--size', '--reference'] },
  rm: {},
  rmdir: {},
  unlink: {},
  shred: { shortValue: 'ns', longValue: ['--iterations', '--size', '--random-source'] },
  mkdir: { shortValue: 'm', longValue: ['--mode'] },
};

/** Option syntax of the programs that copy or move into a destination. */
const COPIERS: Readonly<Record<string, OptionSpec>> = {
  cp: { shortValue: 'St', longValue: ['--target-directory', '--suffix'] },
  mv: { shortValue: 'St', longValue: ['--target-directory', '--suffix'] },
  install: { shortValue: 'mogSt', longValue: ['--mode', '--owner', '--group', '--target-directory', '--suffix'] },
  ln: { shortValue: 'St', longValue: ['--target-directory', '--suffix'] },
};

/** Downloaders: their options that name a file they write (`-` is the standard output). */
const DOWNLOADERS: Readonly<Record<string, { spec: OptionSpec; writes: readonly string[] }>> = {
  curl: {
    spec: { shortValue: 'ocD', longValue: ['--output', '--cookie-jar', '--dump-header', '--output-dir'] },
    writes: ['-o', '--output', '-c', '--cookie-jar', '-D', '--dump-header'],
  },
  wget: {
    spec: { shortValue: 'Ooa', longValue: ['--output-document', '--output-file', '--append-output'] },
    writes: ['-O', '--output-document', '-o', '--output-file', '-a', '--append-output'],
  },
};

/** `dd` operands that are not the output file. */
const DD_OTHER = /^(if|bs|ibs|obs|cbs|count|skip|seek|iseek|oseek|conv|iflag|oflag|status)=/;

/** `find` actions that write the file named by the next word. */
const FIND_WRITES: ReadonlySet<string> = new Set(['-fprint', '-fprint0', '-fprintf', '-fls']);

function has(options: Map<string, string | null>, ...names: string[]): boolean {
  return names.some((n) => options.has(n));
}

function operandWrites(operands: Word[], tree: boolean): ProgramWrites {
  const writes: RawWrite[] = [];
  let unknown = false;
  for (const w of operands) {
    if (w.literal === null) unknown = true;
    else if (w.literal !== '') writes.push(tree ? { path: w.literal, tree } : { path: w.literal });
  }
  return { writes, unknown };
}

/**
 * A hard link's sources: `ln` without `-s`, `cp -l`. The linked file can be
 * written through its new name, so it counts as written.
 */
function hardLinked(program: string, options: Map<string, string | null>, operands: Word[]): ProgramWrites {
  const hard =
    (program === 'ln' && !has(options, '-s', '--symbolic')) || (program === 'cp' && has(options, '-l', '--link'));
  if (!hard) return NONE;
  const targeted = has(options, '-t', '--target-directory');
  return operandWrites(targeted || operands.length === 1 ? operands : operands.slice(0, -1), false);
}

function copyWrites(program: string, args: readonly Word[]): ProgramWrites {
  const { options, operands } = scanArgs(args, COPIERS[program]);
  const linked = hardLinked(program, options, operands);
  const made = copyTargets(program, options, operands);
  return { writes: [...linked.writes, ...made.writes], unknown: linked.unknown || made.unknown };
}

function copyTargets(program: string, options: Map<string, string | null>, operands: Word[]): ProgramWrites {
  if (program === 'install' && has(options, '-d', '--directory')) return operandWrites(operands, false);
  const tree = program === 'mv' || (program === 'cp' && has(options, '-r', '-R', '-a', '--recursive', '--archive'));
  const moved =
    program === 'mv'
      ? operandWrites(operands.slice(0, has(options, '-t', '--target-directory') ? undefined : -1), true)
      : NONE;
  const withMoved = (w: ProgramWrites): ProgramWrites => ({
    writes: [...moved.writes, ...w.writes],
    unknown: moved.unknown || w.unknown,
  });
  const target = options.has('-t') ? options.get('-t') : options.get('--target-directory');
  if (target !== undefined) {
    if (target === null) return withMoved({ writes: [], unknown: true });
    if (operands.some((o) => o.literal === null))
      return withMoved({ writes: [{ path: target, tree: true }], unknown: false });
    const names = operands.map((o) => baseName(o.literal!));
    return withMoved({ writes: [{ path: target, tree, into: { names, always: true } }], unknown: false });
  }
  if (operands.length === 0) return NONE;
  if (operands.length === 1) {
    // `ln -s a/b` makes `b` in the working directory; cp/mv/install with one operand fail.
    const only = operands[0]!.literal;
    if (program !== 'ln') return NONE;
    return only === null ? { writes: [], unknown: true } : { writes: [{ path: baseName(only) }], unknown: false };
  }
  const dest = operands.at(-1)!.literal;
  if (dest === null) return withMoved({ writes: [], unknown: true });
  const sources = operands.slice(0, -1);
  if (has(options, '-T', '--no-target-directory')) return withMoved({ writes: [{ path: dest, tree }], unknown: false });
  if (sources.some((s) => s.literal === null))
    return withMoved({ writes: [{ path: dest, tree: true }], unknown: false });
  const names = sources.map((s) => baseName(s.literal!));
  return withMoved({ writes: [{ path: dest, tree, into: { names, always: sources.length > 1 } }], unknown: false });
}

function downloadWrites(program: string, args: readonly Word[]): ProgramWrites {
  const { spec, writes: names } = DOWNLOADERS[program]!;
  const { options } = scanArgs(args, spec);
  const writes: RawWrite[] = [];
  let unknown = false;
  const dir = options.get('--output-dir');
  if (dir === null) unknown = true;
  for (const name of names) {
    const v = options.get(name);
    if (v === null) unknown = true;
    else if (v !== undefined && v !== '' && v !== '-')
      writes.push({ path: dir && !v.startsWith('/') && (name === '-o' || name === '--output') ? `${dir}/${v}` : v });
  }
  return { writes, unknown };
}

function sedWrites(args: readonly Word[]): ProgramWrites {
  const { options, operands } = scanArgs(args, {
    shortValue: 'efl',
    shortAttached: 'i',
    longValue: ['--expression', '--file', '--line-length'],
  });
  if (!has(options, '-i', '--in-place')) return NONE;
  const scripted = has(options, '-e', '-f', '--expression', '--file');
  return operandWrites(scripted ? operands : operands.slice(1), false);
}

function ddWrites(args: readonly Word[]): ProgramWrites {
  const writes: RawWrite[] = [];
  let unknown = false;
  for (const w of args) {
    if (w.literal === null) unknown ||= !DD_OTHER.test(w.text);
    else if (w.literal.startsWith('of=')) writes.push({ path: w.literal.slice(3) });
  }
  return { writes, unknown };
}

function findWrites(args: readonly Word[]): ProgramWrites {
  const writes: RawWrite[] = [];
  let unknown = false;
  for (let i = 0; i < args.length; i++) {
    if (!FIND_WRITES.has(args[i]!.literal ?? '')) continue;
    const file = args[++i]?.literal;
    if (file === null) unknown = true;
    else if (file !== undefined) writes.push({ path: file });
  }
  return { writes, unknown };
}

/**
 * The files `program` (a base name, wrappers already looked through) writes
 * when run with `args`.
 *
 * @returns `writes`: each target as spelled (relative to the command's
 *   working directory, or absolute); `tree` for a recursive `rm`, `cp -r`
 *   and everything `mv` moves; `into` for a `cp`/`mv`/`install`/`ln`
 *   destination that may be a directory. `unknown`: some target's path is
 *   built at run time (`tee "$F"`, `rm $x`, `cp a $DEST`). A program not
 *   listed in the module comment → no writes. Pure; never throws.
 */
export function programWrites(program: string, args: readonly Word[]): ProgramWrites {
  const operandSpec = OPERAND_WRITERS[program];
  if (operandSpec) {
    const { options, operands } = scanArgs(args, operandSpec);
    return operandWrites(operands, program === 'rm' && has(options, '-r', '-R', '--recursive'));
  }
  if (program in COPIERS) return copyWrites(program, args);
  if (program === 'sed') return sedWrites(args);
  if (program in DOWNLOADERS) return downloadWrites(program, args);
  if (program === 'dd') return ddWrites(args);
  if (program === 'find') return findWrites(args);
  if (program === 'link') return operandWrites(args.slice(0, 2), false);
  return NONE;
}

/** `cp` options that make links or copy links as links (GNU `cp -r` copies a link as a link). */
const CP_LINKING = ['-s', '-l', '-r', '-R', '-a', '-d', '-P', '--symbolic-link', '--link', '--recursive', '--archive'];

/**
 * true when `program` run with `args` may make a link — `ln`, `link`, `mv`
 * (it renames links too), `cp` with an option in {@link CP_LINKING},
 * `--no-dereference` or `--preserve…=links` — so that a write elsewhere in
 * the same command may go through it (issue 26 review). Pure.
 */
export function makesLink(program: string, args: readonly Word[]): boolean {
  if (program === 'ln' || program === 'link' || program === 'mv') return true;
  if (program !== 'cp') return false;
  const { options } = scanArgs(args, COPIERS.cp);
  if (has(options, ...CP_LINKING, '--no-dereference')) return true;
  return [...options].some(
    ([name, value]) => name.startsWith('--preserve') && (value === null || /links|all/.test(value)),
  );
}

/** true when `program` is one whose writes {@link programWrites} reads (its targets may come from input under `xargs`). */
export function isWriter(program: string): boolean {
  return (
    program in OPERAND_WRITERS ||
    program in COPIERS ||
    program in DOWNLOADERS ||
    program === 'sed' ||
    program === 'dd' ||
    program === 'link'
  );
}
