import { TemporalFailure, isCancellation, proxyLocalActivities } from '@temporalio/workflow';
import { ActivityCancellationType } from '@temporalio/common';
import type { PlannedToolCall } from '../core/session/tool-calls.js';
import type { ToolActivityInput, ToolActivityResult } from '../core/session/tool-activity.js';
import { LOCAL_ACTIVITY_TIMEOUT_MS, toolActivityName } from '../core/session/tool-activity.js';
import type { ToolDeclaration } from '../core/tools/types.js';
import type { LocalToolsRule } from './generation.js';

export { LOCAL_TOOLS_PATCH, LOCAL_TOOLS_V1_PATCH, type LocalToolsRule } from './generation.js';

/**
 * Whether a validated call runs first as a local activity: its tool says it
 * is short for these arguments (`runsLocally`), it is replay `Safe` and its
 * effect is `ReadOnly` (TD1, TD3: a second run, after a fallback, changes
 * nothing), its arguments travel inline (a call whose arguments are in
 * the projection is long by definition), and under v2 its batch of
 * `batchSize` calls runs at once (`batchSize` ≤ `concurrency`). Pure.
 */
export function runsLocally(
  rule: LocalToolsRule,
  decl: ToolDeclaration,
  call: PlannedToolCall,
  batch: { size: number; concurrency: number },
): boolean {
  if (rule === 'none' || (rule === 'v2' && batch.size > batch.concurrency)) return false;
  if (call.args === undefined || call.argsInProjection || !decl.runsLocally) return false;
  const effect = decl.effectOf ? decl.effectOf(call.args as never) : decl.effect;
  return decl.replay === 'Safe' && effect === 'ReadOnly' && decl.runsLocally(call.args as never);
}

/** What {@link tryLocal} came to: the tool's result, or a reason to run the regular activity instead. */
export type LocalAttempt = { kind: 'done'; value: ToolActivityResult } | { kind: 'fallback'; reason: string };

/** The local-activity proxy of one attempt: one try, at most {@link LOCAL_ACTIVITY_TIMEOUT_MS} from scheduling. */
function localProxy(summary: string) {
  return proxyLocalActivities<Record<string, (input: unknown) => Promise<unknown>>>({
    scheduleToCloseTimeout: LOCAL_ACTIVITY_TIMEOUT_MS,
    retry: { maximumAttempts: 1 },
    // TD10: an interrupt waits for the read to stop; a cut local attempt records nothing
    // (activities/session/tool-activity.ts localCut), the workflow settles the call.
    cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
    summary,
  });
}

/**
 * true for a local attempt's failure that the regular activity should
 * follow: any Temporal failure but a cancellation. A local activity's
 * failure may reach the workflow unwrapped (an ApplicationFailure or
 * TimeoutFailure, not an ActivityFailure around it).
 */
function fallsBack(err: unknown): err is TemporalFailure {
  return !isCancellation(err) && err instanceof TemporalFailure;
}

/**
 * Runs one call as a local activity (issue 13): in the worker that runs this
 * workflow task, one attempt, at most {@link LOCAL_ACTIVITY_TIMEOUT_MS}
 * from scheduling (a wait for a local-activity slot included). `input.localOn`
 * names the task queue whose worker may run it; a worker that does not
 * serve it refuses (`local_elsewhere`). Any failure but a cancellation —
 * a timeout, a refusal, an infrastructure error — comes back as `fallback`:
 * the caller then schedules the regular activity, which runs the (Safe,
 * ReadOnly) call again from the start and records over nothing (a completed
 * record stands). A cancellation (TD10 interrupt) is rethrown as it is.
 * Sessions recorded before {@link FAST_TURN_PATCH} (session-machine.ts); a
 * fast turn uses {@link localFirst}. Deterministic: only schedules and awaits.
 * @throws the cancellation of the scope it runs in.
 */
export async function tryLocal(name: string, summary: string, input: ToolActivityInput): Promise<LocalAttempt> {
  try {
    const value = (await localProxy(summary)[toolActivityName(name)]!(input)) as ToolActivityResult;
    return { kind: 'done', value };
  } catch (err) {
    if (!fallsBack(err)) throw err;
    return { kind: 'fallback', reason: (err.cause ?? err).message };
  }
}

/**
 * A fast turn's local-first run (issue 13): activity `activity` as a local
 * activity as {@link tryLocal} runs it, and `regular()` in its place when
 * the attempt fails with anything but a cancellation. The same rule with one
 * promise chain instead of three async frames — the SDK records a stack for
 * every promise a workflow creates. `input.localOn` names the task queue
 * whose worker may run it. Deterministic.
 * @throws the cancellation of the scope it runs in, or what `regular()` throws.
 */
export function localFirst<T>(
  activity: string,
  summary: string,
  input: { localOn: string },
  regular: () => Promise<T>,
): Promise<T> {
  return (localProxy(summary)[activity]!(input) as Promise<T>).then(undefined, (err: unknown) => {
    if (!fallsBack(err)) throw err;
    return regular();
  });
}
