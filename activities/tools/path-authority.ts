/**
 * FT4 path authority for the writing tools (write, apply_patch) on Linux.
 *
 * A workspace-relative path is resolved once, at authorization, from the
 * workspace root one segment at a time through held directory descriptors:
 * every intermediate segment is opened as
 * `/proc/self/fd/{fd}/{segment}` with `O_DIRECTORY | O_NOFOLLOW`, so an
 * intermediate symlink is never followed (typed refusal) and every
 * intermediate segment must be a directory. Only a final-segment symlink is
 * followed, once per hop, before authorization: its target is resolved again
 * by the same walk (the link itself survives the write); chains longer than
 * {@link MAX_SYMLINK_HOPS} are refused. `..` escapes and absolute paths
 * outside the workspace are refused.
 *
 * The result, a {@link PathAuthority}, holds a descriptor of the deepest
 * existing directory. Everything that changes the file system afterwards goes
 * through that descriptor (`/proc/self/fd/{fd}/…`): creating missing parent
 * directories, the temp file, the rename within the parent directory, the
 * unlink. Replacing an intermediate directory with a symlink after
 * authorization therefore cannot redirect the write: it lands in the
 * directory that was authorized (or fails if that directory is gone).
 *
 * Descriptors are owned by an {@link AuthorityScope}; close it when the tool
 * call is done.
 */
import { closeSync, constants, lstatSync, mkdirSync, openSync, readlinkSync, realpathSync, rmdirSync } from 'node:fs';
import type { Stats } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';

/** Longest chain of final-segment symlinks that is followed. */
export const MAX_SYMLINK_HOPS = 40;

const DIR_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;

/** Why a path was refused. */
export interface PathRefusal {
  code:
    | 'path_outside_workspace'
    | 'invalid_path'
    | 'not_a_directory'
    | 'cannot_access'
    | 'symlink_in_path'
    | 'too_many_symlinks';
  message: string;
  path: string;
}

const fdPath = (fd: number, ...rest: string[]) => [`/proc/self/fd/${fd}`, ...rest].join('/');
const errCode = (err: unknown) => (err as NodeJS.ErrnoException).code ?? String(err);

function inside(root: string, p: string): boolean {
  return p === root || p.startsWith(root.endsWith(sep) ? root : root + sep);
}

/** Owner of the descriptors held by the authorities resolved within one tool call. */
export class AuthorityScope {
  private readonly fds = new Set<number>();

  /** Takes ownership of `fd`. */
  hold(fd: number): number {
    this.fds.add(fd);
    return fd;
  }

  /** Closes `fd` now (it must be held by this scope). */
  release(fd: number): void {
    if (this.fds.delete(fd)) closeSync(fd);
  }

  /** Closes every held descriptor. */
  close(): void {
    for (const fd of this.fds) {
      try {
        closeSync(fd);
      } catch {
        // already closed
      }
    }
    this.fds.clear();
  }
}

/** A directory created by {@link PathAuthority.ensureParent}, for cleanup. */
export interface CreatedDir {
  parentFd: number;
  name: string;
}

/**
 * An authorized path: a held descriptor of its deepest existing directory,
 * the directories still to create under it, and the final name.
 */
export class PathAuthority {
  private parentFd: number | undefined;

  constructor(
    private readonly scope: AuthorityScope,
    /** Descriptor of the deepest existing directory on the way (held). */
    readonly baseFd: number,
    /** Directory names to create under `baseFd`, outermost first. */
    readonly missingDirs: readonly string[],
    /** Final segment (a symlink already resolved: the name of the real target). */
    readonly name: string,
  ) {
    if (missingDirs.length === 0) this.parentFd = baseFd;
  }

  /**
   * The target as a path through the held descriptor, for reading and stat.
   * Before `ensureParent` with missing directories it goes through names not
   * yet created (a lookup there finds nothing or a later-created directory).
   */
  get target(): string {
    return this.parentFd !== undefined
      ? fdPath(this.parentFd, this.name)
      : fdPath(this.baseFd, ...this.missingDirs, this.name);
  }

  /** A name in the (held) parent directory; only after `ensureParent` or when nothing was missing. */
  inParent(name: string): string {
    if (this.parentFd === undefined) throw new Error('PathAuthority: parent directory not created yet');
    return fdPath(this.parentFd, name);
  }

  /**
   * Creates the missing parent directories under the held base descriptor,
   * each opened without following symlinks (an existing symlink in their
   * place fails). Idempotent.
   *
   * @param created receives each directory this call created (innermost last).
   * @throws the Node error of a failing mkdir/open.
   */
  ensureParent(created: CreatedDir[]): void {
    if (this.parentFd !== undefined) return;
    let cur = this.baseFd;
    for (const seg of this.missingDirs) {
      try {
        mkdirSync(fdPath(cur, seg));
        created.push({ parentFd: cur, name: seg });
      } catch (err) {
        if (errCode(err) !== 'EEXIST') throw err;
      }
      cur = this.scope.hold(openSync(fdPath(cur, seg), DIR_FLAGS));
    }
    this.parentFd = cur;
  }
}

/** Removes directories created by `ensureParent` (innermost first), ignoring failures. */
export function removeCreatedDirs(created: CreatedDir[]): void {
  for (const d of [...created].reverse()) {
    try {
      rmdirSync(fdPath(d.parentFd, d.name));
    } catch {
      // not empty or gone: leave it
    }
  }
}

/** A path authorized inside the workspace. */
export interface AuthorizedPath {
  /** Canonical workspace-relative path, `/`-separated (the key of read credentials). */
  rel: string;
  /** Canonical absolute path (for messages; never used to write). */
  abs: string;
  authority: PathAuthority;
}

type Walk =
  { kind: 'ok'; fd: number; missing: string[] } | { kind: 'refused'; code: PathRefusal['code']; message: string };

/** Walks `dirs` from `rootFd` without following symlinks. Closes every descriptor but the returned one. */
function walk(scope: AuthorityScope, root: string, rootFd: number, dirs: string[], input: string): Walk {
  let cur = rootFd;
  for (let i = 0; i < dirs.length; i++) {
    const seg = dirs[i]!;
    let next: number;
    try {
      next = scope.hold(openSync(fdPath(cur, seg), DIR_FLAGS));
    } catch (err) {
      const code = errCode(err);
      if (code === 'ENOENT') return { kind: 'ok', fd: cur, missing: dirs.slice(i) };
      const shown = JSON.stringify(dirs.slice(0, i + 1).join('/'));
      let st: Stats | undefined;
      try {
        st = lstatSync(fdPath(cur, seg));
      } catch {
        st = undefined;
      }
      scope.release(cur);
      if (code !== 'ENOTDIR' && code !== 'ELOOP') {
        return { kind: 'refused', code: 'cannot_access', message: `Cannot access ${JSON.stringify(input)}: ${code}.` };
      }
      if (!st?.isSymbolicLink()) {
        return { kind: 'refused', code: 'not_a_directory', message: `${shown} is not a directory.` };
      }
      let real: string | undefined;
      try {
        real = realpathSync(join(root, ...dirs.slice(0, i + 1)));
      } catch {
        real = undefined;
      }
      if (real !== undefined && !inside(root, real)) {
        return {
          kind: 'refused',
          code: 'path_outside_workspace',
          message: `Path ${JSON.stringify(input)} leads outside the workspace (${root}) through the symlink ${shown}.`,
        };
      }
      return {
        kind: 'refused',
        code: real === undefined ? 'invalid_path' : 'symlink_in_path',
        message: `Path ${JSON.stringify(input)} goes through the ${real === undefined ? 'dangling ' : ''}symlink ${shown}; only the last segment of a path may be a symlink. Use the real path of the directory.`,
      };
    }
    scope.release(cur);
    cur = next;
  }
  return { kind: 'ok', fd: cur, missing: [] };
}

/** Maps `lexical` (absolute) into `root`, through `given` when it names the configured root. */
function toRoot(root: string, given: string, lexical: string): string | undefined {
  if (inside(root, lexical)) return lexical;
  if (inside(given, lexical)) return join(root, relative(given, lexical));
  return undefined;
}

/**
 * Authorizes a path for writing (Linux: needs `/proc/self/fd`).
 *
 * @param scope owns the held descriptors (close it when the call is done).
 * @param root the real (symlink-resolved) workspace root.
 * @param input the path as the model wrote it (relative to the root, or absolute inside it).
 * @param givenRoot the workspace root as configured; absolute paths under it are read as under `root`.
 * @returns `{ ok: true, path }` or `{ ok: false, refusal }`: `path_outside_workspace`
 *   (`..` escapes, absolute paths elsewhere, symlinks leading out),
 *   `symlink_in_path` (an intermediate segment is a symlink inside the
 *   workspace), `too_many_symlinks` (a final-segment chain longer than 40),
 *   `invalid_path` (empty, NUL, the root itself, a dangling symlink),
 *   `not_a_directory`, `cannot_access`.
 */
export function authorizePath(
  scope: AuthorityScope,
  root: string,
  input: string,
  givenRoot: string = root,
): { ok: true; path: AuthorizedPath } | { ok: false; refusal: PathRefusal } {
  const refuse = (code: PathRefusal['code'], message: string) =>
    ({ ok: false, refusal: { code, message, path: input } }) as const;
  if (input === '' || input.includes('\0')) return refuse('invalid_path', 'The path is empty or contains a NUL byte.');
  const given = resolve(givenRoot);
  let abs = toRoot(root, given, isAbsolute(input) ? resolve(input) : resolve(root, input));
  if (abs === undefined) {
    return refuse(
      'path_outside_workspace',
      `Path ${JSON.stringify(input)} is outside the workspace (${root}). Use a path relative to the workspace root, without leaving it.`,
    );
  }
  for (let hops = 0; ; hops++) {
    const segs = relative(root, abs)
      .split(sep)
      .filter((s) => s !== '');
    if (segs.length === 0) return refuse('invalid_path', 'The path names the workspace root, not a file.');
    let rootFd: number;
    try {
      rootFd = scope.hold(openSync(root, constants.O_RDONLY | constants.O_DIRECTORY));
    } catch (err) {
      return refuse('cannot_access', `The workspace root ${root} cannot be opened (${errCode(err)}).`);
    }
    const name = segs[segs.length - 1]!;
    const w = walk(scope, root, rootFd, segs.slice(0, -1), input);
    if (w.kind === 'refused') return refuse(w.code, w.message);
    const rel = segs.join('/');
    const done = () =>
      ({ ok: true, path: { rel, abs: abs!, authority: new PathAuthority(scope, w.fd, w.missing, name) } }) as const;
    const dangling = () => {
      scope.release(w.fd);
      return refuse('invalid_path', `${JSON.stringify(input)} is a dangling symlink (its target ${rel} is missing).`);
    };
    if (w.missing.length > 0) return hops > 0 ? dangling() : done();
    let st: Stats;
    try {
      st = lstatSync(fdPath(w.fd, name));
    } catch (err) {
      const code = errCode(err);
      if (code === 'ENOENT') return hops > 0 ? dangling() : done();
      scope.release(w.fd);
      return refuse('cannot_access', `Cannot access ${JSON.stringify(input)}: ${code}.`);
    }
    if (!st.isSymbolicLink()) return done();
    if (hops + 1 > MAX_SYMLINK_HOPS) {
      scope.release(w.fd);
      return refuse(
        'too_many_symlinks',
        `${JSON.stringify(input)} is a chain of more than ${MAX_SYMLINK_HOPS} symlinks; name the real file.`,
      );
    }
    let target: string;
    try {
      target = readlinkSync(fdPath(w.fd, name));
    } catch (err) {
      scope.release(w.fd);
      return refuse('cannot_access', `Cannot read the symlink ${JSON.stringify(rel)}: ${errCode(err)}.`);
    }
    scope.release(w.fd);
    const next = toRoot(root, given, isAbsolute(target) ? resolve(target) : resolve(root, dirname(rel), target));
    if (next === undefined) {
      return refuse(
        'path_outside_workspace',
        `Path ${JSON.stringify(input)} leads outside the workspace (${root}) through a symlink.`,
      );
    }
    abs = next;
  }
}
