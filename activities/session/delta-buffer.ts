/**
 * Coalesces streamed text deltas into events: flushes when `maxChars` are
 * buffered or `intervalMs` passed since the first unflushed delta, so a fast
 * stream costs a handful of writes, not one per token. `flush` is awaited by
 * the caller at the end; writes are serialized in order.
 */
export class DeltaBuffer {
  private text = '';
  private timer: NodeJS.Timeout | undefined;
  private chain: Promise<void> = Promise.resolve();
  private failed: unknown;

  constructor(
    private readonly write: (text: string) => Promise<void>,
    private readonly intervalMs = 50,
    private readonly maxChars = 2048,
  ) {}

  /** Adds a delta; may schedule a flush. */
  push(delta: string): void {
    this.text += delta;
    if (this.text.length >= this.maxChars) this.flushNow();
    else if (!this.timer) this.timer = setTimeout(() => this.flushNow(), this.intervalMs);
  }

  /** Writes what is buffered and waits for every write so far; rethrows a failed write. */
  async flush(): Promise<void> {
    this.flushNow();
    await this.chain;
    if (this.failed) throw this.failed;
  }

  private flushNow(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.text === '') return;
    const text = this.text;
    this.text = '';
    this.chain = this.chain
      .then(() => this.write(text))
      .catch((err) => {
        this.failed ??= err;
      });
  }
}
