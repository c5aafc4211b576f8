/**
 * Bounded read-back windows over a byte source (BG1–BG4): one cursor
 * convention for a background task's output and a withheld artifact. The
 * window's bounds are fixed before any byte is read; the limit is clamped,
 * never rejected; no output cap is applied again and nothing is re-run.
 */
import { open, type FileHandle } from 'node:fs/promises';
import { BG_DEFAULT_LIMIT, BG_MAX_LIMIT } from '../../../core/tools/bg.js';
import type { ByteRing } from './ring.js';
import type { BgWindow } from './types.js';

/** Where a cursor-less read starts: `tail` = the newest window ending at totalWritten (output, wait); `head` = byte 0 (artifact). */
export type WindowAnchor = 'tail' | 'head';

/** A read-back request. */
export interface WindowRequest {
  /** Absolute byte offset of the window start; absent: see `anchor`. */
  cursor?: number;
  /** Window size in bytes; default {@link BG_DEFAULT_LIMIT}, clamped to {@link BG_MAX_LIMIT}. */
  limit?: number;
  anchor: WindowAnchor;
}

/** The bounds of a window, decided before reading. */
export interface WindowPlan {
  from: number;
  to: number;
  limit: number;
  requestedLimit?: number;
}

/** A cursor past the end of the source: a typed result, not an exception. */
export interface CursorOutOfRange {
  code: 'cursor_out_of_range';
  cursor: number;
  totalWritten: number;
}

/**
 * Fixes a window's bounds over `totalWritten` bytes. Pure.
 *
 * @returns the plan, or {@link CursorOutOfRange} when `cursor > totalWritten`
 *   (a cursor equal to `totalWritten` is an empty window at the end: nothing
 *   new yet).
 */
export function planWindow(req: WindowRequest, totalWritten: number): WindowPlan | CursorOutOfRange {
  const requested = req.limit ?? BG_DEFAULT_LIMIT;
  const limit = Math.max(1, Math.min(requested, BG_MAX_LIMIT));
  const clamp = requested !== limit ? { requestedLimit: requested } : {};
  if (req.cursor !== undefined) {
    if (req.cursor > totalWritten) return { code: 'cursor_out_of_range', cursor: req.cursor, totalWritten };
    return { from: req.cursor, to: Math.min(totalWritten, req.cursor + limit), limit, ...clamp };
  }
  if (req.anchor === 'head') return { from: 0, to: Math.min(totalWritten, limit), limit, ...clamp };
  return { from: Math.max(0, totalWritten - limit), to: totalWritten, limit, ...clamp };
}

/** True for a UTF-8 continuation byte (10xxxxxx). */
export function isContinuationByte(b: number): boolean {
  return (b & 0xc0) === 0x80;
}

/** Bytes as display text: lossy UTF-8, NUL shown as U+FFFD (like the shell's binary output). */
export function displayText(bytes: Uint8Array): string {
  // eslint-disable-next-line no-control-regex
  return new TextDecoder('utf-8').decode(bytes).replace(/\u0000/g, '\uFFFD');
}

const fatal = new TextDecoder('utf-8', { fatal: true });

/** Length of an incomplete multi-byte sequence at the end of `bytes` (0 when it ends on a boundary). */
function incompleteTail(bytes: Uint8Array): number {
  for (let back = 1; back <= Math.min(3, bytes.length); back++) {
    const b = bytes[bytes.length - back]!;
    if (isContinuationByte(b)) continue;
    const need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    return need > back ? back : 0;
  }
  return 0;
}

/**
 * Builds the window reply from the bytes read. `next` is the byte just after
 * the window (if any), used to tell whether the window ends inside a
 * character. Pure.
 */
export function describeWindow(
  plan: WindowPlan,
  bytes: Uint8Array,
  next: number | undefined,
  totalWritten: number,
  fromDisk: boolean,
): BgWindow {
  let lead = 0;
  if (plan.from > 0) while (lead < Math.min(3, bytes.length) && isContinuationByte(bytes[lead]!)) lead++;
  const endsInside = next !== undefined && isContinuationByte(next) && bytes.length > 0;
  const trail = endsInside ? incompleteTail(bytes) : 0;
  const inner = bytes.subarray(lead, Math.max(lead, bytes.length - trail));
  let binary = inner.includes(0);
  if (!binary) {
    try {
      fatal.decode(inner);
    } catch {
      binary = true;
    }
  }
  return {
    cursor: plan.from,
    nextCursor: plan.from + bytes.length,
    hasMore: plan.from + bytes.length < totalWritten,
    windowFrom: plan.from,
    hasEarlier: plan.from > 0,
    totalWritten,
    fromDisk,
    bytes: bytes.length,
    limit: plan.limit,
    ...(plan.requestedLimit !== undefined ? { requestedLimit: plan.requestedLimit } : {}),
    startsInsideCharacter: lead > 0,
    endsInsideCharacter: endsInside,
    binary,
    text: displayText(bytes),
  };
}

/**
 * Reads bytes `[from, to)` through an open handle, plus the byte at `to`
 * when it exists (`next`). Reads fewer when the file is shorter.
 * @throws the file system error when it cannot be read.
 */
export async function readHandleRange(
  handle: FileHandle,
  from: number,
  to: number,
): Promise<{ bytes: Buffer; next?: number }> {
  const want = Math.max(0, to - from) + 1;
  const buf = Buffer.alloc(want);
  let got = 0;
  while (got < want) {
    const { bytesRead } = await handle.read(buf, got, want - got, from + got);
    if (bytesRead === 0) break;
    got += bytesRead;
  }
  const n = Math.min(got, to - from);
  return got > n ? { bytes: buf.subarray(0, n), next: buf[n]! } : { bytes: buf.subarray(0, n) };
}

/**
 * {@link readHandleRange} on a path (opened and closed here).
 * @throws the file system error (e.g. ENOENT) when it cannot be read.
 */
export async function readFileRange(path: string, from: number, to: number): Promise<{ bytes: Buffer; next?: number }> {
  const handle = await open(path, 'r');
  try {
    return await readHandleRange(handle, from, to);
  } finally {
    await handle.close().catch(() => {});
  }
}

/** A byte source to read a window from. */
export interface WindowSource {
  /** Bytes in the source now (the window never reaches past it). */
  totalWritten: number;
  /** The file holding every byte: a path, or a handle already open. */
  file: string | FileHandle;
  /** The in-memory newest bytes of a running task, when this process holds it. */
  ring?: ByteRing;
}

/**
 * Reads one window: from the ring when it retains the whole window →
 * `fromDisk: false`; otherwise from the file → `fromDisk: true`.
 *
 * @returns the window, or {@link CursorOutOfRange}.
 * @throws the file system error when the file must be read and cannot be.
 */
export async function readWindow(source: WindowSource, req: WindowRequest): Promise<BgWindow | CursorOutOfRange> {
  const plan = planWindow(req, source.totalWritten);
  if ('code' in plan) return plan;
  const ring = source.ring;
  if (ring && plan.from >= ring.start && plan.to <= ring.end) {
    const bytes = ring.read(plan.from, plan.to)!;
    const after = plan.to < ring.end ? ring.read(plan.to, plan.to + 1) : null;
    return describeWindow(plan, bytes, after?.[0], source.totalWritten, false);
  }
  if (plan.from === source.totalWritten) return describeWindow(plan, Buffer.alloc(0), undefined, plan.from, !ring);
  const { bytes, next } =
    typeof source.file === 'string'
      ? await readFileRange(source.file, plan.from, plan.to)
      : await readHandleRange(source.file, plan.from, plan.to);
  return describeWindow(plan, bytes, plan.to < source.totalWritten ? next : undefined, source.totalWritten, true);
}
