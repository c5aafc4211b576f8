/**
 * PR5 deadlines on native timers, precise to the millisecond (undici's own
 * `headersTimeout` / `bodyTimeout` tick at ~1 s resolution and stay armed as a
 * backstop).
 */

/** Largest delay Node's setTimeout accepts (ms). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Which deadline fired: the response headers, or the next body chunk. */
export type DeadlineKind = 'headers' | 'chunk';

/**
 * One re-armable deadline. On expiry it aborts {@link Watchdog.controller}
 * (hand its signal to undici, which then fails the pending request or body
 * read) and records which deadline it was in {@link Watchdog.fired}.
 */
export class Watchdog {
  readonly controller = new AbortController();
  fired: DeadlineKind | undefined;
  private timer: NodeJS.Timeout | undefined;

  /** (Re)start the deadline: `ms` from now; `ms <= 0` (or NaN) arms nothing. */
  arm(kind: DeadlineKind, ms: number): void {
    this.disarm();
    if (!(ms > 0)) return;
    this.timer = setTimeout(
      () => {
        this.fired = kind;
        this.controller.abort(new Error(`${kind} timeout`));
      },
      Math.min(ms, MAX_TIMER_MS),
    );
  }

  /** Stop the pending deadline, if any. Idempotent. */
  disarm(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
