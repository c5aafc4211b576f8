/**
 * Reading the local rule files (SE10, SPEC-DIGEST SE27): the user-level
 * `$ZUNO_HOME/AGENTS.md`, then the workspace root's `AGENTS.md`. A file is
 * read whole or not at all; what fits is decided by `core/rule-budget.ts`.
 *
 * Never blocks: every path is `stat`ed first and anything but a regular
 * file is refused, and the file is then opened `O_NONBLOCK` and checked
 * again on the open descriptor, so a FIFO swapped in between is still never
 * waited on.
 */
import { zunoHome } from '../zuno-home.js';
import { createHash } from 'node:crypto';
import { constants, type Stats } from 'node:fs';
import { lstat, open, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { ZunoError } from '../../core/errors.js';
import { planRuleFiles, RULE_FILE_UNREADABLE, type RuleScope, type SkippedRule } from '../../core/rule-budget.js';

/** The rule file's name, in the user-level home and in the workspace root. */
export const RULE_FILE_NAME = 'AGENTS.md';

/** A place a rule file may be. */
export interface RuleCandidate {
  path: string;
  scope: RuleScope;
}

/** The candidate rule files in precedence order: user-level, then the workspace root (absolute path). */
export function ruleCandidates(workspace: string): RuleCandidate[] {
  return [
    { path: join(zunoHome(), RULE_FILE_NAME), scope: 'user' },
    { path: join(resolve(workspace), RULE_FILE_NAME), scope: 'workspace' },
  ];
}

/** A rule file that exists and is a readable regular file. */
export interface RuleFile extends RuleCandidate {
  /** Size in bytes (the bytes read, or the size on disk when it was too large to read). */
  bytes: number;
  /** The whole text (UTF-8, a leading BOM dropped); null when the file exceeded the budget and was not read. */
  text: string | null;
  /** sha256 (hex) of the file's bytes; null when not read. */
  sha256: string | null;
  /** `dev:ino`: the same file reached by two paths is one rule file. */
  identity: string;
}

/** The rule files of a turn: those in force (whole text) and those skipped whole for the budget. */
export interface RuleFiles {
  inForce: (RuleFile & { text: string; sha256: string })[];
  skipped: SkippedRule<RuleFile>[];
  budget: number;
}

/**
 * Reads the candidate rule files and applies the budget (SE27). An absent
 * file is not there (nothing reported); a file larger than the whole budget
 * is not even read (it is skipped whole, by its size on disk); the same
 * file reached by both paths (ZUNO_HOME is the workspace) counts once.
 * @param budget the whole rule budget in bytes (core/rule-budget.ts `ruleBudgetBytes`).
 * @throws ZunoError `rule_file_unreadable` naming the file and the fix, for
 *   the first candidate that exists but is not a readable regular UTF-8 file
 *   (a directory, FIFO, socket or device; permission denied; a dangling or
 *   looping symbolic link; invalid UTF-8).
 */
export async function loadRuleFiles(workspace: string, budget: number): Promise<RuleFiles> {
  const found: RuleFile[] = [];
  for (const c of ruleCandidates(workspace)) {
    const f = await readRuleFile(c, budget);
    if (f && !found.some((g) => g.identity === f.identity)) found.push(f);
  }
  const plan = planRuleFiles(found, budget);
  return { inForce: plan.inForce as RuleFiles['inForce'], skipped: plan.skipped, budget };
}

/**
 * One candidate: null when absent, its size only when larger than
 * `readUpTo` bytes, else its whole text and digest.
 * @throws ZunoError `rule_file_unreadable` (see {@link loadRuleFiles}).
 */
export async function readRuleFile(c: RuleCandidate, readUpTo: number): Promise<RuleFile | null> {
  let st: Stats;
  try {
    st = await stat(c.path);
  } catch (err) {
    const code = errnoOf(err);
    if (code === 'ENOENT') {
      const isLink = await lstat(c.path).then(
        () => true,
        () => false,
      );
      if (!isLink) return null;
      throw unreadable(c, 'is a symbolic link whose target does not exist', 'fix the link or remove it');
    }
    if (code === 'ENOTDIR') return null; // a component of the path is a file: there is no such rule file
    throw unreadableErrno(c, err);
  }
  refuseNonRegular(c, st);
  const fh = await open(c.path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0)).catch(
    (err: unknown) => {
      throw unreadableErrno(c, err);
    },
  );
  try {
    const fst = await fh.stat();
    refuseNonRegular(c, fst);
    const identity = `${fst.dev}:${fst.ino}`;
    if (fst.size > readUpTo) return { ...c, bytes: fst.size, text: null, sha256: null, identity };
    const buf = await fh.readFile().catch((err: unknown) => {
      throw unreadableErrno(c, err);
    });
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(buf);
    } catch {
      throw unreadable(c, 'is not valid UTF-8 text', 'save it as UTF-8 or remove it');
    }
    return { ...c, bytes: buf.length, text, sha256: createHash('sha256').update(buf).digest('hex'), identity };
  } finally {
    await fh.close();
  }
}

function refuseNonRegular(c: RuleCandidate, st: Stats): void {
  if (st.isFile()) return;
  if (st.isDirectory()) throw unreadable(c, 'is a directory, not a file', 'remove or rename it');
  const kind = st.isFIFO()
    ? 'a FIFO (named pipe)'
    : st.isSocket()
      ? 'a socket'
      : st.isCharacterDevice() || st.isBlockDevice()
        ? 'a device'
        : 'a special file';
  throw unreadable(c, `is ${kind}, not a regular file`, 'replace it with a regular file or remove it');
}

function errnoOf(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

function unreadableErrno(c: RuleCandidate, err: unknown): ZunoError {
  const code = errnoOf(err);
  if (code === 'EACCES' || code === 'EPERM') {
    return unreadable(
      c,
      `cannot be read (permission denied, ${code})`,
      `make it and its directory readable by the user running the Zuno worker (chmod a+r ${c.path}) or remove it`,
    );
  }
  if (code === 'ELOOP') return unreadable(c, 'is a symbolic link loop', 'fix the link or remove it');
  if (code === 'ENXIO') return unreadable(c, 'is a socket, not a regular file', 'remove it');
  const why = code ?? (err instanceof Error ? err.message : String(err));
  return unreadable(c, `cannot be read (${why})`, 'fix or remove it');
}

/** `AGENTS.md at <path> <problem>: <fix>` — one line naming the file and the fix. */
function unreadable(c: RuleCandidate, problem: string, fix: string): ZunoError {
  return new ZunoError(RULE_FILE_UNREADABLE, `${RULE_FILE_NAME} at ${c.path} ${problem}: ${fix}`, {
    path: c.path,
    scope: c.scope,
  });
}
