/**
 * The in-process registry of running background tasks (BG2). Each live task
 * tails its output file into a {@link ByteRing} holding the newest 2 MiB, so
 * reads of recent output are served from memory while the whole output stays
 * on disk. Tailing polls the file size every {@link TAIL_POLL_MS} (one fstat
 * per tick while nothing is written).
 */
import { open, type FileHandle } from 'node:fs/promises';
import { lastLineOf } from '../progress.js';
import { ByteRing, LIVE_RETAINED_BYTES } from './ring.js';
import type { BgCompletion } from './types.js';

/** Period of the output tail poll, in milliseconds. */
export const TAIL_POLL_MS = 200;
/** Longest gap between two `onProgress` calls while a task runs, in milliseconds. */
export const PROGRESS_TICK_MS = 1_000;
const READ_CHUNK = 1 << 20;

/** A background task running in this process. */
export interface LiveTask {
  readonly taskID: string;
  readonly sessionId: string;
  /** The newest output bytes; `ring.end` = bytes tailed so far. */
  readonly ring: ByteRing;
  /** Absolute path of the output file. */
  readonly outputPath: string;
  /** Settles with the completion once the task is over (never rejects). */
  readonly done: Promise<BgCompletion>;
  /** Set once `done` settled. */
  completion?: BgCompletion;
  /** Requests a stop (SH5: SIGTERM, 2 s window, SIGKILL). Idempotent. */
  cancel(): void;
  /** Reads what was written since the last tail; resolves once the ring is current. */
  catchUp(): Promise<void>;
}

const live = new Map<string, LiveTask>();

function key(sessionId: string, taskID: string): string {
  return `${sessionId}\0${taskID}`;
}

/** The live task of a session with this id, if this process runs it. */
export function getLiveTask(sessionId: string, taskID: string): LiveTask | undefined {
  return live.get(key(sessionId, taskID));
}

/** Registers a live task. @throws Error when one with the same session and id is registered. */
export function registerLiveTask(task: LiveTask): void {
  const k = key(task.sessionId, task.taskID);
  if (live.has(k)) throw new Error(`background task ${task.taskID} is already live`);
  live.set(k, task);
}

/** Removes a live task (once its final status is on disk). */
export function unregisterLiveTask(task: LiveTask): void {
  const k = key(task.sessionId, task.taskID);
  if (live.get(k) === task) live.delete(k);
}

/** Number of tasks this process holds live. */
export function liveTaskCount(): number {
  return live.size;
}

/** Follows a growing file into a ring buffer; see {@link startTail}. */
export interface Tail {
  ring: ByteRing;
  /** Reads everything written so far into the ring (serialized with the poll). */
  catchUp(): Promise<void>;
  /**
   * Stops polling after a last catch-up; closes the file.
   * @param upTo the file's size when the command ended: the last catch-up reads no further (bytes an escaped process appended later are not the task's).
   */
  stop(upTo?: number): Promise<void>;
}

/**
 * Starts tailing `path` (which must exist) into `ring` (fresh, or holding
 * the file's first `ring.end` bytes). When more than `ring.capacity` bytes
 * arrived since the last read, only the newest are read (the rest stay on
 * disk).
 *
 * @param onProgress called with the byte count and the newest output line when it grows, and at
 *   least every {@link PROGRESS_TICK_MS} with the current values (a liveness tick).
 * @throws the file system error when `path` cannot be opened.
 */
export async function startTail(
  path: string,
  ring: ByteRing = new ByteRing(LIVE_RETAINED_BYTES),
  onProgress?: (totalWritten: number, lastLine: string | undefined) => void,
): Promise<Tail> {
  const handle: FileHandle = await open(path, 'r');
  let chain: Promise<void> = Promise.resolve();
  let closed = false;
  let lastReport = Date.now();

  const readNew = async (upTo = Infinity): Promise<void> => {
    if (closed) return;
    const size = Math.min((await handle.stat()).size, upTo);
    let pos = ring.end;
    if (size - pos > ring.capacity) pos = size - ring.capacity;
    const grew = size > ring.end;
    while (pos < size) {
      const want = Math.min(READ_CHUNK, size - pos);
      const buf = Buffer.alloc(want);
      const { bytesRead } = await handle.read(buf, 0, want, pos);
      if (bytesRead === 0) break;
      ring.append(buf.subarray(0, bytesRead), pos);
      pos += bytesRead;
    }
    const now = Date.now();
    if (onProgress && (grew || now - lastReport >= PROGRESS_TICK_MS)) {
      lastReport = now;
      onProgress(ring.end, lastLineOf(ring.read(Math.max(ring.start, ring.end - 1024), ring.end) ?? Buffer.alloc(0)));
    }
  };
  const catchUp = (upTo?: number): Promise<void> => {
    chain = chain.then(() => readNew(upTo)).catch(() => {});
    return chain;
  };
  const timer = setInterval(() => void catchUp(), TAIL_POLL_MS);
  timer.unref();
  return {
    ring,
    catchUp: () => catchUp(),
    async stop(upTo) {
      clearInterval(timer);
      await catchUp(upTo);
      closed = true;
      await chain;
      await handle.close().catch(() => {});
    },
  };
}
