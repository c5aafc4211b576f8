/**
 * The Goal-level backoff (GL5, GL6): when a retryable failure ends a
 * Goal-owned cycle, the Goal persists ONE retry deadline — a Temporal timer
 * in the goal workflow — before its next continuation. Pure: the jitter is
 * an argument (the workflow passes its deterministic `Math.random()`).
 */

/** Backoff parameters (SEED-GAP GL5, decided in docs/goals.md). */
export interface GoalBackoffParams {
  /** First delay, ms. */
  initialMs: number;
  /** Growth per consecutive retryable failure. */
  factor: number;
  /** Cap of every delay, ms — also the cap a peer's Retry-After is truncated to (GL6 `max_delay_ms`). */
  maxDelayMs: number;
  /** Jitter as a fraction of the delay: the delay is scaled by a factor in [1 − jitter, 1 + jitter]. */
  jitter: number;
}

/** Defaults: 5 s, doubling, capped at 15 min, ±20 %. */
export const DEFAULT_GOAL_BACKOFF: GoalBackoffParams = {
  initialMs: 5_000,
  factor: 2,
  maxDelayMs: 15 * 60_000,
  jitter: 0.2,
};

/**
 * The delay before retry number `attempt` (1 = the first retry), in ms:
 * `initialMs · factor^(attempt−1)`, jittered by `random` ∈ [0, 1), capped at
 * `maxDelayMs`, never below 1 ms (positive, capped, jittered — GL5). A peer's
 * `retryAfterMs` (GL6) is truncated to `maxDelayMs` and is never replaced by
 * an earlier local delay: the result is at least the truncated peer value.
 * @throws RangeError for an attempt below 1, a random outside [0, 1), or parameters that are not positive.
 */
export function goalBackoffDelayMs(
  attempt: number,
  random: number,
  params: GoalBackoffParams = DEFAULT_GOAL_BACKOFF,
  retryAfterMs?: number,
): number {
  if (!Number.isInteger(attempt) || attempt < 1)
    throw new RangeError(`attempt must be an integer ≥ 1 (got ${attempt})`);
  if (!(random >= 0 && random < 1)) throw new RangeError(`random must be in [0, 1) (got ${random})`);
  if (!(
    params.initialMs > 0 &&
    params.factor >= 1 &&
    params.maxDelayMs > 0 &&
    params.jitter >= 0 &&
    params.jitter < 1
  )) {
    throw new RangeError('backoff parameters must be positive (factor ≥ 1, 0 ≤ jitter < 1)');
  }
  const base = params.initialMs * params.factor ** (attempt - 1);
  const jittered = base * (1 - params.jitter + 2 * params.jitter * random);
  const local = Math.max(1, Math.min(params.maxDelayMs, Math.round(jittered)));
  if (retryAfterMs === undefined || !(retryAfterMs > 0)) return local;
  return Math.max(local, Math.min(params.maxDelayMs, Math.round(retryAfterMs)));
}
