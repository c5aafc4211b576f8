/**
 * What a path holds on disk, as the pre-check and the publishing re-check see
 * it: missing, a directory, something else, or a regular file with its bytes,
 * digest and stat identity.
 */
import { open, stat } from 'node:fs/promises';
import { sha256HexPaced } from './digest.js';
import { Pacer } from './pace.js';

/** On-disk state of one path. */
export type DiskState =
  | { kind: 'missing' }
  | { kind: 'dir' }
  | { kind: 'other' }
  | { kind: 'file'; bytes: Buffer; sha256: string; mode: number; size: number; mtimeMs: number; ino: number };

/**
 * Reads the state of `abs` (symlinks followed). The stat identity is taken
 * before the bytes, like `read` does for its credential. The digest is
 * computed in slices paced by `pace` (./pace.ts), so a big file does not hold
 * the event loop.
 *
 * @throws the Node error for anything but a missing path (EACCES, EIO, …).
 */
export async function loadDiskState(abs: string, pace: Pacer = new Pacer()): Promise<DiskState> {
  let st;
  try {
    st = await stat(abs);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { kind: 'missing' };
    throw err;
  }
  if (st.isDirectory()) return { kind: 'dir' };
  if (!st.isFile()) return { kind: 'other' };
  const fh = await open(abs, 'r');
  try {
    const fst = await fh.stat();
    const bytes = await fh.readFile();
    return {
      kind: 'file',
      bytes,
      sha256: await sha256HexPaced(bytes, pace),
      mode: fst.mode,
      size: fst.size,
      mtimeMs: fst.mtimeMs,
      ino: fst.ino,
    };
  } finally {
    await fh.close();
  }
}

/**
 * Whether `abs` may have changed since `before` was taken: compares kind and,
 * for files, size, mtime and inode (cheap; a positive answer is confirmed by
 * the caller with a digest).
 */
export async function statChanged(abs: string, before: DiskState): Promise<boolean> {
  let st;
  try {
    st = await stat(abs);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return before.kind !== 'missing';
    return true;
  }
  if (before.kind !== 'file') return before.kind === 'missing' || st.isDirectory() !== (before.kind === 'dir');
  return !st.isFile() || st.size !== before.size || st.mtimeMs !== before.mtimeMs || st.ino !== before.ino;
}
