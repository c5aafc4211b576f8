import { ActivityCancellationType, type ActivityOptions } from '@temporalio/common';
import type { ActivityDefaults } from './activity-defaults.js';
import type { ProviderRetry } from './provider-config.js';
import type { ToolDeclaration } from './tools/types.js';

/** Error types a tool or model activity throws that must never be retried. */
export const NON_RETRYABLE_TOOL_ERRORS = ['invalid_arguments', 'unavailable', 'rg_missing', 'rg_too_old'];

/**
 * Activity options of one tool call, derived from the tool's declaration
 * (TD1, TD3): replay `Never` → `maximumAttempts: 1` (a lost outcome is never
 * re-run; it is recorded uncertain); `Safe` → retried with the temporal.yaml
 * `safeRetry` backoff. Timeouts and heartbeat from `activities.tool`.
 * `summary` is the one-line text the Temporal UI shows (e.g. `grep: TODO in src/`).
 */
export function toolActivityOptions(
  decl: Pick<ToolDeclaration, 'replay'>,
  defaults: ActivityDefaults,
  summary: string,
): ActivityOptions {
  const base: ActivityOptions = {
    startToCloseTimeout: defaults.tool.startToCloseTimeoutMs,
    heartbeatTimeout: defaults.tool.heartbeatTimeoutMs,
    // TD10: a cancelled call reports its own final result (cooperative) unless the workflow gives up on it.
    cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
    summary,
  };
  if (decl.replay === 'Never') return { ...base, retry: { maximumAttempts: 1 } };
  const r = defaults.safeRetry;
  return {
    ...base,
    retry: {
      initialInterval: r.initialIntervalMs,
      backoffCoefficient: r.backoffCoefficient,
      maximumInterval: r.maximumIntervalMs,
      maximumAttempts: r.maximumAttempts,
      nonRetryableErrorTypes: NON_RETRYABLE_TOOL_ERRORS,
    },
  };
}

/**
 * Activity options of the modelStep activity: the provider's `retry` block
 * (PR1) becomes the RetryPolicy (attempts include the first; backoff from
 * `initialDelayMs` doubling to `maxDelayMs`); a `Retry-After` reaches Temporal
 * as the failure's `nextRetryDelay`. Non-retryable provider errors are marked
 * `nonRetryable` by the activity itself.
 */
export function modelStepOptions(retry: ProviderRetry, defaults: ActivityDefaults, summary: string): ActivityOptions {
  return {
    startToCloseTimeout: defaults.model.startToCloseTimeoutMs,
    heartbeatTimeout: defaults.model.heartbeatTimeoutMs,
    cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
    summary,
    retry: {
      maximumAttempts: retry.maxAttempts,
      initialInterval: retry.initialDelayMs,
      maximumInterval: retry.maxDelayMs,
      backoffCoefficient: 2,
    },
  };
}

/** Margin added to a background command's own time limit for its activity's start-to-close timeout, in ms. */
const BACKGROUND_SETTLE_MARGIN_MS = 120_000;

/**
 * Activity options of `bgCommand`, the long-running activity that executes
 * one background shell call (BG2): never retried (shell is replay `Never`:
 * a lost run is reported uncertain, not re-run), heartbeating like a tool,
 * start-to-close = the command's own limit plus a settling margin, and a
 * cancellation that waits for the command's own final report (SH5).
 */
export function backgroundCommandOptions(
  defaults: ActivityDefaults,
  commandTimeoutMs: number,
  summary: string,
): ActivityOptions {
  return {
    startToCloseTimeout: commandTimeoutMs + BACKGROUND_SETTLE_MARGIN_MS,
    heartbeatTimeout: defaults.tool.heartbeatTimeoutMs,
    cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
    retry: { maximumAttempts: 1 },
    summary,
  };
}

/** Start-to-close limit of a remote observer's start, poll and stop activities, in ms (each is short: it never waits for the command). */
const OBSERVER_STEP_TIMEOUT_MS = 60_000;

/**
 * Activity options of a remote observer's steps (SH9, GL26; workflows/observer.ts).
 * `start` launches the command: never retried (shell is replay `Never`; a
 * start whose worker was lost is reported lost, never re-run). `poll` and
 * `stop` only read the task's state or signal its process group: retried
 * (3 attempts, 1 s apart, doubling).
 */
export function observerStepOptions(step: 'start' | 'poll' | 'stop', summary: string): ActivityOptions {
  return {
    startToCloseTimeout: OBSERVER_STEP_TIMEOUT_MS,
    summary,
    retry:
      step === 'start' ? { maximumAttempts: 1 } : { maximumAttempts: 3, initialInterval: 1_000, backoffCoefficient: 2 },
  };
}

/**
 * Activity options of a projection record the workflow writes for a person
 * to read (`recordApproval`, `recordQuestion`): an upsert keyed by its id,
 * safe to retry — 30 s per attempt, retried from 1 s doubling to 30 s.
 */
export const PROJECTION_RECORD_OPTIONS = {
  startToCloseTimeout: 30_000,
  retry: { initialInterval: 1_000, backoffCoefficient: 2, maximumInterval: 30_000 },
} as const;
