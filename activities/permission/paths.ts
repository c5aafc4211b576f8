/**
 * Paths as permission rules see them (docs/permissions.md): one spelling per
 * file, whatever the call wrote — `..`, `.` and repeated separators resolved,
 * symlinks resolved, workspace-relative inside the workspace.
 */
import { readlink, realpath } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';

function inside(root: string, p: string): boolean {
  return p === root || p.startsWith(root.endsWith(sep) ? root : root + sep);
}

/** How many dangling links one path may pass through (the kernel's own limit). */
const MAX_LINK_HOPS = 40;

/**
 * The real path of `path` (absolute, not normalized: `..` after a symlink
 * is resolved from the link's target, as the kernel does). For a path that
 * does not exist (a new file): the real path of its nearest existing
 * ancestor, plus the rest, resolved lexically. A dangling symlink on the way
 * is followed to where it points (writing through it creates its target).
 */
async function realOrNearest(path: string, hops = 0): Promise<string> {
  const segments = path.split('/');
  for (let keep = segments.length; keep > 1; keep--) {
    const head = segments.slice(0, keep).join('/') || '/';
    try {
      const real = await realpath(head);
      return resolve(real, ...segments.slice(keep));
    } catch {
      // missing, not a directory, no permission, a loop: a dangling link, or try the parent
    }
    if (hops < MAX_LINK_HOPS) {
      const target = await readlink(head).catch(() => null);
      if (target !== null) {
        const rest = segments.slice(keep);
        const at = isAbsolute(target) ? target : `${dirname(head)}/${target}`;
        return realOrNearest([at, ...rest].join('/'), hops + 1);
      }
    }
  }
  return resolve(path);
}

/**
 * Normalizes one path argument of a file tool for rule matching.
 *
 * @param workspace the workspace root (absolute or relative to the process; symlinks in it are fine).
 * @param input the path as the call wrote it: relative to the workspace root, or absolute.
 * @returns the workspace-relative real path, `/`-separated, `.` for the root
 *   itself (`./src//a/../b.ts` → `src/b.ts`; a symlink inside the workspace →
 *   its target's relative path); a path whose real location is outside the
 *   workspace (`../x`, `/etc/passwd`, a symlink pointing out) → its absolute
 *   real path. A path with a NUL byte is only resolved lexically (every tool
 *   refuses it). Never throws.
 */
export async function subjectPath(workspace: string, input: string): Promise<string> {
  const given = resolve(workspace);
  let root = given;
  try {
    root = await realpath(given);
  } catch {
    // an unresolvable workspace: its lexical path (the tool call fails anyway)
  }
  const joined = isAbsolute(input) ? input : `${root}/${input}`;
  const real = input.includes('\0') ? resolve(joined) : await realOrNearest(joined);
  const abs = inside(given, real) && !inside(root, real) ? resolve(root, relative(given, real)) : real;
  if (!inside(root, abs)) return abs;
  const rel = relative(root, abs);
  return rel === '' ? '.' : rel.split(sep).join('/');
}
