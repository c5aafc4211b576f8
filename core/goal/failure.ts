/**
 * Failures a Goal-owned cycle waits out with one persisted backoff (GL5):
 * recoverable provider, network and stream failures (the provider's own
 * retries and recovery window are spent), a model step that timed out, and
 * the turn's step limit. Everything else fails the turn for good: a Goal
 * then blocks (GL7) — a retry would meet the same failure. Pure.
 */
import type { ErrorCode } from '../error-codes.js';
export const GOAL_RETRYABLE_FAILURES: ReadonlySet<string> = new Set([
  'provider_rate_limited',
  'provider_unavailable',
  'upstream_stream_incomplete',
  'provider_timeout',
  'provider_connection',
  'provider_retry_deadline',
  'model_step_timeout',
  'turn_step_limit',
] satisfies ErrorCode[]);
