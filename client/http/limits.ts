/**
 * The limits of `zuno serve` (issue 29, SF6; docs/http.md "Limits"): the
 * largest request body, the open connections, and a small in-memory rate
 * limiter per client address (a token bucket: a burst of
 * {@link RATE_BURST} requests, refilled at {@link RATE_PER_SECOND} a second).
 * The limiter lives in the process: a restart forgets it.
 */
import type { MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { getConnInfo } from '@hono/node-server/conninfo';
import { errorBody } from './errors.js';

/** Largest request body, in bytes (1 MiB): larger ones are answered 413 `body_too_large` unread. */
export const BODY_LIMIT_BYTES = 1024 * 1024;

/** Open TCP connections the server accepts at once (node's `server.maxConnections`); more are closed at once. */
export const MAX_CONNECTIONS = 64;

/** Requests a client address may make in a burst. */
export const RATE_BURST = 120;

/** Requests a second a client address is refilled with after a burst. */
export const RATE_PER_SECOND = 20;

/** The body-size middleware: 413 `body_too_large` as JSON. */
export function limitBody(): MiddlewareHandler {
  return bodyLimit({
    maxSize: BODY_LIMIT_BYTES,
    onError: (c) => {
      // The rest of the body is never read: the connection cannot carry another request.
      c.header('Connection', 'close');
      return c.json(
        errorBody('body_too_large', `the request body is larger than ${BODY_LIMIT_BYTES} bytes: nothing was done`),
        413,
      );
    },
  });
}

/** One client address's bucket. */
interface Bucket {
  tokens: number;
  atMs: number;
}

/**
 * A token bucket per key. `take(key, nowMs)` returns 0 when the request may
 * pass, else the seconds until one may (for `Retry-After`). Buckets that are
 * full again are dropped, so the map holds only recent clients.
 */
export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    private readonly burst: number = RATE_BURST,
    private readonly perSecond: number = RATE_PER_SECOND,
  ) {}

  /** 0: allowed (one request taken); n > 0: refused, retry after n seconds. */
  take(key: string, nowMs: number): number {
    const b = this.buckets.get(key) ?? { tokens: this.burst, atMs: nowMs };
    b.tokens = Math.min(this.burst, b.tokens + ((nowMs - b.atMs) / 1000) * this.perSecond);
    b.atMs = nowMs;
    if (b.tokens < 1) {
      this.buckets.set(key, b);
      return Math.max(1, Math.ceil((1 - b.tokens) / this.perSecond));
    }
    b.tokens -= 1;
    this.buckets.set(key, b);
    if (this.buckets.size > 10_000) this.prune(nowMs);
    return 0;
  }

  /** Drops the buckets that have refilled completely by `nowMs`. */
  private prune(nowMs: number): void {
    for (const [k, b] of this.buckets)
      if (b.tokens + ((nowMs - b.atMs) / 1000) * this.perSecond >= this.burst) this.buckets.delete(k);
  }
}

/** The rate-limit middleware: 429 `rate_limited` with `Retry-After` once a client address's bucket is empty. */
export function limitRate(limiter: RateLimiter = new RateLimiter()): MiddlewareHandler {
  return async (c, next) => {
    let key = 'unknown';
    try {
      key = getConnInfo(c).remote.address ?? 'unknown';
    } catch {
      // not served by @hono/node-server (app.request in a test): one bucket for all
    }
    const wait = limiter.take(key, Date.now());
    if (wait > 0) {
      c.header('Retry-After', String(wait));
      return c.json(
        errorBody('rate_limited', `too many requests from ${key}: retry in ${wait} s (docs/http.md, Limits)`),
        429,
      );
    }
    await next();
  };
}
