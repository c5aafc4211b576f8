/**
 * PR1/PR2 on Temporal: turns a provider failure inside `modelStep` into the
 * ApplicationFailure that tells Temporal whether and when to retry. The
 * recovery window starts at the step's first retryable failure; that
 * instant is kept in the projection (event `provider.retry.window`) so every
 * later attempt — on any worker — measures against the same start.
 */
import { ApplicationFailure } from '@temporalio/activity';
import { CONTEXT_LIMIT_FAILURE } from '../../core/compaction/contract.js';
import { EV, parseEventData } from '../../core/events.js';
import type { ProviderRetry } from '../../core/provider-config.js';
import type { ProjectionStore } from '../projection/types.js';
import { ProviderError } from '../providers/errors.js';
import type { ProviderDiagnostic } from '../providers/types.js';

/** PR1 jitter: a local backoff delay is spread by ±20 %. */
export const RETRY_JITTER = 0.2;

/** Where and when a failure happened. */
export interface FailureContext {
  store: ProjectionStore;
  sessionId: string;
  turn: number;
  step: number;
  /** Temporal attempt number of this modelStep, from 1. */
  attempt: number;
  retry: ProviderRetry;
  nowMs: number;
  /** Uniform [0, 1) source for jitter (tests pass a constant). */
  random?: () => number;
}

/** The local backoff before attempt `attempt + 1`, ms: initial · 2^(attempt−1), capped, ±20 % jitter, capped again. */
export function localBackoffMs(retry: ProviderRetry, attempt: number, random: () => number = Math.random): number {
  const base = Math.min(retry.maxDelayMs, retry.initialDelayMs * 2 ** Math.max(0, attempt - 1));
  const spread = 1 + RETRY_JITTER * (2 * random() - 1);
  return Math.max(1, Math.min(retry.maxDelayMs, Math.round(base * spread)));
}

/** The step's window start: the recorded first retryable failure, or now (recorded). */
async function windowStart(f: FailureContext): Promise<number> {
  const last = await f.store.lastEvent(f.sessionId, EV.retryWindow);
  const d = last ? parseEventData(EV.retryWindow, last.data) : null;
  if (d && d.turn === f.turn && d.step === f.step) return d.firstFailureAtMs;
  await f.store.appendEvent({
    id: `step_${f.turn}_${f.step}:retry_window`,
    sessionId: f.sessionId,
    type: EV.retryWindow,
    data: { turn: f.turn, step: f.step, firstFailureAtMs: f.nowMs, windowMs: f.retry.recoveryWindowMs },
    atMs: f.nowMs,
  });
  return f.nowMs;
}

/**
 * CP8: a provider's context-limit error as the ApplicationFailure the
 * workflow recovers from: type {@link CONTEXT_LIMIT_FAILURE}, non-retryable
 * (the same request would fail again), details[0] = `{used?, limit?}` (the
 * provider's token figures), details[1] = the PR6 diagnostic.
 */
export function contextLimitFailure(err: ProviderError): ApplicationFailure {
  return ApplicationFailure.create({
    type: CONTEXT_LIMIT_FAILURE,
    message: err.message,
    nonRetryable: true,
    details: [{ ...err.contextLimit }, err.diagnostic],
  });
}

/** `status 503, code server_error, request req_1: reason` — PR6 diagnostics in one line. */
export function describeDiagnostic(d: ProviderDiagnostic): string {
  const ids = diagnosticIds(d);
  return ids ? `${ids}, ${d.reason}` : d.reason;
}

/** `status 503, code server_error, request req_1` — the diagnostic without its reason ('' when it has none of these). */
function diagnosticIds(d: ProviderDiagnostic): string {
  return [
    d.status !== undefined ? `status ${d.status}` : '',
    d.code ? `code ${d.code}` : '',
    d.requestId ? `request ${d.requestId}` : '',
  ]
    .filter(Boolean)
    .join(', ');
}

/**
 * Maps a modelStep failure to what Temporal should do (PR1–PR3, PR6):
 * - not a ProviderError: returned unchanged (Temporal's policy applies);
 * - a context-limit error: {@link contextLimitFailure} (CP8);
 * - not retryable (auth, 400, protocol, content filter): non-retryable, typed by code;
 * - the last allowed attempt: non-retryable with the peer's typed error;
 * - a valid Retry-After: honoured (clamped to the max delay, never
 *   shortened) unless it runs past the recovery window — then the turn ends
 *   with the peer's typed error;
 * - otherwise the jittered local backoff, unless it runs past the window —
 *   then `provider_retry_deadline` carrying the last diagnostics.
 * Every retryable failure is recorded as a `provider.retry` event.
 */
export async function providerFailure(err: unknown, f: FailureContext): Promise<unknown> {
  if (!(err instanceof ProviderError)) return err;
  // CP8: the workflow compacts and runs the step again; details[0] keeps the provider's figures.
  if (err.code === 'provider_context_limit') return contextLimitFailure(err);
  // details[1] carries the peer's Retry-After on to the workflow: a Goal's backoff honours it (GL6).
  const details =
    err.retryAfterMs !== undefined ? [err.diagnostic, { retryAfterMs: err.retryAfterMs }] : [err.diagnostic];
  const typed = (nonRetryable: boolean, message = err.message, nextRetryDelay?: number) =>
    ApplicationFailure.create({
      type: err.code,
      message,
      nonRetryable,
      details,
      ...(nextRetryDelay !== undefined ? { nextRetryDelay } : {}),
    });
  if (!err.retryable) return typed(true);
  const start = await windowStart(f);
  const remainingMs = start + f.retry.recoveryWindowMs - f.nowMs;
  // PR2: the window test uses what the peer asked for; the wait itself is clamped to the max delay.
  const askedMs = err.retryAfterMs ? err.retryAfterMs : undefined;
  const retryAfterMs = askedMs !== undefined ? Math.min(askedMs, f.retry.maxDelayMs) : undefined;
  const delayMs = retryAfterMs ?? localBackoffMs(f.retry, f.attempt, f.random);
  await f.store.appendEvent({
    id: `step_${f.turn}_${f.step}:retry:${f.attempt}`,
    sessionId: f.sessionId,
    type: EV.providerRetry,
    data: {
      turn: f.turn,
      step: f.step,
      attempt: f.attempt,
      code: err.code,
      diagnostic: err.diagnostic,
      delayMs,
      maxAttempts: f.retry.maxAttempts,
      remainingWindowMs: remainingMs,
      lastAttempt: f.attempt >= f.retry.maxAttempts,
      willRetry:
        f.attempt < f.retry.maxAttempts &&
        !(askedMs !== undefined && askedMs > remainingMs) &&
        !(askedMs === undefined && delayMs > remainingMs),
    },
    atMs: f.nowMs,
  });
  if (f.attempt >= f.retry.maxAttempts) {
    // The message already holds the last reason; the suffix adds what identifies that failure.
    const last = diagnosticIds(err.diagnostic);
    const attempts = `${f.attempt} attempt${f.attempt === 1 ? '' : 's'}`;
    return typed(true, `${err.message} (after ${attempts}${last ? `; last: ${last}` : ''})`);
  }
  if (askedMs !== undefined && askedMs > remainingMs) {
    return typed(
      true,
      `${err.message} (Retry-After ${Math.ceil(askedMs / 1000)} s runs past the ${f.retry.recoveryWindowMs} ms recovery window)`,
    );
  }
  if (retryAfterMs === undefined && delayMs > remainingMs) {
    return ApplicationFailure.create({
      type: 'provider_retry_deadline',
      message: `the provider did not recover within the ${f.retry.recoveryWindowMs} ms recovery window; last failure: ${err.code}: ${describeDiagnostic(err.diagnostic)}`,
      nonRetryable: true,
      details,
    });
  }
  return typed(false, err.message, delayMs);
}
