/**
 * The temp files publishing writes (core/tools/temp-files.ts names them):
 * which ones this process holds right now, and sweeping the stale ones a
 * killed worker left between a temp write and its rename (FT3, FT4).
 *
 * A temp file is swept only when all of these hold: its name is exactly
 * Zuno's temp naming (`TEMP_FILE_NAME`), it is a regular file (not a
 * directory, not a symlink), no publish of this process holds it, and it was
 * last modified at least {@link STALE_TEMP_AGE_MS} ago — a younger one may
 * belong to a publish of another process (a second worker on the same
 * workspace) that is between its write and its rename.
 */
import { randomBytes } from 'node:crypto';
import { lstat, readdir, stat, unlink } from 'node:fs/promises';
import { TEMP_FILE_HEX_DIGITS, TEMP_FILE_NAME, tempFileName } from '../../../core/tools/temp-files.js';

/** Minimum age (milliseconds since last modification) of a temp file before it counts as stale. */
export const STALE_TEMP_AGE_MS = 60_000;

/** Temp files held by publishes of this process, as `<dev>:<ino>/<name>` of their directory. */
const held = new Set<string>();

/** Identity of a directory that survives the path used to reach it. */
async function dirKey(dirPath: string): Promise<string> {
  const st = await stat(dirPath);
  return `${st.dev}:${st.ino}`;
}

/** A temp file reserved by {@link holdTemp}. */
export interface HeldTemp {
  /** Its name in the directory. */
  name: string;
  /** Ends the hold (after the rename, or once the temp file is removed). Idempotent. */
  release(): void;
}

/**
 * Picks a fresh temp file name for target `targetName` in the directory at
 * `dirPath` (a `/proc/self/fd/…` path through the held directory) and marks
 * it held, so no sweep of this process removes it. Create the file after.
 *
 * @throws when the directory cannot be stat'ed.
 */
export async function holdTemp(dirPath: string, targetName: string): Promise<HeldTemp> {
  const key = await dirKey(dirPath);
  const name = tempFileName(targetName, randomBytes(TEMP_FILE_HEX_DIGITS / 2).toString('hex'));
  const id = `${key}/${name}`;
  held.add(id);
  return { name, release: () => void held.delete(id) };
}

/**
 * Removes the stale temp files (see the module rules) in the directory at
 * `dirPath`. Best effort: a directory that cannot be listed, or an entry that
 * vanishes or cannot be removed, is skipped.
 *
 * @param nowMs the current time (milliseconds since the epoch).
 * @param seen directories already swept by this publish (by identity);
 *   one listed there is skipped, and the swept one is added.
 * @returns the names removed.
 */
export async function sweepStaleTemps(dirPath: string, nowMs: number, seen: Set<string>): Promise<string[]> {
  let key: string;
  let names: string[];
  try {
    key = await dirKey(dirPath);
    if (seen.has(key)) return [];
    seen.add(key);
    names = await readdir(dirPath);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    if (!TEMP_FILE_NAME.test(name) || held.has(`${key}/${name}`)) continue;
    const path = `${dirPath}/${name}`;
    const st = await lstat(path).catch(() => undefined);
    if (!st?.isFile() || nowMs - st.mtimeMs < STALE_TEMP_AGE_MS) continue;
    try {
      await unlink(path);
      removed.push(name);
    } catch {
      // gone already, or not ours to remove after all
    }
  }
  return removed;
}
