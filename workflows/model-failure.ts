import { ActivityFailure, ApplicationFailure, TimeoutFailure } from '@temporalio/common';
import { GOAL_RETRYABLE_FAILURES } from '../core/goal/failure.js';
import { BLOCKING_FAILURES, PAUSING_FAILURES, type TurnEnd } from '../core/session/outcome.js';

/** The part of a turn outcome a failed model step decides. */
export type ModelFailureOutcome = Extract<TurnEnd, { kind: 'failed' | 'paused' | 'blocked' }>;

/**
 * Model-failure classification (PR3), one pure function: a modelStep that
 * failed for good (its RetryPolicy is spent or the error is non-retryable)
 * becomes `paused` (auth: a person must fix the key), `blocked` (protocol,
 * config, corrupt state: the setup is broken) or `failed`, with the typed
 * code from the activity's ApplicationFailure (`model_step_timeout` for a
 * start-to-close or heartbeat timeout, `model_step_failed` otherwise).
 * @param startToCloseMs the step's start-to-close timeout, named in the timeout message.
 */
export function classifyModelFailure(err: unknown, startToCloseMs: number): ModelFailureOutcome {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  const timedOut = cause instanceof TimeoutFailure;
  const code =
    cause instanceof ApplicationFailure && cause.type
      ? cause.type
      : timedOut
        ? 'model_step_timeout'
        : 'model_step_failed';
  const message = timedOut
    ? `the model step ran past temporal.yaml activities.model.startToCloseTimeoutMs (${startToCloseMs} ms) or its heartbeat timeout`
    : ((cause as Error | undefined)?.message ?? String(cause));
  if (PAUSING_FAILURES.includes(code)) return { kind: 'paused', reason: code, message };
  if (BLOCKING_FAILURES.includes(code)) return { kind: 'blocked', code, message };
  const retryAfterMs = cause instanceof ApplicationFailure ? retryAfterOf(cause.details?.[1]) : undefined;
  return {
    kind: 'failed',
    code,
    message,
    ...(GOAL_RETRYABLE_FAILURES.has(code) ? { retryable: true } : {}),
    ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
  };
}

function retryAfterOf(d: unknown): number | undefined {
  const ms = (d as { retryAfterMs?: unknown } | undefined)?.retryAfterMs;
  return typeof ms === 'number' && Number.isFinite(ms) && ms >= 0 ? ms : undefined;
}
