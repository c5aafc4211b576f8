/**
 * Wrappers a permission subject looks through (docs/permissions.md
 * "Wrappers"): which word of a simple command is the program it runs
 * (`env -i A=1 sudo -u x rm` → `rm`), whether that cannot be told statically
 * (issue 26: it fails closed), and whether the command runs in another
 * directory.
 */
import type { DynamicKind } from '../../core/permission/types.js';
import { NUMERIC_PARAM, programBase, WRAPPERS } from '../tools/shell/words.js';
import type { Word } from './shell-parts.js';

/** Wrapper options that take the next word as their value (`sudo -u root …`). */
const VALUE_OPTIONS: Readonly<Record<string, readonly string[]>> = {
  sudo: ['-u', '-g', '-C', '-h', '-p', '-U', '-r', '-t', '-D', '-R', '-T', '--chdir'],
  doas: ['-u', '-C'],
  env: ['-u', '-C', '--chdir'],
  timeout: ['-s', '-k'],
  nice: ['-n'],
  xargs: ['-I', '-n', '-P', '-d', '-L', '-s', '-E', '-a'],
  stdbuf: ['-i', '-o', '-e'],
  time: ['-f', '-o'],
  exec: ['-a'],
  watch: ['-n', '--interval'],
  ionice: ['-c', '-n', '-p', '-P', '-u', '--class', '--classdata'],
  flock: ['-w', '-E', '--timeout', '--conflict-exit-code'],
};

/**
 * Wrappers the permission subjects also look through, beyond the shell
 * analyzer's list, with the positional arguments they take before the
 * command (`flock LOCKFILE cmd`, `chrt PRIO cmd`).
 */
const MORE_WRAPPERS: Readonly<Record<string, number>> = {
  ionice: 0,
  chrt: 1,
  flock: 1,
  busybox: 0,
  toybox: 0,
  watch: 0,
};

/** Wrapper options that run the command in another directory. */
const CHDIR_OPTIONS: Readonly<Record<string, readonly string[]>> = {
  env: ['-C', '--chdir'],
  sudo: ['-D', '--chdir'],
};

/** Where {@link programIndex} found the program, or why it cannot tell. */
export type ProgramAt = { at: number; chdir: boolean } | { dynamic: DynamicKind };

/**
 * The index of the word a wrapper chain runs (`env -i A=1 sudo -u x rm` →
 * `rm`), or why it cannot be told: a word in the program's place (or an
 * option before it) that is not literal → `program`; `env -S` → `env_split`;
 * `flock LOCK -c …` → `program`. `chdir`: `env -C`/`sudo -D` move the command
 * to another directory. Pure; never throws.
 */
export function programIndex(words: Word[]): ProgramAt {
  let i = 0;
  let chdir = false;
  for (;;) {
    const w = words[i];
    if (!w) return { at: i, chdir };
    if (w.literal === null) return { dynamic: 'program' };
    const base = programBase(w.literal);
    if (!WRAPPERS.has(base) && !(base in MORE_WRAPPERS)) return { at: i, chdir };
    i++;
    while (i < words.length) {
      const a = words[i]!.literal;
      if (a === null) {
        if (base === 'env' && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[i]!.text)) {
          i++;
          continue;
        }
        return { dynamic: 'program' };
      }
      if (base === 'env' && (/^-[A-Za-z0-9]*S/.test(a) || a.startsWith('--split-string'))) {
        return { dynamic: 'env_split' };
      }
      if (base === 'flock' && (a === '-c' || a === '--command')) return { dynamic: 'program' };
      if (a === '--') {
        i++;
        break;
      }
      // `env -C dir`, `sudo -D dir`: the command runs elsewhere, so its relative writes are not placed.
      if (CHDIR_OPTIONS[base]?.some((o) => a === o || a.startsWith(`${o}=`) || (o.length === 2 && a.startsWith(o))))
        chdir = true;
      if (a.startsWith('-')) i += VALUE_OPTIONS[base]?.includes(a) ? 2 : 1;
      else if (!(base in MORE_WRAPPERS) && (NUMERIC_PARAM.test(a) || (base === 'env' && a.includes('=')))) i++;
      else break;
    }
    i += MORE_WRAPPERS[base] ?? 0;
    // `flock LOCK -c 'cmd'` runs its text through sh; options after the lock file are not read: fail closed.
    if (base === 'flock' && words[i]?.literal?.startsWith('-')) return { dynamic: 'program' };
  }
}
