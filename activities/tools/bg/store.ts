/**
 * Where background tasks live on disk and how their `status.json` is read
 * and written (BG2). A task's directory is
 * `<workspace>/.zuno/bg/<session key>/<taskID>/` holding `output` (every raw
 * byte the command wrote) and `status.json` (replaced atomically). The
 * session key scopes task ids, which the workflow derives per session
 * (`bg_<turn>_<step>_<position>`), so two sessions sharing a workspace never
 * collide.
 */
import { createHash, randomBytes } from 'node:crypto';
import { readdir, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { BG_TASK_ID_PATTERN } from '../../../core/tools/bg.js';
import type { BgStatus } from './types.js';

/** `<workspace>/.zuno/bg`: the root of all background task directories. */
export function bgRoot(workspace: string): string {
  return join(workspace, '.zuno', 'bg');
}

/** The directory name that scopes a session's tasks: 16 hex digits of SHA-256(sessionId). */
export function sessionKey(sessionId: string): string {
  return createHash('sha256').update(sessionId).digest('hex').slice(0, 16);
}

/** `<workspace>/.zuno/bg/<session key>`: the directory of a session's tasks. */
export function sessionTasksDir(workspace: string, sessionId: string): string {
  return join(bgRoot(workspace), sessionKey(sessionId));
}

/** True when `taskID` may name a task directory (`^bg_[A-Za-z0-9_-]{1,64}$`). */
export function isValidTaskId(taskID: string): boolean {
  return BG_TASK_ID_PATTERN.test(taskID);
}

/**
 * The directory of one task. Validate `taskID` with {@link isValidTaskId}
 * first: this joins it into a path as is.
 */
export function taskDir(workspace: string, sessionId: string, taskID: string): string {
  return join(sessionTasksDir(workspace, sessionId), taskID);
}

/** The output file of one task (every raw byte, stdout and stderr interleaved). */
export function taskOutputPath(workspace: string, sessionId: string, taskID: string): string {
  return join(taskDir(workspace, sessionId, taskID), 'output');
}

function statusPath(dir: string): string {
  return join(dir, 'status.json');
}

/**
 * Replaces `<dir>/status.json` atomically (temporary file, then rename).
 * @throws the file system error when it cannot be written.
 */
export async function writeStatus(dir: string, status: BgStatus): Promise<void> {
  const tmp = join(dir, `.status-${randomBytes(6).toString('hex')}.tmp`);
  try {
    await writeFile(tmp, `${JSON.stringify(status)}\n`, { mode: 0o600 });
    await rename(tmp, statusPath(dir));
  } catch (err) {
    await unlink(tmp).catch(() => {});
    throw err;
  }
}

function looksLikeStatus(v: unknown): v is BgStatus {
  if (!v || typeof v !== 'object') return false;
  const s = v as Record<string, unknown>;
  return typeof s.taskID === 'string' && typeof s.sessionId === 'string' && typeof s.state === 'string';
}

/**
 * Reads `<dir>/status.json`.
 * @returns the status, or null when it is missing or unreadable (torn or foreign JSON).
 */
export async function readStatus(dir: string): Promise<BgStatus | null> {
  try {
    const v: unknown = JSON.parse(await readFile(statusPath(dir), 'utf8'));
    return looksLikeStatus(v) ? v : null;
  } catch {
    return null;
  }
}

/**
 * The statuses of every task of a session, oldest start first. Directories
 * without a readable status, and statuses of another session, are skipped.
 */
export async function listStatuses(workspace: string, sessionId: string): Promise<BgStatus[]> {
  const root = sessionTasksDir(workspace, sessionId);
  let names: string[];
  try {
    names = await readdir(root);
  } catch {
    return [];
  }
  const found = await Promise.all(
    names.filter(isValidTaskId).map(async (name) => {
      const s = await readStatus(join(root, name));
      return s && s.sessionId === sessionId && s.taskID === name ? s : null;
    }),
  );
  return found
    .filter((s): s is BgStatus => s !== null)
    .sort((a, b) => a.startedAtMs - b.startedAtMs || a.taskID.localeCompare(b.taskID));
}

/**
 * Whether a process exists (`process.kill(pid, 0)`; EPERM counts as
 * existing). A zombie still exists until it is reaped.
 */
export function pidAlive(pid: number | undefined): boolean {
  if (pid === undefined || !Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Serializes status writes of one task; write failures are remembered, never thrown. */
export class StatusWriter {
  private chain: Promise<void> = Promise.resolve();
  error: string | undefined;
  constructor(private readonly dir: string) {}
  write(status: BgStatus): Promise<void> {
    this.chain = this.chain.then(() =>
      writeStatus(this.dir, status).catch((err: unknown) => {
        this.error = err instanceof Error ? err.message : String(err);
      }),
    );
    return this.chain;
  }
}
