// Tiny workflows that probe what a Temporal server does with timers, search
// attributes, Updates and continue-as-new (test/goal/time-skipping.test.ts).
// Deterministic workflow code: bundled by the Temporal worker.
import {
  ActivityCancellationType,
  CancellationScope,
  condition,
  continueAsNew,
  defineQuery,
  defineSignal,
  defineUpdate,
  isCancellation,
  proxyActivities,
  proxyLocalActivities,
  setCurrentDetails,
  setHandler,
  sleep,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import { ZunoStatus } from '../../../core/search-attributes.js';
import {
  councilSummary,
  type CouncilActivities,
  type CouncilResult,
  type CouncilWorkflowInput,
  type SettleCouncilCallInput,
} from '../../../core/council/contract.js';
import type { ToolActivityInput, ToolActivityResult } from '../../../core/session/tool-activity.js';
import { startCouncilChild } from '../../../workflows/council-start.js';

/** What {@link sleepWorkflow} saw: workflow time (`Date.now()` in a workflow is the server's clock) before and after. */
export interface SleepResult {
  startedAtMs: number;
  endedAtMs: number;
}

/** Sleeps `ms` of workflow time on one durable timer. */
export async function sleepWorkflow(ms: number): Promise<SleepResult> {
  const startedAtMs = Date.now();
  await sleep(ms);
  return { startedAtMs, endedAtMs: Date.now() };
}

/** Adds `n` to the probe's total; `0` ends the workflow. Negative numbers are refused by the validator. */
export const addUpdate = defineUpdate<number, [number]>('add');
/** The probe's running total. */
export const totalQuery = defineQuery<number>('total');

/**
 * An Update-driven counter: starts at `start`, upserts `ZunoStatus=running`
 * and sets its current details, adds every `add` Update (validator: n ≥ 0),
 * and ends on `add(0)` with the total after upserting `ZunoStatus=completed`.
 */
export async function counterWorkflow(start: number): Promise<number> {
  let total = start;
  let done = false;
  setHandler(
    addUpdate,
    (n) => {
      total += n;
      if (n === 0) done = true;
      return total;
    },
    {
      validator: (n) => {
        if (n < 0) throw new Error(`negative: ${n}`);
      },
    },
  );
  setHandler(totalQuery, () => total);
  upsertSearchAttributes([{ key: ZunoStatus, value: 'running' }]);
  setCurrentDetails(`counting from ${start}`);
  await condition(() => done);
  upsertSearchAttributes([{ key: ZunoStatus, value: 'completed' }]);
  return total;
}

/** What {@link continueAsNewWorkflow} returns from its last run. */
export interface ContinueAsNewResult {
  runs: number;
  /** `ZunoStatus` as the last run saw it (search attributes carried over continue-as-new). */
  statusSeen: string | undefined;
  continuedFromRunId: string | undefined;
}

/** Continues as new until it has run `runs` times, upserting `ZunoStatus=run-<n>` in each run and sleeping 1 h in between. */
export async function continueAsNewWorkflow(runs: number, run = 1): Promise<ContinueAsNewResult> {
  const statusSeen = workflowInfo().typedSearchAttributes.get(ZunoStatus);
  if (run < runs) {
    upsertSearchAttributes([{ key: ZunoStatus, value: `run-${run}` }]);
    await sleep('1 hour');
    return continueAsNew<typeof continueAsNewWorkflow>(runs, run + 1);
  }
  return { runs: run, statusSeen, continuedFromRunId: workflowInfo().continuedFromExecutionRunId };
}

/** The activity {@link raceWorkflow} races against a timer; the test's worker implements it. */
export interface ProbeActivities {
  /** Runs `ms` of real time, heartbeating. */
  busy(ms: number): Promise<void>;
}

/**
 * Races one `busy(activityMs)` activity on `activityTaskQueue` against a
 * `timerMs` timer; returns who won and the workflow time it took. With
 * `cancelLoser` a losing activity is cancelled (and awaited) before the
 * workflow returns; otherwise it is left to the server when the workflow completes.
 */
export async function raceWorkflow(
  activityTaskQueue: string,
  activityMs: number,
  timerMs: number,
  cancelLoser = false,
): Promise<{ winner: 'activity' | 'timer'; elapsedMs: number }> {
  const { busy } = proxyActivities<ProbeActivities>({
    taskQueue: activityTaskQueue,
    startToCloseTimeout: '10 minutes',
    heartbeatTimeout: '2 seconds',
    retry: { maximumAttempts: 1 },
    cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  });
  const t0 = Date.now();
  const scope = new CancellationScope();
  const activity = scope
    .run(() => busy(activityMs))
    .then(
      () => 'activity' as const,
      (err: unknown) => {
        if (isCancellation(err)) return 'cancelled' as const;
        throw err;
      },
    );
  const winner = await Promise.race([activity, sleep(timerMs).then(() => 'timer' as const)]);
  const elapsedMs = Date.now() - t0;
  if (winner === 'timer' && cancelLoser) {
    scope.cancel();
    await activity;
  }
  if (winner === 'cancelled') throw new Error('the activity was cancelled before the race ended');
  return { winner, elapsedMs };
}

/**
 * Runs the `settleCouncilCall` activity once (test/council/settle-call.test.ts):
 * what the session workflow does when a `council_run` call's Council ended.
 */
export async function settleCouncilCallWorkflow(input: SettleCouncilCallInput): Promise<ToolActivityResult> {
  const acts = proxyActivities<CouncilActivities>({
    startToCloseTimeout: 30_000,
  });
  return acts.settleCouncilCall(input);
}

/**
 * A parent that runs a Council as a session's `council_run` call would
 * (test/council/council-child.test.ts): `startCouncilChild`, then its end —
 * the result, or the typed failure's code and the result in its details.
 */
export async function councilParentWorkflow(
  input: CouncilWorkflowInput,
): Promise<{ result?: CouncilResult; code?: string }> {
  const handle = await startCouncilChild(input, councilSummary(input));
  try {
    return { result: await handle.result() };
  } catch (err) {
    const cause = (err as { cause?: { type?: string; details?: unknown[] } }).cause;
    return {
      code: cause?.type ?? 'unknown',
      result: cause?.details?.[0] as CouncilResult,
    };
  }
}

/** Cancels the local attempt of {@link localCutWorkflow} (test/session/local-cut.test.ts). */
export const cutLocalSignal = defineSignal('cutLocal');

/**
 * A local attempt of tool activity `activity` cut by a cancellation, then
 * the regular activity of the same call — what a session does when its
 * workflow run is evicted while a short read runs locally (the worker
 * cancels the run's local activities; the replayed run tries again and
 * falls back): the first attempt runs until {@link cutLocalSignal}, which
 * reaches the workflow at its next workflow task. Returns the regular
 * attempt's result (test/session/local-cut.test.ts).
 */
export async function localCutWorkflow(activity: string, input: ToolActivityInput): Promise<ToolActivityResult> {
  type Acts = Record<string, (i: ToolActivityInput) => Promise<ToolActivityResult>>;
  const scope = new CancellationScope();
  setHandler(cutLocalSignal, () => scope.cancel());
  try {
    await scope.run(() =>
      proxyLocalActivities<Acts>({
        scheduleToCloseTimeout: 120_000,
        retry: { maximumAttempts: 1 },
        cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
      })[activity]!(input),
    );
  } catch (err) {
    if (!isCancellation(err)) throw err;
  }
  return proxyActivities<Acts>({ startToCloseTimeout: 60_000, retry: { maximumAttempts: 1 } })[activity]!(input);
}

/**
 * Runs one tool activity as a regular activity, `maximumAttempts` attempts
 * 100 ms apart, and returns its result — or, when every attempt failed, the
 * last failure's type (test/mcp/tool-activity.test.ts: an MCP call's
 * `tool_mcp` on a real worker).
 */
export async function toolActivityWorkflow(
  activity: string,
  input: ToolActivityInput,
  maximumAttempts: number,
): Promise<ToolActivityResult | { failedType: string }> {
  type Acts = Record<string, (i: ToolActivityInput) => Promise<ToolActivityResult>>;
  const acts = proxyActivities<Acts>({
    startToCloseTimeout: 60_000,
    heartbeatTimeout: 10_000,
    retry: { maximumAttempts, initialInterval: 100, backoffCoefficient: 1 },
  });
  try {
    return await acts[activity]!(input);
  } catch (err) {
    const cause = (err as { cause?: { type?: string } }).cause;
    return { failedType: cause?.type ?? String(err) };
  }
}
