/**
 * A shell call's write targets in the spelling of path subjects
 * (docs/permissions.md "Writes", issue 26): each normalized by paths.ts
 * `subjectPath` — the same authority the file tools use — relative to the
 * call's working directory; a directory and everything under it is spelled
 * `<dir>/**` (`**` for the workspace root).
 */
import { stat } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { subjectPath } from './paths.js';
import type { RawWrite } from './shell-parts.js';

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}

function spell(path: string, tree: boolean): string {
  if (!tree) return path;
  if (path === '.') return '**';
  return path.endsWith('/') ? `${path}**` : `${path}/**`;
}

/**
 * Normalizes write targets.
 *
 * @param workspace the workspace root.
 * @param workdir the call's working directory, relative to the workspace root (absent: the root).
 * @param writes the targets as the command spells them (commands.ts `shellSubject`).
 * @returns normalized paths, each once, in order: a target that may be a
 *   directory (`cp a b`) is `b/a` when `b` ends in `/` or is an existing
 *   directory now, else `b`; trees end in `/**`. Never throws.
 */
export async function writePaths(
  workspace: string,
  workdir: string | undefined,
  writes: RawWrite[],
): Promise<string[]> {
  const out: string[] = [];
  for (const w of writes) {
    const spelled = isAbsolute(w.path) || workdir === undefined ? w.path : `${workdir}/${w.path}`;
    let targets = [spelled];
    if (w.into) {
      const intoDir =
        w.into.always ||
        w.path.endsWith('/') ||
        (await isDirectory(isAbsolute(spelled) ? spelled : resolve(workspace, spelled)));
      if (intoDir) targets = w.into.names.map((n) => `${spelled.replace(/\/+$/, '')}/${n}`);
    }
    for (const t of targets) out.push(spell(await subjectPath(workspace, t), w.tree === true));
  }
  return [...new Set(out)];
}
