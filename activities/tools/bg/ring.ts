/**
 * The newest bytes of a growing stream, addressed by absolute offset (BG2):
 * a fixed-size circular buffer that retains `[start, end)`.
 */

/** BG2: how much of a running command's newest output is kept in memory, in bytes (2 MiB). */
export const LIVE_RETAINED_BYTES = 2 * 1024 * 1024;

/** A circular buffer of the newest `capacity` bytes of a stream. */
export class ByteRing {
  private readonly buf: Buffer;
  private endOffset = 0;
  private startOffset = 0;

  /** @param capacity bytes retained (default {@link LIVE_RETAINED_BYTES}). */
  constructor(readonly capacity: number = LIVE_RETAINED_BYTES) {
    this.buf = Buffer.alloc(capacity);
  }

  /** Absolute offset just after the newest byte (= bytes seen, counting skipped ones). */
  get end(): number {
    return this.endOffset;
  }

  /** Absolute offset of the oldest retained byte. */
  get start(): number {
    return this.startOffset;
  }

  /**
   * Appends `chunk`, which begins at absolute offset `at`. `at` must be
   * ≥ {@link end}; when it is beyond, the gap was skipped and nothing older
   * than `at` stays retained.
   * @throws RangeError when `at` lies before {@link end}.
   */
  append(chunk: Uint8Array, at: number = this.endOffset): void {
    if (at < this.endOffset) throw new RangeError(`append at ${at} before end ${this.endOffset}`);
    if (at > this.endOffset) this.startOffset = this.endOffset = at;
    let data = chunk;
    if (data.length > this.capacity) data = data.subarray(data.length - this.capacity);
    const skipped = chunk.length - data.length;
    let pos = (this.endOffset + skipped) % this.capacity;
    let off = 0;
    while (off < data.length) {
      const n = Math.min(data.length - off, this.capacity - pos);
      this.buf.set(data.subarray(off, off + n), pos);
      off += n;
      pos = (pos + n) % this.capacity;
    }
    this.endOffset += chunk.length;
    this.startOffset = Math.max(this.startOffset, this.endOffset - this.capacity);
  }

  /**
   * A copy of bytes `[from, to)`, or null when any of them is not retained
   * (`from < start` or `to > end`).
   */
  read(from: number, to: number): Buffer | null {
    if (from < this.startOffset || to > this.endOffset || from > to) return null;
    const out = Buffer.alloc(to - from);
    let pos = from % this.capacity;
    let off = 0;
    while (off < out.length) {
      const n = Math.min(out.length - off, this.capacity - pos);
      this.buf.copy(out, off, pos, pos + n);
      off += n;
      pos = (pos + n) % this.capacity;
    }
    return out;
  }
}
