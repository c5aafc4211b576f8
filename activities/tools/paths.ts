/**
 * Workspace containment for tool path arguments.
 *
 * This is a realpath-based check: the argument is resolved (symlinks
 * followed) and must land inside the real workspace root. It is correct for
 * the read-only tools here, but it is a check-then-use: a symlink swapped
 * between the check and the open could redirect the access. Full path
 * authority (FT4: walking from the authorization boundary one segment at a
 * time through held directory descriptors, never following intermediate
 * symlinks) is a later issue and must replace this for writes.
 */
import { realpath, stat } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import type { ToolResult } from '../../core/tools/types.js';
import { errorResult } from './common.js';

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
 * Resolves a tool's path argument against the workspace (relative paths from
 * the root; absolute paths must point inside it).
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
  let root: string;
  try {
    root = await realpath(given);
  } catch (err) {
    return {
      ok: false,
      result: errorResult(
        'workspace_unavailable',
        `The workspace root ${given} cannot be resolved (${(err as NodeJS.ErrnoException).code ?? String(err)}).`,
      ),
    };
  }
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
