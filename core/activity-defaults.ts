/**
 * Per-class activity defaults (temporal.yaml `activities:`), resolved once at
 * session start and carried in the workflow input so workflow code never reads
 * files. All durations in milliseconds. Deterministic: imported by workflows.
 */
export interface ActivityDefaults {
  model: { startToCloseTimeoutMs: number; heartbeatTimeoutMs: number };
  tool: { startToCloseTimeoutMs: number; heartbeatTimeoutMs: number };
  /** Retry used by replay `Safe` tools (TD3). */
  safeRetry: {
    initialIntervalMs: number;
    backoffCoefficient: number;
    maximumIntervalMs: number;
    maximumAttempts: number;
  };
  projection: { startToCloseTimeoutMs: number };
}

/** The defaults used when temporal.yaml leaves a key out. */
export const DEFAULT_ACTIVITY_DEFAULTS: ActivityDefaults = {
  // PR5: native providers have no whole-request deadline; the heartbeat catches a dead worker, this only a runaway stream.
  model: { startToCloseTimeoutMs: 21_600_000, heartbeatTimeoutMs: 10_000 },
  // Longer than the shell's longest timeout (600 s) plus its 2 s cancel window.
  tool: { startToCloseTimeoutMs: 660_000, heartbeatTimeoutMs: 8_000 },
  safeRetry: {
    initialIntervalMs: 1_000,
    backoffCoefficient: 2,
    maximumIntervalMs: 30_000,
    maximumAttempts: 5,
  },
  projection: { startToCloseTimeoutMs: 60_000 },
};
