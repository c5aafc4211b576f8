/** TD10 hard-interrupt timing: how long the workflow waits before it records an unreported call forced + uncertain. */

/** TD10 cooperative window a tool gets after the cancellation reaches it, in ms. */
export const INTERRUPT_COOPERATIVE_WINDOW_MS = 2_000;

/**
 * Longest delay between the interrupt update and the cancellation reaching a
 * running activity, in ms: the worker delivers heartbeats at least every
 * second (worker/worker.ts `maxHeartbeatThrottleInterval`) and the cancel
 * request rides on the next heartbeat's response.
 */
export const INTERRUPT_DELIVERY_MS = 1_000;

/** Allowance for a tool that settled inside its window to write its own report, in ms. */
export const INTERRUPT_REPORT_MS = 500;

/**
 * TD10 as Zuno measures it. The contract's window is 2 s *after the
 * interrupt reaches the call*: the tool activity measures that itself from
 * the moment its cancellation signal fires, and labels its report
 * `cancellation.kind: cooperative` only when it settled inside those 2 s
 * (otherwise `forced`, outcome uncertain). The workflow cannot observe that
 * moment, so it stops waiting {@link INTERRUPT_DELIVERY_MS} +
 * {@link INTERRUPT_COOPERATIVE_WINDOW_MS} + {@link INTERRUPT_REPORT_MS} =
 * 3.5 s after the interrupt and records a call that has not reported forced
 * + uncertain: a call that settled inside its own window always reports
 * before then. Sessions recorded before this rule used 5 s
 * ({@link INTERRUPT_FORCE_AFTER_V1_MS}).
 */
export const INTERRUPT_FORCE_AFTER_MS = INTERRUPT_DELIVERY_MS + INTERRUPT_COOPERATIVE_WINDOW_MS + INTERRUPT_REPORT_MS;

/** The force deadline of sessions recorded before TD10 was measured from delivery, in ms. */
export const INTERRUPT_FORCE_AFTER_V1_MS = 5_000;
