/**
 * The `web_search` rate limit (NW2, NW4; docs/web.md): a token bucket of
 * `capacity` tokens refilled at `ratePerMinute`. Each request takes one;
 * without one it waits for its turn — takers are served in the order they
 * asked (a reservation: the bucket may go negative). A taker whose turn is
 * further away than its `maxWaitMs` takes nothing and is told so at once.
 * Time comes from a {@link Clock}, so tests drive it by hand.
 */
import { setTimeout as sleep } from 'node:timers/promises';

/** Where the bucket reads time and waits. */
export interface Clock {
  /** Now, in ms. */
  now(): number;
  /** Resolves after `ms`; rejects when `signal` aborts first. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** The process clock. */
export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) => sleep(ms, undefined, signal ? { signal } : {}),
};

/** A token bucket (see module doc). */
export class TokenBucket {
  private tokens: number;
  private last: number;
  private readonly perMs: number;

  /**
   * @param ratePerMinute tokens added per minute (> 0).
   * @param capacity most tokens held (the burst), ≥ 1.
   */
  constructor(
    ratePerMinute: number,
    private readonly capacity: number,
    private readonly clock: Clock = systemClock,
  ) {
    this.perMs = ratePerMinute / 60_000;
    this.tokens = capacity;
    this.last = clock.now();
  }

  /**
   * Takes one token, waiting for it when none is left.
   * @returns true once the token is taken; false at once when it would take
   *   longer than `maxWaitMs` to come (nothing is taken).
   * @throws the signal's reason when `signal` aborts while waiting (the reservation is given back).
   */
  async take(maxWaitMs: number, signal?: AbortSignal): Promise<boolean> {
    signal?.throwIfAborted();
    this.refill();
    const waitMs = this.tokens >= 1 ? 0 : Math.ceil((1 - this.tokens) / this.perMs);
    if (waitMs > maxWaitMs) return false;
    this.tokens -= 1;
    if (waitMs === 0) return true;
    try {
      await this.clock.sleep(waitMs, signal);
    } catch (err) {
      this.tokens += 1;
      throw err;
    }
    return true;
  }

  /** Adds what the elapsed time earned, up to the capacity. */
  private refill(): void {
    const now = this.clock.now();
    this.tokens = Math.min(this.capacity, this.tokens + (now - this.last) * this.perMs);
    this.last = now;
  }
}
