/**
 * FT4 path authority for the file tools on Linux: the writing tools (write,
 * apply_patch, via {@link authorizePath}) and the reading tools (read, glob,
 * grep, via {@link authorizeExisting}).
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
 * A reading tool gets an {@link AuthorizedExisting}: the held parent
 * directory of an existing target, through which it opens the target itself
 * (`O_NOFOLLOW`), so the object read is the one authorized.
 *
 * Descriptors are owned by an {@link AuthorityScope}; close it when the tool
 * call is done.
 */
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readlinkSync,
  realpathSync,
  rmdirSync,
} from 'node:fs';
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
  /**
   * The offending part of the path when one segment is to blame: the
   * workspace-relative path up to and including the intermediate symlink or
   * non-directory, or the final symlink leading out. Absent otherwise.
   */
  segment?: string;
}

const fdPath = (fd: number, ...rest: string[]) => [`/proc/self/fd/${fd}`, ...rest].join('/');

/**
 * The path that names `fd` (and optionally names under it) through
 * `/proc/self/fd`: opening it resolves relative to the held descriptor, not
 * to any path string. Valid in this process, and in a child process between
 * fork and exec (a spawn `cwd` is applied there, with the descriptor still
 * inherited).
 */
export const heldPath = (fd: number, ...names: string[]): string => fdPath(fd, ...names);
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

/**
 * Runs `fn` with a fresh {@link AuthorityScope} and closes the scope once
 * `fn` has settled (fulfilled or rejected), so every descriptor it held
 * outlives the work done through it (e.g. rg entering its cwd through one).
 */
export async function withAuthorityScope<T>(fn: (scope: AuthorityScope) => Promise<T>): Promise<T> {
  const scope = new AuthorityScope();
  try {
    return await fn(scope);
  } finally {
    scope.close();
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
  | { kind: 'ok'; fd: number; missing: string[] }
  | { kind: 'refused'; code: PathRefusal['code']; message: string; segment: string; dangling: boolean };

/**
 * Walks the directories of `segs` (every segment but the last) from `rootFd`
 * without following symlinks. Closes every descriptor but the returned one.
 */
function walk(scope: AuthorityScope, root: string, rootFd: number, segs: string[], input: string): Walk {
  const dirs = segs.slice(0, -1);
  let cur = rootFd;
  for (let i = 0; i < dirs.length; i++) {
    const seg = dirs[i]!;
    let next: number;
    try {
      next = scope.hold(openSync(fdPath(cur, seg), DIR_FLAGS));
    } catch (err) {
      const code = errCode(err);
      if (code === 'ENOENT') return { kind: 'ok', fd: cur, missing: dirs.slice(i) };
      const segment = dirs.slice(0, i + 1).join('/');
      const shown = JSON.stringify(segment);
      const refused = (c: PathRefusal['code'], message: string, dangling = false): Walk => ({
        kind: 'refused',
        code: c,
        message,
        segment,
        dangling,
      });
      let st: Stats | undefined;
      try {
        st = lstatSync(fdPath(cur, seg));
      } catch {
        st = undefined;
      }
      scope.release(cur);
      if (code !== 'ENOTDIR' && code !== 'ELOOP') {
        return refused('cannot_access', `Cannot access ${shown} on the way to ${JSON.stringify(input)}: ${code}.`);
      }
      if (!st?.isSymbolicLink()) {
        return refused(
          'not_a_directory',
          `${shown} is not a directory, so ${JSON.stringify(input)} cannot lie under it. Check the path (glob lists the files that exist).`,
        );
      }
      let real: string | undefined;
      try {
        real = realpathSync(join(root, segment));
      } catch {
        real = undefined;
      }
      if (real !== undefined && !inside(root, real)) {
        return refused(
          'path_outside_workspace',
          `Path ${JSON.stringify(input)} leads outside the workspace (${root}) through the symlink ${shown}; only paths inside the workspace can be used.`,
        );
      }
      if (real === undefined) {
        return refused(
          'invalid_path',
          `Path ${JSON.stringify(input)} goes through the dangling symlink ${shown}; only the last segment of a path may be a symlink. Use the real path of the directory.`,
          true,
        );
      }
      const realPath = [relative(root, real).split(sep).join('/'), ...segs.slice(i + 1)].filter((s) => s !== '');
      return refused(
        'symlink_in_path',
        `Path ${JSON.stringify(input)} goes through the symlink ${shown}; only the last segment of a path may be a symlink. Use the real path ${JSON.stringify(realPath.join('/'))} instead.`,
      );
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

/** Outcome of {@link resolveChain}: where the path (its final symlinks followed) lands. */
type Chain =
  | { kind: 'refused'; code: PathRefusal['code']; message: string; segment?: string; dangling?: boolean }
  /** The path (after following final symlinks) names the workspace root; `fd` is held. */
  | { kind: 'root'; fd: number }
  /** The final object does not exist; `fd` (held) is the deepest existing directory. */
  | { kind: 'missing'; hops: number; fd: number; missing: string[]; name: string; rel: string; abs: string }
  /** The final object exists and is not a symlink; `fd` (held) is its directory, `st` its lstat. */
  | { kind: 'found'; hops: number; fd: number; name: string; rel: string; abs: string; st: Stats };

/**
 * The shared FT4 walk: maps the input into the workspace, walks its
 * directories from the root without following symlinks and follows a
 * final-segment symlink (at most {@link MAX_SYMLINK_HOPS} times), each hop
 * walked again from the root.
 */
function resolveChain(scope: AuthorityScope, root: string, input: string, given: string): Chain {
  let abs = toRoot(root, given, isAbsolute(input) ? resolve(input) : resolve(root, input));
  if (abs === undefined) {
    return {
      kind: 'refused',
      code: 'path_outside_workspace',
      message: `Path ${JSON.stringify(input)} is outside the workspace (${root}). Use a path relative to the workspace root, without leaving it.`,
    };
  }
  for (let hops = 0; ; hops++) {
    const segs = relative(root, abs)
      .split(sep)
      .filter((s) => s !== '');
    let rootFd: number;
    try {
      rootFd = scope.hold(openSync(root, constants.O_RDONLY | constants.O_DIRECTORY));
    } catch (err) {
      return {
        kind: 'refused',
        code: 'cannot_access',
        message: `The workspace root ${root} cannot be opened (${errCode(err)}).`,
      };
    }
    if (segs.length === 0) return { kind: 'root', fd: rootFd };
    const name = segs[segs.length - 1]!;
    const w = walk(scope, root, rootFd, segs, input);
    if (w.kind === 'refused') return w;
    const rel = segs.join('/');
    const missing = () => ({ kind: 'missing', hops, fd: w.fd, missing: w.missing, name, rel, abs: abs! }) as const;
    if (w.missing.length > 0) return missing();
    let st: Stats;
    try {
      st = lstatSync(fdPath(w.fd, name));
    } catch (err) {
      const code = errCode(err);
      if (code === 'ENOENT') return missing();
      scope.release(w.fd);
      return { kind: 'refused', code: 'cannot_access', message: `Cannot access ${JSON.stringify(input)}: ${code}.` };
    }
    if (!st.isSymbolicLink()) return { kind: 'found', hops, fd: w.fd, name, rel, abs, st };
    if (hops + 1 > MAX_SYMLINK_HOPS) {
      scope.release(w.fd);
      return {
        kind: 'refused',
        code: 'too_many_symlinks',
        message: `${JSON.stringify(input)} is a chain of more than ${MAX_SYMLINK_HOPS} symlinks; name the real file.`,
        segment: rel,
      };
    }
    let target: string;
    try {
      target = readlinkSync(fdPath(w.fd, name));
    } catch (err) {
      scope.release(w.fd);
      return {
        kind: 'refused',
        code: 'cannot_access',
        message: `Cannot read the symlink ${JSON.stringify(rel)}: ${errCode(err)}.`,
      };
    }
    scope.release(w.fd);
    const next = toRoot(root, given, isAbsolute(target) ? resolve(target) : resolve(root, dirname(rel), target));
    if (next === undefined) {
      return {
        kind: 'refused',
        code: 'path_outside_workspace',
        message: `Path ${JSON.stringify(input)} leads outside the workspace (${root}) through the symlink ${JSON.stringify(rel)} (pointing to ${JSON.stringify(target)}); only paths inside the workspace can be used.`,
        segment: rel,
      };
    }
    abs = next;
  }
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
  const refuse = (code: PathRefusal['code'], message: string, segment?: string) =>
    ({ ok: false, refusal: { code, message, path: input, ...(segment !== undefined ? { segment } : {}) } }) as const;
  if (input === '' || input.includes('\0')) return refuse('invalid_path', 'The path is empty or contains a NUL byte.');
  const c = resolveChain(scope, root, input, resolve(givenRoot));
  switch (c.kind) {
    case 'refused':
      return refuse(c.code, c.message, c.segment);
    case 'root':
      scope.release(c.fd);
      return refuse('invalid_path', 'The path names the workspace root, not a file.');
    case 'missing':
      if (c.hops > 0) {
        scope.release(c.fd);
        return refuse(
          'invalid_path',
          `${JSON.stringify(input)} is a dangling symlink (its target ${c.rel} is missing).`,
        );
      }
      return {
        ok: true,
        path: { rel: c.rel, abs: c.abs, authority: new PathAuthority(scope, c.fd, c.missing, c.name) },
      };
    case 'found':
      return { ok: true, path: { rel: c.rel, abs: c.abs, authority: new PathAuthority(scope, c.fd, [], c.name) } };
  }
}

/** Why {@link authorizeExisting} refused a path: the codes of {@link PathRefusal} plus `not_found`. */
export interface ExistingRefusal extends Omit<PathRefusal, 'code'> {
  /**
   * `not_found`: the path (or a final symlink's target: `dangling`) does not
   * exist; otherwise as in {@link PathRefusal}, where an intermediate
   * symlink, dangling or not, is `symlink_in_path` (or `path_outside_workspace`).
   */
  code: PathRefusal['code'] | 'not_found';
  /** Set when the path is a final symlink whose target is missing. */
  dangling?: boolean;
  /** For `not_found`: the canonical workspace-relative path that is missing. */
  missingRel?: string;
}

/** An existing file, directory or other non-symlink object authorized for reading. */
export interface AuthorizedExisting {
  /** Canonical workspace-relative path, `/`-separated; `.` for the workspace root. */
  rel: string;
  /** Canonical absolute path (for messages; never used to open anything). */
  abs: string;
  /** Held descriptor of the directory containing the target; for the root, the root itself. */
  parentFd: number;
  /** Name of the target in that directory; `''` for the root. */
  name: string;
  /** lstat of the target at authorization (never a symlink: a final symlink was followed). */
  stat: Stats;
  /**
   * The target named through the held parent: `/proc/self/fd/{parentFd}/{name}`
   * (the root: `/proc/self/fd/{parentFd}`). Open it with `O_NOFOLLOW` so a
   * name swapped for a symlink after authorization fails instead of redirecting.
   */
  target: string;
}

/**
 * Authorizes an existing path for reading (read, glob, grep; Linux: needs
 * `/proc/self/fd`). Same walk as {@link authorizePath}: `..` and absolute
 * paths outside the workspace refused, every intermediate segment opened
 * without following symlinks, a final-segment symlink followed (at most 40
 * times) and its target walked again from the root. Unlike a write target,
 * the workspace root itself (`.`) is accepted, and the target must exist.
 *
 * @param scope owns the held descriptors (close it when the call is done).
 * @param root the real (symlink-resolved) workspace root.
 * @param input the path as the model wrote it (relative to the root, or absolute inside it).
 * @param givenRoot the workspace root as configured; absolute paths under it are read as under `root`.
 * @returns `{ ok: true, path }` or `{ ok: false, refusal }` with code
 *   `path_outside_workspace`, `symlink_in_path` (any intermediate symlink
 *   inside the workspace, dangling or not; `segment` names it),
 *   `too_many_symlinks`, `not_found` (missing; `dangling` for a final symlink
 *   whose target is missing), `not_a_directory` (an intermediate segment is
 *   a file; `segment` names it), `invalid_path` (empty, NUL),
 *   `cannot_access`. Messages name the offending segment and say what to do.
 */
export function authorizeExisting(
  scope: AuthorityScope,
  root: string,
  input: string,
  givenRoot: string = root,
): { ok: true; path: AuthorizedExisting } | { ok: false; refusal: ExistingRefusal } {
  if (input === '' || input.includes('\0')) {
    return {
      ok: false,
      refusal: { code: 'invalid_path', message: 'The path is empty or contains a NUL byte.', path: input },
    };
  }
  const c = resolveChain(scope, root, input, resolve(givenRoot));
  switch (c.kind) {
    case 'refused': {
      const code = c.dangling ? 'symlink_in_path' : c.code;
      return {
        ok: false,
        refusal: { code, message: c.message, path: input, ...(c.segment !== undefined ? { segment: c.segment } : {}) },
      };
    }
    case 'root': {
      let st: Stats;
      try {
        st = fstatSync(c.fd);
      } catch (err) {
        scope.release(c.fd);
        return {
          ok: false,
          refusal: {
            code: 'cannot_access',
            message: `The workspace root ${root} cannot be read (${errCode(err)}).`,
            path: input,
          },
        };
      }
      return { ok: true, path: { rel: '.', abs: root, parentFd: c.fd, name: '', stat: st, target: fdPath(c.fd) } };
    }
    case 'missing': {
      scope.release(c.fd);
      const dangling = c.hops > 0;
      return {
        ok: false,
        refusal: {
          code: 'not_found',
          message: dangling
            ? `${JSON.stringify(input)} is a dangling symlink: its target ${JSON.stringify(c.rel)} does not exist. Use glob to find the right path.`
            : `Path not found: ${JSON.stringify(input)} (relative to the workspace root). Use glob to find the right path.`,
          path: input,
          missingRel: c.rel,
          ...(dangling ? { dangling } : {}),
        },
      };
    }
    case 'found':
      return {
        ok: true,
        path: { rel: c.rel, abs: c.abs, parentFd: c.fd, name: c.name, stat: c.st, target: fdPath(c.fd, c.name) },
      };
  }
}

/**
 * Opens an authorized directory and holds its descriptor: through the held
 * parent with `O_DIRECTORY | O_NOFOLLOW` (the root: its own held
 * descriptor), so the directory is the one authorized even if its name has
 * been swapped for a symlink since.
 *
 * @returns the held descriptor (owned by `scope`).
 * @throws the Node error of the open (`ENOTDIR`, `ELOOP` after a swap, `EACCES`, `ENOENT`).
 */
export function openAuthorizedDirectory(scope: AuthorityScope, path: AuthorizedExisting): number {
  if (path.name === '') return path.parentFd;
  return scope.hold(openSync(path.target, DIR_FLAGS));
}
