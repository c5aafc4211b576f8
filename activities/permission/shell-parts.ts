/**
 * The pieces the shell subject is built from (docs/permissions.md, issue 26):
 * a word as rules see it and as the shell would (literal or not), a write
 * target before path resolution, and a small option scanner for the argument
 * lists of well-known programs.
 */

/** One word of a simple command: its rule text (word-text.ts) and its literal value, null when the shell expands it. */
export interface Word {
  text: string;
  literal: string | null;
  /**
   * What separates it from the word before in the source, when that is more than spaces and tabs: a carriage
   * return, form feed or vertical tab (which bash does not split words on, though the parser does), kept so a
   * part shows the text that runs — `echo visible\rrm` — not a space. Absent: one space.
   */
  gap?: string;
}

/** The words of a command as one text: each word's {@link Word.gap} before it, else one space. */
export function joinWords(words: readonly Word[]): string {
  return words.map((w, i) => (i === 0 ? w.text : (w.gap ?? ' ') + w.text)).join('');
}

/**
 * A file a command writes, as spelled, before normalization (subject.ts).
 * `tree`: the path and everything under it. `into`: the path may be a
 * directory the command writes `names` into (`cp a b dir`); `always`: it is
 * one for certain (`-t DIR`); otherwise only when it ends in `/` or is an
 * existing directory when the subject is computed.
 */
export interface RawWrite {
  path: string;
  tree?: boolean;
  into?: { names: string[]; always: boolean };
}

/** How {@link scanArgs} reads a program's options. */
export interface OptionSpec {
  /** Short options that take a value, attached (`-tDIR`) or as the next word (`-t DIR`). */
  shortValue?: string;
  /** Short options whose value can only be attached (`sed -i.bak`). */
  shortAttached?: string;
  /** Long options that take a value as the next word when not written `--opt=value`. */
  longValue?: readonly string[];
}

/** What {@link scanArgs} found. */
export interface ScannedArgs {
  /** Each option seen (`-r`, `--recursive`, `-t`), with its value: the literal text, null when not literal, '' when none. */
  options: Map<string, string | null>;
  /** The operands, in order (non-literal words that could be options count as operands: they fail closed). */
  operands: Word[];
}

/**
 * Splits a program's arguments into options and operands the GNU way:
 * clusters (`-rf`), attached and separate values, `--long=value`, `--` ends
 * the options; options may follow operands. A word that is not literal is an
 * operand. Pure; never throws.
 */
export function scanArgs(args: readonly Word[], spec: OptionSpec = {}): ScannedArgs {
  const options = new Map<string, string | null>();
  const operands: Word[] = [];
  let ended = false;
  for (let i = 0; i < args.length; i++) {
    const w = args[i]!;
    const a = w.literal;
    if (ended || a === null || a === '-' || !a.startsWith('-')) {
      operands.push(w);
      continue;
    }
    if (a === '--') {
      ended = true;
      continue;
    }
    if (a.startsWith('--')) {
      const eq = a.indexOf('=');
      const name = eq > 0 ? a.slice(0, eq) : a;
      if (eq > 0) options.set(name, a.slice(eq + 1));
      else if (spec.longValue?.includes(name)) options.set(name, args[++i]?.literal ?? null);
      else options.set(name, '');
      continue;
    }
    for (let k = 1; k < a.length; k++) {
      const c = a[k]!;
      const rest = a.slice(k + 1);
      if (spec.shortValue?.includes(c)) {
        options.set(`-${c}`, rest !== '' ? rest : (args[++i]?.literal ?? null));
        break;
      }
      if (spec.shortAttached?.includes(c)) {
        options.set(`-${c}`, rest);
        break;
      }
      options.set(`-${c}`, '');
    }
  }
  return { options, operands };
}

/** The last path segment of a literal path (`a/b/` → `b`), for a file written into a directory. */
export function baseName(path: string): string {
  const parts = path.split('/').filter((p) => p !== '');
  return parts.at(-1) ?? path;
}
