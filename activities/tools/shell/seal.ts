/**
 * Sealing a capture file once the call has ended (TD9): a process that
 * escaped the command's process group (`setsid … &`) may still hold the
 * capture file open and keep writing into it. The call's output is what the
 * file held when the command ended, so those bytes are copied into a new,
 * private file that no process holds, measured and hashed in the same pass,
 * and the live capture file is unlinked (a late writer writes into an
 * orphaned inode that nothing reads). Everything after — inline text,
 * withheld or binary artifact, reported SHA-256 — is taken from the sealed
 * copy, so a finished call's stored output never changes. A background task
 * seals its output file in place (`inPlace`): the copy replaces the file under
 * its own name, so readers keep one path and never find it missing.
 */
import { randomBytes } from 'node:crypto';
import { open, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { captureMeter, type CaptureStats } from './capture.js';

/** A sealed capture: the independent copy and its measured facts. */
export interface SealedCapture {
  /** Absolute path of the sealed copy (a temporary name in the capture file's directory, or the capture path itself when sealed in place). */
  path: string;
  stats: CaptureStats;
}

const CHUNK = 1 << 20;

/**
 * Copies the first `endBytes` bytes of the capture file at `capturePath`
 * into a new file beside it (`<capture name>.sealed`, created `wx`, mode
 * 0600), measuring them on the way (see {@link captureMeter}), then unlinks
 * the capture file — or, with `opts.inPlace`, renames the copy over it (one
 * atomic step: the path always names a complete file, and a late writer is
 * left with the replaced, unlinked inode).
 *
 * @param endBytes size of the capture file when the command ended (bytes);
 *   anything appended later is not part of the call's output. A file shorter
 *   than that (never expected) is copied as it is.
 * @param marker guard line marker to look for (see `guardLineMarker`).
 * @param opts.inPlace keep the sealed copy at `capturePath` instead of beside it.
 * @throws on any I/O failure; the capture file is then left in place and the
 *   partial copy removed.
 */
export async function sealCapture(
  capturePath: string,
  endBytes: number,
  marker: string,
  opts: { inPlace?: boolean } = {},
): Promise<SealedCapture> {
  const sealedPath = join(dirname(capturePath), `${basename(capturePath)}.${randomBytes(4).toString('hex')}.sealed`);
  const meter = captureMeter(marker);
  const source = await open(capturePath, 'r');
  try {
    const target = await open(sealedPath, 'wx', 0o600);
    try {
      const buf = Buffer.alloc(Math.min(CHUNK, Math.max(endBytes, 1)));
      for (let pos = 0; pos < endBytes;) {
        const { bytesRead } = await source.read(buf, 0, Math.min(buf.length, endBytes - pos), pos);
        if (bytesRead === 0) break;
        const chunk = buf.subarray(0, bytesRead);
        meter.push(chunk);
        await target.write(chunk, 0, bytesRead, pos);
        pos += bytesRead;
      }
      await target.close();
      if (opts.inPlace) await rename(sealedPath, capturePath);
    } catch (err) {
      await target.close().catch(() => {});
      await unlink(sealedPath).catch(() => {});
      throw err;
    }
  } finally {
    await source.close().catch(() => {});
  }
  if (opts.inPlace) return { path: capturePath, stats: meter.finish() };
  await unlink(capturePath);
  return { path: sealedPath, stats: meter.finish() };
}
