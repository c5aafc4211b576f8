/**
 * Path resolution for apply_patch: the one place that turns a patch path into
 * a workspace-relative identity and an absolute path to operate on. Kept small
 * and separate so the FT4 descriptor-walk authority (held directory handles,
 * `/proc/self/fd/{fd}/{segment}`, no intermediate symlinks) can replace it.
 *
 * Today's rule (realpath based, like activities/tools/paths.ts): the path is
 * resolved lexically against the workspace root (absolute paths are taken as
 * given); the longest existing prefix is resolved with realpath (symlinks
 * followed, so a final-segment symlink is followed once and the link itself
 * survives the write) and must stay inside the real workspace root. The
 * remaining, not yet existing segments must not be dangling symlinks.
 */
import { lstat, realpath, stat } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';

/** A patch path resolved inside the workspace. */
export interface PatchPath {
  /** Canonical workspace-relative path, `/`-separated (the key of read credentials). */
  rel: string;
  /** Absolute path to read, write or unlink. */
  abs: string;
  /** The deepest existing directory on the way to `abs` (for a missing target: where creation starts). */
  existingDir: string;
  /** Directories to create, outermost first, before `abs` can be written. */
  missingDirs: string[];
}

/** Why a path was refused. */
export interface PathRefusal {
  code: 'path_outside_workspace' | 'invalid_path' | 'not_a_directory' | 'cannot_access';
  message: string;
  path: string;
}

function inside(root: string, p: string): boolean {
  return p === root || p.startsWith(root.endsWith(sep) ? root : root + sep);
}

/**
 * Resolves a patch path.
 *
 * @param root the real (symlink-resolved) workspace root.
 * @param input the path as written in the patch.
 * @param givenRoot the workspace root as configured (may differ from `root`
 *   through symlinks); absolute paths under it are read as under `root`.
 * @returns `{ ok: true, path }` or `{ ok: false, refusal }`:
 *   `path_outside_workspace` (`..` escapes, absolute paths elsewhere,
 *   symlinks leading out), `invalid_path` (empty, NUL, the root itself, a
 *   dangling symlink on the way), `not_a_directory` (a file where a directory
 *   is needed), `cannot_access` (permission and other errors).
 */
export async function resolvePatchPath(
  root: string,
  input: string,
  givenRoot: string = root,
): Promise<{ ok: true; path: PatchPath } | { ok: false; refusal: PathRefusal }> {
  const refuse = (code: PathRefusal['code'], message: string) =>
    ({ ok: false, refusal: { code, message, path: input } }) as const;
  if (input === '' || input.includes('\0')) return refuse('invalid_path', 'The path is empty or contains a NUL byte.');
  let lexical = isAbsolute(input) ? resolve(input) : resolve(root, input);
  const given = resolve(givenRoot);
  if (!inside(root, lexical) && inside(given, lexical)) lexical = join(root, relative(given, lexical));
  if (!inside(root, lexical)) {
    return refuse(
      'path_outside_workspace',
      `Path ${JSON.stringify(input)} is outside the workspace (${root}). Use a path relative to the workspace root, without leaving it.`,
    );
  }
  const tail: string[] = [];
  let probe = lexical;
  let real: string | undefined;
  for (;;) {
    try {
      real = await realpath(probe);
      break;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOTDIR')
        return refuse('not_a_directory', `A part of ${JSON.stringify(input)} is not a directory.`);
      if (code !== 'ENOENT') return refuse('cannot_access', `Cannot access ${JSON.stringify(input)}: ${code}.`);
      try {
        await lstat(probe);
        return refuse('invalid_path', `${JSON.stringify(input)} goes through a dangling symlink.`);
      } catch {
        // missing for real: go one level up
      }
      if (probe === root) return refuse('cannot_access', `The workspace root ${root} does not exist.`);
      tail.unshift(probe.slice(probe.lastIndexOf(sep) + 1));
      probe = resolve(probe, '..');
    }
  }
  if (!inside(root, real)) {
    return refuse(
      'path_outside_workspace',
      `Path ${JSON.stringify(input)} leads outside the workspace (${root}) through a symlink.`,
    );
  }
  if (tail.length > 0) {
    const st = await stat(real).catch(() => undefined);
    if (!st?.isDirectory()) {
      return refuse('not_a_directory', `${JSON.stringify(relative(root, real))} is not a directory.`);
    }
  }
  const abs = tail.length > 0 ? join(real, ...tail) : real;
  const rel = relative(root, abs).split(sep).join('/');
  if (rel === '') return refuse('invalid_path', 'The path names the workspace root, not a file.');
  const missingDirs: string[] = [];
  for (let i = 1; i < tail.length; i++) missingDirs.push(join(real, ...tail.slice(0, i)));
  return { ok: true, path: { rel, abs, existingDir: tail.length > 0 ? real : resolve(abs, '..'), missingDirs } };
}
