/**
 * The bubblewrap options of one shell run (SH10): the filesystem view of a
 * `read-only` or `workspace-write` policy and the network setting, every
 * path given to bwrap made real (symlinks resolved). Decisions where the
 * seeds are silent (SB9) are in docs/sandbox.md.
 */
import { readFile, realpath, lstat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve, isAbsolute } from 'node:path';
import type { SandboxPolicy } from '../../../core/sandbox.js';

/** The options and what they make writable. */
export interface SandboxMounts {
  /** bwrap options, before `--info-fd`/`--` (added by the guard runner). */
  args: string[];
  /** Real paths bound writable (`workspace-write`), in mount order. */
  writable: string[];
  /** Configured writable roots that do not exist on this host (not bound). */
  missing: string[];
}

async function real(path: string): Promise<string | undefined> {
  try {
    return await realpath(path);
  } catch {
    return undefined;
  }
}

function inside(path: string, dir: string): boolean {
  const rel = relative(dir, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/**
 * The git directories a commit in `workspace` writes that lie outside it:
 * the `.git` of an enclosing repository (the workspace is a subdirectory),
 * or, for a linked worktree or submodule (`.git` is a file), its gitdir and
 * the common dir it names. Real paths; empty when there is no repository.
 */
export async function gitWritableDirs(workspace: string): Promise<string[]> {
  for (let dir = workspace; ; dir = dirname(dir)) {
    const dotGit = join(dir, '.git');
    const st = await lstat(dotGit).catch(() => undefined);
    if (st?.isDirectory()) return dir === workspace ? [] : [dotGit];
    if (st?.isFile()) {
      const text = await readFile(dotGit, 'utf8').catch(() => '');
      const m = /^gitdir:\s*(.+?)\s*$/m.exec(text);
      const gitdir = m ? await real(resolve(dir, m[1]!)) : undefined;
      if (!gitdir) return [];
      const common = (await readFile(join(gitdir, 'commondir'), 'utf8').catch(() => '')).trim();
      const commonDir = common ? await real(resolve(gitdir, common)) : undefined;
      return [...new Set([gitdir, ...(commonDir ? [commonDir] : [])])];
    }
    if (dirname(dir) === dir) return [];
  }
}

/**
 * Builds the bwrap options for `policy` (not `danger-full-access`).
 *
 * - Always: `--new-session` (the guard leads the command's group), the whole filesystem
 *   `--ro-bind / /`, a fresh `--dev /dev` and `--proc /proc`, `--chdir` the
 *   run's directory; `--unshare-net` for `network: "deny"` (a private network
 *   namespace: only its own loopback, SB4).
 * - `read-only`: a private tmpfs on /tmp (and on the system temp dir when it
 *   is elsewhere); the workspace and `keepVisible` are bound back read-only
 *   when they lie under it.
 * - `workspace-write`: the system temp dir, the workspace, the git
 *   directories of a commit outside it ({@link gitWritableDirs}) and the
 *   writable roots that exist, bound writable (parents before children);
 *   the workspace's `.zuno/` (Zuno's own state) stays read-only.
 *
 * @param where.workspace absolute workspace root; `where.cwd` the run's directory.
 * @param where.keepVisible paths the run itself needs (the guard, node), kept visible under read-only.
 * @throws when the workspace or the run's directory has no real path (the caller refuses the call).
 *
 * No `--die-with-parent`: its SIGKILL would reach the guard alone when Zuno
 * dies, leaving the command's group running; the guard already ends the
 * group when its stdin closes with Zuno (SH4).
 */
export async function sandboxMounts(
  policy: SandboxPolicy,
  where: { workspace: string; cwd: string; keepVisible: string[] },
): Promise<SandboxMounts> {
  const workspace = await realpath(where.workspace);
  const cwd = await realpath(where.cwd);
  const temp = (await real(tmpdir())) ?? '/tmp';
  const args = ['--new-session', '--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc'];
  if (policy.network === 'deny') args.push('--unshare-net');
  const writable: string[] = [];
  const missing: string[] = [];
  if (policy.mode === 'read-only') {
    const tmpfs = [...new Set(['/tmp', temp])];
    for (const d of tmpfs) args.push('--tmpfs', d);
    const keep = [workspace, ...(await Promise.all(where.keepVisible.map(real))).filter((p) => p !== undefined)];
    for (const p of new Set(keep)) if (tmpfs.some((d) => inside(p, d))) args.push('--ro-bind', p, p);
  } else {
    const roots: string[] = [];
    for (const r of policy.writableRoots) {
      const p = await real(r);
      if (p) roots.push(p);
      else missing.push(r);
    }
    const all = [...new Set([temp, workspace, ...(await gitWritableDirs(workspace)), ...roots])];
    // A parent is bound before anything inside it, so the inner bind is not hidden.
    all.sort((a, b) => a.split('/').length - b.split('/').length);
    for (const p of all) args.push('--bind', p, p);
    writable.push(...all);
    const state = join(workspace, '.zuno');
    if ((await lstat(state).catch(() => undefined))?.isDirectory()) args.push('--ro-bind', state, state);
  }
  args.push('--chdir', cwd);
  return { args, writable, missing };
}
