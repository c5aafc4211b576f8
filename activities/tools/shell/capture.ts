/**
 * The capture file of one run and what becomes of it (TD9): the command
 * writes stdout and stderr, interleaved, straight into a file (no pipe, no
 * copy in Zuno's memory); afterwards the file is sealed into a private copy
 * (./seal.ts), measured in the same streaming pass, and either read back
 * inline or kept whole as an artifact.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { link, mkdir, open, readFile, unlink, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';

/** An open capture file. */
export interface Capture {
  /** Absolute path of the (temporary) capture file. */
  path: string;
  handle: FileHandle;
}

/** Facts measured from a capture file in one pass. */
export interface CaptureStats {
  bytes: number;
  /** Lines: `\n` count, plus one for a final line without `\n`. */
  lines: number;
  nulBytes: number;
  /** false when the bytes are not valid UTF-8. */
  utf8: boolean;
  /** Whether the `marker` passed to {@link captureMeter} occurs in the bytes. */
  markerSeen: boolean;
  /** SHA-256 of the bytes, lowercase hex. */
  sha256: string;
}

function digest(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 12);
}

/** Base name of a call's artifact: `shell-<session digest>-<call digest>`. */
export function artifactBaseName(sessionId: string, callId: string): string {
  return `shell-${digest(sessionId)}-${digest(callId)}`;
}

/** Creates the capture file for a call under `artifactDir` (created if missing). */
export async function openCapture(artifactDir: string, sessionId: string, callId: string): Promise<Capture> {
  await mkdir(artifactDir, { recursive: true });
  const path = join(artifactDir, `.${artifactBaseName(sessionId, callId)}-${randomBytes(6).toString('hex')}.partial`);
  const handle = await open(path, 'wx', 0o600);
  return { path, handle };
}

/** Incremental {@link CaptureStats}: feed the bytes in order with `push`, then `finish` once. */
export interface CaptureMeter {
  push(chunk: Buffer): void;
  finish(): CaptureStats;
}

/**
 * Starts measuring a byte stream: size, lines, NUL bytes, UTF-8 validity,
 * SHA-256, and whether `marker` occurs (found across chunk edges).
 */
export function captureMeter(marker: string): CaptureMeter {
  const needle = Buffer.from(marker, 'utf8');
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const hash = createHash('sha256');
  const stats: CaptureStats = { bytes: 0, lines: 0, nulBytes: 0, utf8: true, markerSeen: false, sha256: '' };
  let tail = Buffer.alloc(0);
  let lastByte = -1;
  return {
    push(chunk) {
      if (chunk.length === 0) return;
      stats.bytes += chunk.length;
      hash.update(chunk);
      for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, i + 1)) stats.lines++;
      for (let i = chunk.indexOf(0); i >= 0; i = chunk.indexOf(0, i + 1)) stats.nulBytes++;
      if (stats.utf8) {
        try {
          decoder.decode(chunk, { stream: true });
        } catch {
          stats.utf8 = false;
        }
      }
      if (!stats.markerSeen && needle.length > 0) {
        const window = Buffer.concat([tail, chunk]);
        if (window.includes(needle)) stats.markerSeen = true;
        tail = window.subarray(Math.max(0, window.length - needle.length + 1));
      }
      lastByte = chunk[chunk.length - 1] ?? lastByte;
    },
    finish() {
      if (stats.utf8) {
        try {
          decoder.decode();
        } catch {
          stats.utf8 = false; // ends inside a multi-byte sequence
        }
      }
      if (stats.bytes > 0 && lastByte !== 10) stats.lines++;
      stats.sha256 = hash.digest('hex');
      return stats;
    },
  };
}

/** Measures a whole file in one streaming pass (see {@link captureMeter}). */
export async function measureCapture(path: string, marker: string): Promise<CaptureStats> {
  const meter = captureMeter(marker);
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>)
    meter.push(chunk);
  return meter.finish();
}

/** Reads the whole capture file (only done for output already known to be small, or accepted as large). */
export function readCapture(path: string): Promise<Buffer> {
  return readFile(path);
}

/**
 * Publishes a sealed capture (./seal.ts; never the live capture file, which
 * an escaped process may still write) as the call's artifact without ever
 * replacing an existing file: `<base>.out`, else `<base>-2.out`, … (hard
 * link, then the temporary name is removed).
 *
 * @returns the absolute artifact path.
 */
export async function keepAsArtifact(
  capturePath: string,
  artifactDir: string,
  sessionId: string,
  callId: string,
): Promise<string> {
  const base = artifactBaseName(sessionId, callId);
  for (let n = 1; ; n++) {
    const target = join(artifactDir, n === 1 ? `${base}.out` : `${base}-${n}.out`);
    try {
      await link(capturePath, target);
      await unlink(capturePath);
      return target;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || n >= 1000) throw err;
    }
  }
}

/** Removes the temporary capture file (best effort). */
export async function discardCapture(capturePath: string): Promise<void> {
  await unlink(capturePath).catch(() => {});
}
