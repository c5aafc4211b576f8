/**
 * Zuno's own directories inside a workspace (`.zuno/artifacts`, `.zuno/bg`):
 * created as real directories, never through a symlink, so withheld output
 * and background output land where `bg` can read them back (BG4, TD9).
 */
import { lstat, mkdir } from 'node:fs/promises';
import { basename, isAbsolute, join, relative, sep } from 'node:path';
import { ensureZunoGitignore } from './zuno-gitignore.js';

/**
 * Ensures `dir` exists as a chain of real directories below `root`, creating
 * missing segments (mode 0755). Segments that already exist must be
 * directories, not symlinks — a `.zuno` planted as a symlink would send
 * output outside the workspace while `bg artifact` (rightly) refuses to
 * read through it.
 * @throws Error naming the offending segment (`… is a symlink` / `… is not a directory`), or the mkdir error.
 */
export async function ensureRealDir(root: string, dir: string): Promise<void> {
  const rel = relative(root, dir);
  if (rel === '') return;
  if (rel.startsWith('..') || isAbsolute(rel)) throw new Error(`${dir} is not inside ${root}`);
  let at = root;
  for (const segment of rel.split(sep)) {
    at = join(at, segment);
    const st = await lstat(at).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return undefined;
      throw err;
    });
    if (!st) {
      await mkdir(at, 0o755).catch((err: NodeJS.ErrnoException) => {
        if (err.code !== 'EEXIST') throw err;
      });
      const now = await lstat(at);
      if (!now.isDirectory()) throw new Error(`${relative(root, at)} is not a directory`);
    } else if (st.isSymbolicLink()) {
      throw new Error(
        `${relative(root, at)} is a symlink; Zuno keeps its output only in a real directory inside the workspace`,
      );
    } else if (!st.isDirectory()) {
      throw new Error(`${relative(root, at)} is not a directory`);
    }
    if (at === join(root, segment) && basename(at) === '.zuno') ensureZunoGitignore(at);
  }
}
