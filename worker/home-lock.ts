import { randomBytes } from 'node:crypto';
import { closeSync, linkSync, openSync, readFileSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { ZunoError } from '../core/errors.js';
import { pidAlive, processStartTicks } from './process-info.js';

/** What a lock file holds: who owns it, since when, and a token only that owner knows. */
export interface LockOwner {
  pid: number;
  /** The owner's process start time (`/proc/<pid>/stat` field 22, clock ticks since boot); null off Linux. */
  procStart: string | null;
  /** When the lock was taken, ms since the epoch. */
  acquiredAtMs: number;
  token: string;
}

/** Options of {@link acquireHomeLock}; all durations in ms. */
export interface LockWaitOptions {
  /** Give up after waiting this long for a live owner (default 120 000). */
  waitMs?: number;
  /** First back-off between re-checks (default 50); doubles up to `maxBackoffMs`. */
  backoffMs?: number;
  /** Longest back-off between re-checks (default 1000). */
  maxBackoffMs?: number;
}

/** A held lock; `release()` removes the file only while it is still ours. */
export interface HeldLock {
  path: string;
  owner: LockOwner;
  release(): void;
}

/** Reads a lock file; null when absent or unreadable (being written or removed). */
export function readLockOwner(path: string): LockOwner | null {
  try {
    const owner = JSON.parse(readFileSync(path, 'utf8')) as LockOwner;
    return typeof owner.pid === 'number' ? owner : null;
  } catch {
    return null;
  }
}

/**
 * true when the lock's owner is gone: its pid is dead, or the pid now belongs
 * to another process (its start time differs from the recorded one).
 */
export function lockOwnerGone(owner: LockOwner): boolean {
  if (!pidAlive(owner.pid)) return true;
  const now = processStartTicks(owner.pid);
  return owner.procStart !== null && now !== null && now !== owner.procStart;
}

/**
 * Takes an exclusive lock file at `path` (created with O_EXCL, holding the
 * owner's pid, process start time, time taken and a random token). A lock
 * whose owner is gone ({@link lockOwnerGone}) is taken over: it is renamed
 * aside and removed only if the renamed file is still the one judged stale
 * (same inode and token), else it is linked back — so two takers of one stale
 * lock never both win. A lock file that stays unreadable (its writer died
 * between create and write) for more than 5 s is stale too. Waiters back off
 * (`backoffMs` doubling to `maxBackoffMs`, with jitter) and re-check.
 * @throws ZunoError `home_lock_timeout` naming the lock file and its owner pid when a
 *   live owner holds it for longer than `waitMs`.
 */
export async function acquireHomeLock(path: string, opts: LockWaitOptions = {}): Promise<HeldLock> {
  const waitMs = opts.waitMs ?? 120_000;
  const maxBackoffMs = opts.maxBackoffMs ?? 1000;
  let backoffMs = opts.backoffMs ?? 50;
  const deadline = Date.now() + waitMs;
  let unreadableSince: number | null = null;
  for (;;) {
    const owner = tryCreate(path);
    if (owner) return { path, owner, release: () => releaseIfOurs(path, owner.token) };
    const current = readLockOwner(path);
    if (current === null) {
      unreadableSince ??= Date.now();
      if (Date.now() - unreadableSince > 5000) breakStale(path, null);
    } else {
      unreadableSince = null;
      if (lockOwnerGone(current)) {
        breakStale(path, current.token);
        continue;
      }
    }
    if (Date.now() >= deadline) {
      const who = current
        ? `process ${current.pid} (holding it since ${new Date(current.acquiredAtMs).toISOString()})`
        : 'a process';
      throw new ZunoError(
        'home_lock_timeout',
        `waited ${waitMs} ms for the lock ${path}, held by ${who} that is still running; ` +
          'if no Zuno command is running in this home, remove that file',
        { lockFile: path, ...(current ? { ownerPid: current.pid } : {}) },
      );
    }
    const jitter = 0.5 + Math.random();
    await new Promise((r) => setTimeout(r, Math.min(backoffMs * jitter, Math.max(0, deadline - Date.now()))));
    backoffMs = Math.min(backoffMs * 2, maxBackoffMs);
  }
}

/** Runs `fn` while holding the lock at `path` ({@link acquireHomeLock}); always releases it. */
export async function withHomeLock<T>(path: string, fn: () => Promise<T>, opts: LockWaitOptions = {}): Promise<T> {
  const lock = await acquireHomeLock(path, opts);
  try {
    return await fn();
  } finally {
    lock.release();
  }
}

/** Creates the lock file exclusively; null when it exists. */
function tryCreate(path: string): LockOwner | null {
  const owner: LockOwner = {
    pid: process.pid,
    procStart: processStartTicks(process.pid),
    acquiredAtMs: Date.now(),
    token: randomBytes(8).toString('hex'),
  };
  let fd: number;
  try {
    fd = openSync(path, 'wx');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return null;
    throw err;
  }
  try {
    writeSync(fd, `${JSON.stringify(owner)}\n`);
  } finally {
    closeSync(fd);
  }
  return owner;
}

/**
 * Removes a stale lock without ever removing a fresh one: rename it aside,
 * check the renamed file is the stale one (token, or still unreadable when
 * `token` is null), else put it back with link (which never overwrites).
 */
function breakStale(path: string, token: string | null): void {
  let ino: number;
  try {
    ino = statSync(path).ino;
  } catch {
    return; // gone already
  }
  const aside = `${path}.stale-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    renameSync(path, aside);
  } catch {
    return; // someone else broke it first
  }
  const moved = readLockOwner(aside);
  const same = statSync(aside).ino === ino && (moved?.token ?? null) === token;
  if (!same) {
    try {
      linkSync(aside, path);
    } catch {
      // a third process created a lock meanwhile; it owns the lock now
    }
  }
  rmSync(aside, { force: true });
}

/** Removes the lock file when it still carries our token (it may have been broken as stale). */
function releaseIfOurs(path: string, token: string): void {
  if (readLockOwner(path)?.token === token) rmSync(path, { force: true });
}
