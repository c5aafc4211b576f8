/**
 * Path resolution for apply_patch and write: the one place that turns a patch
 * path into a workspace-relative identity and a held FT4 path authority to
 * operate on (see ../path-authority.ts: descriptor walk from the workspace
 * root through `/proc/self/fd/{fd}/{segment}`, no intermediate symlinks, a
 * final-segment symlink followed before authorization and kept, chains longer
 * than 40 refused).
 */
import {
  authorizePath,
  type AuthorityScope,
  type AuthorizedPath,
  type PathRefusal as AuthorityRefusal,
} from '../path-authority.js';

/** A patch path resolved inside the workspace. */
export type PatchPath = AuthorizedPath;

/** Why a path was refused. */
export type PathRefusal = AuthorityRefusal;

/**
 * Resolves a patch path.
 *
 * @param scope owns the descriptors the resolved path holds (close it when the call is done).
 * @param root the real (symlink-resolved) workspace root.
 * @param input the path as written in the patch.
 * @param givenRoot the workspace root as configured (may differ from `root`
 *   through symlinks); absolute paths under it are read as under `root`.
 * @returns `{ ok: true, path }` or `{ ok: false, refusal }`:
 *   `path_outside_workspace` (`..` escapes, absolute paths elsewhere,
 *   symlinks leading out), `symlink_in_path` (an intermediate symlink inside
 *   the workspace), `too_many_symlinks`, `invalid_path` (empty, NUL, the root
 *   itself, a dangling symlink), `not_a_directory` (a file where a directory
 *   is needed), `cannot_access` (permission and other errors).
 */
export function resolvePatchPath(
  scope: AuthorityScope,
  root: string,
  input: string,
  givenRoot: string = root,
): Promise<{ ok: true; path: PatchPath } | { ok: false; refusal: PathRefusal }> {
  return Promise.resolve(authorizePath(scope, root, input, givenRoot));
}
