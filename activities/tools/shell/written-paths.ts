/**
 * `writtenPaths` of a shell call (SH7): every statically known path in the
 * command is stat'ed before and after the run, and only observed changes are
 * reported — a deliberate lower bound. Skipped: words the shell expands
 * (`$OUT`, `*.rs`, `$(ls)`, `~`), backgrounded statements, paths outside the
 * workspace, deletions, rewrites that keep size and mtime, and non-files.
 */
import { realpath, stat } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import type { ShNode } from './syntax.js';
import { commandWords, literalWord } from './words.js';

/** Most candidate paths stat'ed per call. */
export const MAX_PATH_CANDIDATES = 256;

/** Redirection destinations that are file descriptors, not paths (`2>&1`, `>&-`). */
const FD_TARGET = /^(\d+|-)$/;

function collect(node: ShNode, out: Set<string>): void {
  if (out.size >= MAX_PATH_CANDIDATES) return;
  switch (node.type) {
    case 'heredoc_body':
      return;
    case 'command': {
      for (const arg of commandWords(node).args) {
        const v = literalWord(arg);
        if (v === null || v === '') continue;
        if (v.startsWith('-')) {
          const eq = v.indexOf('=');
          if (v.startsWith('--') && eq > 0 && eq < v.length - 1) out.add(v.slice(eq + 1));
          continue;
        }
        out.add(v);
      }
      break;
    }
    case 'file_redirect': {
      const dest = node.children.find((c) => c.field === 'destination');
      const v = dest ? literalWord(dest) : null;
      if (v !== null && v !== '' && !FD_TARGET.test(v)) out.add(v);
      break;
    }
  }
  for (let i = 0; i < node.children.length; i++) {
    const c = node.children[i]!;
    const next = node.children[i + 1];
    if (next && !next.named && next.type === '&') continue; // backgrounded: may still be writing after the call
    collect(c, out);
  }
}

/**
 * Statically known paths of a parsed command: literal arguments of every
 * simple command (`--opt=value` values included, other options skipped) and
 * literal redirection targets, at most {@link MAX_PATH_CANDIDATES}.
 */
export function staticPaths(root: ShNode): string[] {
  const out = new Set<string>();
  collect(root, out);
  return [...out];
}

/** One observation of a candidate path. */
interface Seen {
  file: boolean;
  size: bigint;
  mtimeNs: bigint;
}

/** A before-snapshot of the candidate paths of one call. */
export interface PathSnapshot {
  realRoot: string;
  /** workspace-relative path → absolute path */
  targets: Map<string, string>;
  before: Map<string, Seen | null>;
}

function inside(root: string, p: string): boolean {
  return p === root || p.startsWith(root.endsWith(sep) ? root : root + sep);
}

async function observe(realRoot: string, abs: string): Promise<Seen | null> {
  try {
    const real = await realpath(abs);
    if (!inside(realRoot, real)) return null;
    const s = await stat(real, { bigint: true });
    return { file: s.isFile(), size: s.size, mtimeNs: s.mtimeNs };
  } catch {
    return null;
  }
}

/**
 * Resolves the candidates against `cwd`, keeps those lexically inside the
 * workspace, and stats them.
 */
export async function snapshotPaths(workspace: string, cwd: string, candidates: string[]): Promise<PathSnapshot> {
  const root = resolve(workspace);
  const realRoot = await realpath(root).catch(() => root);
  const targets = new Map<string, string>();
  for (const c of candidates) {
    if (c.includes('\0')) continue;
    const abs = resolve(cwd, c);
    const rel = relative(root, abs);
    if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) continue;
    targets.set(rel.split(sep).join('/'), abs);
  }
  const before = new Map<string, Seen | null>();
  await Promise.all([...targets].map(async ([rel, abs]) => before.set(rel, await observe(realRoot, abs))));
  return { realRoot, targets, before };
}

/**
 * Stats the snapshot's paths again.
 *
 * @returns workspace-relative `/`-separated paths, sorted, that are regular
 *   files now (inside the real workspace) and were absent before or changed
 *   size or mtime.
 */
export async function changedPaths(snap: PathSnapshot): Promise<string[]> {
  const changed: string[] = [];
  await Promise.all(
    [...snap.targets].map(async ([rel, abs]) => {
      const after = await observe(snap.realRoot, abs);
      if (!after?.file) return;
      const before = snap.before.get(rel);
      if (!before || !before.file || before.size !== after.size || before.mtimeNs !== after.mtimeNs) changed.push(rel);
    }),
  );
  return changed.sort();
}
