/**
 * Workspace path arguments of the tools, turned into typed tool results.
 *
 * {@link authorizeForReading} is the FT4 path authority for the reading tools
 * (read, glob, grep): see ./path-authority.ts (descriptor walk from the
 * workspace root through `/proc/self/fd`, no intermediate symlinks, a final
 * symlink followed once, chains longer than 40 refused). The tool then opens
 * its target through the held descriptors.
 *
 * {@link resolveWorkspacePath} is the older realpath containment check, a
 * check-then-use kept only for shell's `workdir` (the shell command runs
 * by path anyway, so a held descriptor would not bind it).
 */
import { realpath, stat } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import type { ToolResult } from '../../core/tools/types.js';
import { errorResult } from './common.js';
import { authorizeExisting, type AuthorityScope, type AuthorizedExisting } from './path-authority.js';

/** A path argument resolved inside the workspace. */
export interface WorkspacePath {
  /** Real workspace root (symlinks resolved). */
  root: string;
  /** Real absolute path of the target. */
  abs: string;
  /** Canonical workspace-relative path, `/`-separated; `.` for the root itself. */
  rel: string;
  /** stat of the target (symlinks followed). */
  stat: Stats;
}

function inside(root: string, p: string): boolean {
  return p === root || p.startsWith(root.endsWith(sep) ? root : root + sep);
}

function toRel(root: string, abs: string): string {
  const r = relative(root, abs);
  return r === '' ? '.' : r.split(sep).join('/');
}

/**
 * Resolves a path argument against the workspace by realpath (relative paths
 * from the root; absolute paths must point inside it). Used by shell's
 * `workdir` only; the file tools use {@link authorizeForReading} or the
 * write authority.
 *
 * @returns `{ ok: true, value }` or `{ ok: false, result }` where result is a
 *   typed error: `path_outside_workspace` (`..` escapes, absolute paths
 *   elsewhere, symlinks leading out), `not_found` (missing, dangling symlink,
 *   a non-directory in the middle), `cannot_read` (permission, loops),
 *   `invalid_arguments` (NUL byte).
 */
export async function resolveWorkspacePath(
  workspace: string,
  input: string,
): Promise<{ ok: true; value: WorkspacePath } | { ok: false; result: ToolResult }> {
  if (input.includes('\0')) {
    return { ok: false, result: errorResult('invalid_arguments', 'The path contains a NUL byte; pass a plain path.') };
  }
  const given = resolve(workspace);
  const real = await realRoot(workspace);
  if (!real.ok) return real;
  const root = real.root;
  const lexical = isAbsolute(input) ? resolve(input) : resolve(root, input);
  const lexicallyInside = inside(given, lexical) || inside(root, lexical);
  const outside = (): { ok: false; result: ToolResult } => ({
    ok: false,
    result: errorResult(
      'path_outside_workspace',
      `Path ${JSON.stringify(input)} is outside the workspace (${root}). Use a path relative to the workspace root, without leaving it.`,
      { path: input },
    ),
  });
  let abs: string;
  try {
    abs = await realpath(lexical);
  } catch (err) {
    if (!lexicallyInside) return outside();
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') {
      return {
        ok: false,
        result: errorResult(
          'not_found',
          `Path not found: ${JSON.stringify(input)} (relative to the workspace root). Use glob to find the right path.`,
          { path: input },
        ),
      };
    }
    return {
      ok: false,
      result: errorResult('cannot_read', `Cannot access ${JSON.stringify(input)}: ${code ?? String(err)}.`, {
        path: input,
        code,
      }),
    };
  }
  if (!inside(root, abs)) return outside();
  let st: Stats;
  try {
    st = await stat(abs);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return {
      ok: false,
      result: errorResult('cannot_read', `Cannot access ${JSON.stringify(input)}: ${code ?? String(err)}.`, {
        path: input,
        code,
      }),
    };
  }
  return { ok: true, value: { root, abs, rel: toRel(root, abs), stat: st } };
}

/** The workspace root resolved for an authorization, or the `workspace_unavailable` result. */
async function realRoot(workspace: string): Promise<{ ok: true; root: string } | { ok: false; result: ToolResult }> {
  const given = resolve(workspace);
  try {
    return { ok: true, root: await realpath(given) };
  } catch (err) {
    return {
      ok: false,
      result: errorResult(
        'workspace_unavailable',
        `The workspace root ${given} cannot be resolved (${(err as NodeJS.ErrnoException).code ?? String(err)}).`,
      ),
    };
  }
}

/**
 * Authorizes a reading tool's path argument (FT4, Linux): the existing file
 * or directory it names, reached from the workspace root through held
 * directory descriptors (see `authorizeExisting` in ./path-authority.ts).
 *
 * @param workspace the workspace root as configured (absolute; symlinks in it are fine).
 * @param input the path as the model wrote it; `.` (or the root's absolute path) is the root.
 * @param scope owns the descriptors of the result; close it when the call is done.
 * @returns `{ ok: true, path }` (`path.target` opens the target through the
 *   held parent), or `{ ok: false, result }`, a typed error result:
 *   `path_outside_workspace` (`..` escapes, absolute paths elsewhere,
 *   symlinks leading out), `symlink_in_path` (a directory on the way is a
 *   symlink, even one inside the workspace; the message names it and gives
 *   the real path), `too_many_symlinks` (a final symlink chain longer than
 *   40), `not_found` (missing, a dangling final symlink, or a file where a
 *   directory is needed on the way), `cannot_read` (permission and other
 *   errors), `invalid_arguments` (NUL byte), `workspace_unavailable`.
 *   `data` carries `path` (the input) and, when one segment is to blame, `segment`.
 */
export async function authorizeForReading(
  workspace: string,
  input: string,
  scope: AuthorityScope,
): Promise<{ ok: true; path: AuthorizedExisting } | { ok: false; result: ToolResult }> {
  if (input.includes('\0')) {
    return { ok: false, result: errorResult('invalid_arguments', 'The path contains a NUL byte; pass a plain path.') };
  }
  const r = await realRoot(workspace);
  if (!r.ok) return r;
  const a = authorizeExisting(scope, r.root, input, workspace);
  if (a.ok) return a;
  const { code, message, segment } = a.refusal;
  const data = { path: input, ...(segment !== undefined ? { segment } : {}) };
  switch (code) {
    case 'path_outside_workspace':
    case 'symlink_in_path':
    case 'too_many_symlinks':
    case 'not_found':
      return { ok: false, result: errorResult(code, message, data) };
    case 'not_a_directory':
      return { ok: false, result: errorResult('not_found', `Path not found: ${message}`, data) };
    case 'invalid_path':
      return { ok: false, result: errorResult('invalid_arguments', message, data) };
    case 'cannot_access':
      return { ok: false, result: errorResult('cannot_read', message, data) };
  }
}
