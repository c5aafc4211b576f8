/**
 * Bubblewrap discovery (SH10, SB3): finds the `bwrap` helper and proves it
 * works here by running the trusted `true` inside the same kind of sandbox
 * the shell uses. A success is cached per process, keyed by the helper's
 * real path + the canonical workspace + the network setting, and every hit
 * first re-checks the on-disk identity of the helper and of `true` (a change
 * evicts the entry and probes again). Failures are never cached; nothing is
 * persisted across processes.
 */
import { execFile } from 'node:child_process';
import { constants } from 'node:fs';
import { access, realpath, stat } from 'node:fs/promises';
import { delimiter, isAbsolute, join } from 'node:path';
import type { SandboxNetwork } from '../../../core/sandbox.js';

/** Environment variable naming the bubblewrap executable (absolute path) instead of `bwrap` on PATH. */
export const BWRAP_ENV = 'ZUNO_BWRAP';

/** What to tell a person whose host has no working bubblewrap. */
export const BWRAP_INSTALL_HINT =
  'install the bubblewrap package (Debian/Ubuntu: `apt-get install bubblewrap`; Fedora: `dnf install bubblewrap`; Arch: `pacman -S bubblewrap`)';

/** How long one probe may take, in ms. */
const PROBE_TIMEOUT_MS = 10_000;

/** A working helper (absolute real path), or why there is none. */
export type BwrapDiscovery = { ok: true; bwrap: string } | { ok: false; reason: string };

interface Identity {
  dev: number;
  ino: number;
  size: number;
  mtimeMs: number;
}

/** Successful probes of this process: key → identities of the helper and of `true` when they were probed. */
const verified = new Map<string, { bwrap: Identity; trueBin: Identity }>();

async function identity(path: string): Promise<Identity | undefined> {
  try {
    const s = await stat(path);
    return { dev: s.dev, ino: s.ino, size: s.size, mtimeMs: s.mtimeMs };
  } catch {
    return undefined;
  }
}

function sameIdentity(a: Identity | undefined, b: Identity): boolean {
  return !!a && a.dev === b.dev && a.ino === b.ino && a.size === b.size && a.mtimeMs === b.mtimeMs;
}

async function executable(path: string): Promise<string | undefined> {
  try {
    await access(path, constants.X_OK);
    const real = await realpath(path);
    return (await stat(real)).isFile() ? real : undefined;
  } catch {
    return undefined;
  }
}

async function onPath(name: string, pathVar: string | undefined, fallbacks: string[]): Promise<string | undefined> {
  const dirs = (pathVar ?? '').split(delimiter).filter((d) => isAbsolute(d));
  for (const dir of [...dirs, ...fallbacks]) {
    const found = await executable(join(dir, name));
    if (found) return found;
  }
  return undefined;
}

async function locateBwrap(env: NodeJS.ProcessEnv): Promise<{ path: string } | { reason: string }> {
  const named = env[BWRAP_ENV];
  if (named !== undefined && named !== '') {
    if (!isAbsolute(named)) return { reason: `${BWRAP_ENV}=${named} is not an absolute path` };
    const found = await executable(named);
    return found ? { path: found } : { reason: `${BWRAP_ENV}=${named} is not an executable file` };
  }
  const found = await onPath('bwrap', env.PATH, ['/usr/bin', '/usr/local/bin', '/bin']);
  return found ? { path: found } : { reason: 'bubblewrap (`bwrap`) is not installed on this host' };
}

function probe(bwrap: string, trueBin: string, workspace: string, network: SandboxNetwork): Promise<string | null> {
  const args = ['--new-session', '--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc'];
  args.push('--bind', workspace, workspace, ...(network === 'deny' ? ['--unshare-net'] : []), '--', trueBin);
  return new Promise((resolve) => {
    execFile(bwrap, args, { env: {}, timeout: PROBE_TIMEOUT_MS }, (err, _stdout, stderr) => {
      if (!err) return resolve(null);
      const said = String(stderr).trim().split('\n')[0]?.slice(0, 300);
      const how = err.killed ? `did not answer within ${PROBE_TIMEOUT_MS / 1000} s` : `failed (${said || err.message})`;
      resolve(`bubblewrap at ${bwrap} does not work on this host: a test sandbox ${how}`);
    });
  });
}

/**
 * Finds a working bubblewrap for `workspace` (SB3).
 *
 * @param opts.workspace the workspace root (made canonical for the key; bound writable in the probe).
 * @param opts.network the probe also unshares the network when `deny` (a host may allow one but not the other).
 * @param opts.env where `ZUNO_BWRAP` and `PATH` are read (default `process.env`).
 * @returns the helper's absolute real path, or the reason none works
 *   (not Linux, not installed, `ZUNO_BWRAP` pointing nowhere, the test sandbox
 *   failing — e.g. user namespaces disabled). Never throws.
 */
export async function discoverBubblewrap(opts: {
  workspace: string;
  network: SandboxNetwork;
  env?: NodeJS.ProcessEnv;
}): Promise<BwrapDiscovery> {
  if (process.platform !== 'linux')
    return { ok: false, reason: `bubblewrap is Linux-only (this host is ${process.platform})` };
  const env = opts.env ?? process.env;
  const located = await locateBwrap(env);
  if ('reason' in located) return { ok: false, reason: located.reason };
  const trueBin = await onPath('true', env.PATH, ['/usr/bin', '/bin']);
  if (!trueBin) return { ok: false, reason: 'no `true` executable was found to test bubblewrap with' };
  const workspace = await realpath(opts.workspace).catch(() => opts.workspace);
  const key = `${located.path}\0${workspace}\0${opts.network}`;
  const known = verified.get(key);
  if (known) {
    const [b, t] = await Promise.all([identity(located.path), identity(trueBin)]);
    if (sameIdentity(b, known.bwrap) && sameIdentity(t, known.trueBin)) return { ok: true, bwrap: located.path };
    verified.delete(key);
  }
  const failed = await probe(located.path, trueBin, workspace, opts.network);
  if (failed !== null) return { ok: false, reason: failed };
  const [b, t] = await Promise.all([identity(located.path), identity(trueBin)]);
  if (b && t) verified.set(key, { bwrap: b, trueBin: t });
  return { ok: true, bwrap: located.path };
}
