import {
  ActivityFailure,
  isCancellation,
  proxyActivities,
  setCurrentDetails,
  workflowInfo,
} from '@temporalio/workflow';
import { modelStepOptions, toolActivityOptions } from '../core/activity-policy.js';
import type { AdmittedInput } from '../core/session/inbox.js';
import type { FinishSessionInput, SessionActivities } from '../core/session/activities.js';
import type { PlannedToolCall, SettledOutcome } from '../core/session/tool-calls.js';
import type { SessionMeta } from '../core/session/meta.js';
import { type ToolActivityInput, type ToolActivityResult, toolActivityName } from '../core/session/tool-activity.js';
import type { TurnActivity } from '../core/session/state.js';
import type { TurnEnd, TurnOutcome } from '../core/session/outcome.js';
import { requestTokens } from '../core/goal/usage.js';
import { toolDeclarations } from '../core/tools/registry.js';
import type { BackgroundTasks } from './background.js';
import { planBatches, runBatch, runBounded } from './dispatch.js';
import { onRoute } from './route.js';
import { type LocalToolsRule, localFirst, runsLocally, tryLocal } from './local-tools.js';
import { admitCall, decideCall, type GateHost } from './permission-gate.js';
import { delegationRefusal, runTask } from './delegation.js';
import { runCouncilCall } from './council-call.js';
import { classifyModelFailure } from './model-failure.js';
import { settleForcedInterrupt, settleLostCall, settleNotRun } from './settle.js';
import { StagnationGuard } from './stagnation-guard.js';
import { statusLine } from './status-line.js';
import { awaitOrForced, raceForced, type Raced, type TurnControl } from './turn-control.js';

/** Steps per turn before the turn is ended as runaway. */
export const MAX_STEPS_PER_TURN = 200;

/** What a turn needs from the session it runs in. */
export interface TurnHost extends GateHost {
  readonly meta: SessionMeta;
  readonly background: BackgroundTasks;
  /** The session's inbox (FIFO); steered inputs are taken from it between steps. */
  readonly inbox: AdmittedInput[];
  /**
   * true for sessions started by this code (`patched`): a turn whose last
   * step answered while steered inputs waited takes them in one more step
   * instead of ending (so a `steered` receipt is true, SE1).
   */
  readonly takeSteeringAtEnd: boolean;
  /** Whether and when short reads run first as local activities (issue 13; `patched`, local-tools.ts). */
  readonly localTools: LocalToolsRule;
  /**
   * true for sessions started by this code (`FAST_TURN_PATCH`, session-machine.ts):
   * a call the permission policy decides awaits nothing before it is
   * scheduled, a batch that fits runs without lanes, local-first and the
   * force race are single promise chains (issue 13). Older runs keep the
   * promise structure they were recorded with: with several resolutions in
   * one activation, the order of the next commands depends on it.
   */
  readonly fastTurn: boolean;
  /** Outcomes settled by the workflow, persisted by the next modelStep or finishTurn. */
  settled: SettledOutcome[];
  /** The step now running (for the state query). */
  step: number;
  /** What the turn is doing (for the state query and the interrupt receipt). */
  activity: TurnActivity;
  /** Called once the turn takes no more steered input (its last step answered). */
  stopSteering(): void;
}

/** What {@link runTurn} hands back: the typed outcome, the facts finishTurn records, what a Goal counts. */
export interface TurnRun {
  outcome: TurnOutcome;
  finish: Omit<FinishSessionInput, 'sessionId' | 'turn' | 'background'>;
  /** GL10–GL18, GL33: the turn's usage (PR11 bucket sums; `unmeasured` requests reported none), calls scheduled, unknown outcomes. */
  spent: {
    usage: { tokens: number; unmeasured: number };
    toolCalls: number;
    /** Calls of a tool that is not ReadOnly that succeeded (GL23: a turn that changed something made progress). */
    changes: number;
    uncertain: { callId: string; tool: string; cause: string }[];
  };
}

/** How a turn is driven beyond its inputs. */
export interface TurnOptions {
  /** A Goal continuation (GL19): no input; the request carries the Goal as runtime context. */
  continuation?: { goalId: string; revision: number };
  /** GL36: every tool disabled (a discussion while the Goal is paused on an unknown outcome). */
  toolsDisabled?: boolean;
}

/**
 * Runs one turn (SE1, TD5, TD10): model steps until a final answer, each
 * step's tool calls dispatched as one activity each (ParallelSafe batches,
 * Exclusive barriers), inputs admitted meanwhile steered into the next
 * step. Every activity runs in `ctl.scope`; a hard interrupt cancels it and
 * the force deadline bounds the wait. Never throws for a model or tool
 * failure: it ends with a typed {@link TurnOutcome}.
 * @param first the inputs that drive the turn (taken from the inbox by the caller).
 * @param resumed ids of inputs a paused turn carried: a resumed turn (`first`
 *   empty) answers them, and its outcome and finishTurn count them as its own.
 */
export async function runTurn(
  host: TurnHost,
  ctl: TurnControl,
  turn: number,
  first: AdmittedInput[],
  resumed: string[] = [],
  opts: TurnOptions = {},
): Promise<TurnRun> {
  const { meta } = host;
  const carriedInputIds: string[] = [...resumed];
  let newInputs = first;
  let stepInputs: AdmittedInput[] = [];
  let rollbackStep = false;
  let stepsRun = 0;
  let ended: TurnEnd | undefined;
  const model = `${meta.provider.id}/${meta.model}`;
  const spent: TurnRun['spent'] = { usage: { tokens: 0, unmeasured: 0 }, toolCalls: 0, changes: 0, uncertain: [] };
  /** Notes the unknown outcomes among the settlements before they are handed to a modelStep or finishTurn. */
  const noteSettled = (from: number): void => {
    for (const o of host.settled.slice(from))
      if (o.outcome === 'uncertain') spent.uncertain.push({ callId: o.callId, tool: o.tool, cause: o.cause });
  };
  const stagnation = new StagnationGuard();
  /** Calls in the batch now running (issue 13: a v2 local read needs its whole batch to run at once). */
  let batchSize = 0;
  const race: <T>(ctl: TurnControl, running: Promise<T>) => Promise<Raced<T>> = host.fastTurn
    ? awaitOrForced
    : raceForced;

  const runTool = async (call: PlannedToolCall): Promise<void> => {
    const before = host.settled.length;
    try {
      await runToolCall(call);
    } finally {
      noteSettled(before);
    }
  };
  const runToolCall = async (call: PlannedToolCall): Promise<void> => {
    if (ctl.interruptedAtMs !== null) {
      host.settled.push(settleNotRun(call, Date.now()));
      return;
    }
    // TD2/TD7/PM6: the permission gate decides before anything is scheduled; an `ask` waits here for a person.
    const gate =
      (host.fastTurn ? decideCall(host, call) : null) ??
      (await admitCall(host, call, { turn, step: host.step }, () => ctl.interruptedAtMs !== null));
    if (!gate.run) {
      host.settled.push(gate.settled);
      return;
    }
    if (ctl.interruptedAtMs !== null) {
      host.settled.push(settleNotRun(call, Date.now()));
      return;
    }
    const decl = toolDeclarations[call.name]!;
    if (decl.delegation) {
      // Issue 12: a delegation is a child workflow this workflow starts, not an activity.
      const refused = delegationRefusal(meta, call);
      if (refused) {
        host.settled.push(refused);
        return;
      }
      spent.toolCalls += 1;
      const where = { turn, step: host.step };
      const delegated = decl.delegation === 'task' ? runTask(host, call, where) : runCouncilCall(host, call, where);
      const raced = await race(ctl, delegated);
      if (raced.kind === 'forced') host.settled.push(settleForcedInterrupt(call, decl, Date.now(), ctl.forceAfterMs));
      else if (raced.kind === 'failed') throw raced.error;
      else if (raced.value.kind === 'settled') host.settled.push(raced.value.settled);
      else if (raced.value.value.outcome === 'uncertain')
        spent.uncertain.push({ callId: call.callId, tool: call.name, cause: 'reported_uncertain' });
      return;
    }
    const effect = call.args !== undefined ? decl.onSchedule?.(call.args as never) : undefined;
    if (effect?.cancelsBackgroundTask) host.background.cancel(effect.cancelsBackgroundTask);
    if (effect?.waitsForBackgroundTask) {
      // DC15 `job wait`: the workflow waits on a timer until the job settles; the call then reads it.
      const { taskID, timeoutMs } = effect.waitsForBackgroundTask;
      try {
        await host.background.waitFor(taskID, timeoutMs);
      } catch (err) {
        if (!isCancellation(err)) throw err;
        host.settled.push(settleNotRun(call, Date.now()));
        return;
      }
    }
    const summary = summaryOf(call).slice(0, 200);
    const options = toolActivityOptions(decl, meta.activityDefaults, summary);
    spent.toolCalls += 1;
    const input: ToolActivityInput = {
      sessionId: meta.sessionId,
      workspace: meta.workspace,
      turn,
      step: host.step,
      call,
      ...(meta.goal ? { goalId: meta.goal.goalId } : {}),
      ...(meta.sandbox ? { sandbox: meta.sandbox } : {}),
    };
    const regular = (): Promise<ToolActivityResult> =>
      onRoute(host, (o) =>
        proxyActivities<Record<string, (i: ToolActivityInput) => Promise<ToolActivityResult>>>({ ...options, ...o })[
          toolActivityName(call.name)
        ]!(input),
      );
    // Issue 13: a short read runs in this worker first; anything but a result falls back to the regular activity.
    const localOn = () => meta.route?.taskQueue ?? workflowInfo().taskQueue;
    const local = host.fastTurn
      ? () => localFirst(toolActivityName(call.name), summary, { ...input, localOn: localOn() }, regular)
      : async (): Promise<ToolActivityResult> => {
          const attempt = await tryLocal(call.name, summary, { ...input, localOn: localOn() });
          return attempt.kind === 'done' ? attempt.value : regular();
        };
    const batch = { size: batchSize, concurrency: meta.toolConcurrency };
    const outcome = await race(ctl, runsLocally(host.localTools, decl, call, batch) ? local() : regular());
    if (outcome.kind === 'done') {
      stagnation.record(call, outcome.value);
      if (outcome.value.outcome === 'uncertain')
        spent.uncertain.push({ callId: call.callId, tool: call.name, cause: 'reported_uncertain' });
      if (outcome.value.outcome === 'ok' && decl.effect !== 'ReadOnly') spent.changes += 1;
      const bg = outcome.value.background;
      if (bg?.started && outcome.value.outcome === 'ok' && !outcome.value.late) host.background.start(call, bg.taskID);
      if (bg?.terminal) host.background.observedTerminal(bg.taskID);
    } else if (outcome.kind === 'forced') {
      host.settled.push(settleForcedInterrupt(call, decl, Date.now(), ctl.forceAfterMs));
    } else {
      const err = outcome.error;
      if (err instanceof ActivityFailure) host.settled.push(settleLostCall(call, decl, err, Date.now()));
      else if (isCancellation(err)) host.settled.push(settleNotRun(call, Date.now()));
      else throw err;
    }
  };

  await ctl.scope.run(async () => {
    for (host.step = 0; ; host.step++) {
      const step = host.step;
      if (ctl.interruptedAtMs !== null) {
        ended = { kind: 'interrupted', ...(ctl.interruptSource ? { source: ctl.interruptSource } : {}) };
        return;
      }
      if (step >= MAX_STEPS_PER_TURN) {
        ended = {
          kind: 'limit',
          limit: 'turn_step_limit',
          message: `the turn exceeded ${MAX_STEPS_PER_TURN} model steps`,
        };
        return;
      }
      carriedInputIds.push(...newInputs.map((i) => i.inputId));
      stepInputs = newInputs;
      host.activity = 'model';
      setCurrentDetails(statusLine.model(turn, step, model, Date.now()));
      const options = modelStepOptions(
        meta.provider.retry,
        meta.activityDefaults,
        `turn ${turn + 1} · step ${step + 1} · model ${model}`,
      );
      stepsRun += 1;
      const stepInput = {
        meta,
        turn,
        step,
        newInputs,
        settled: host.settled,
        ...(opts.continuation ? { continuation: opts.continuation } : {}),
        ...(opts.toolsDisabled ? { toolsDisabled: true } : {}),
      };
      const outcome = await race(
        ctl,
        onRoute(host, (o) => proxyActivities<SessionActivities>({ ...options, ...o }).modelStep(stepInput)),
      );
      newInputs = [];
      if (outcome.kind !== 'done' && ctl.interruptedAtMs !== null) {
        // The model step was cut: its partial assistant output goes, its inputs stay.
        ended = { kind: 'interrupted', ...(ctl.interruptSource ? { source: ctl.interruptSource } : {}) };
        rollbackStep = true;
        return;
      }
      if (outcome.kind === 'forced') throw new Error('unreachable: forced without an interrupt');
      if (outcome.kind === 'failed') {
        ended = classifyModelFailure(outcome.error, meta.activityDefaults.model.startToCloseTimeoutMs);
        return;
      }
      const result = outcome.value;
      const tokens = requestTokens(result.usage);
      if (tokens === null) spent.usage.unmeasured += 1;
      else spent.usage.tokens += tokens;
      host.settled = [];
      if (result.toolCalls.length === 0) {
        if (ctl.interruptedAtMs !== null) {
          ended = { kind: 'interrupted', ...(ctl.interruptSource ? { source: ctl.interruptSource } : {}) };
          return;
        }
        if (host.takeSteeringAtEnd && host.inbox.length > 0) {
          // SE1: inputs steered while the last step ran are taken before the turn ends.
          newInputs = host.inbox.splice(0, host.inbox.length);
          continue;
        }
        host.stopSteering();
        ended = { kind: 'final_answer', textLength: result.textLength };
        return;
      }
      const runnable = result.toolCalls.filter((c) => !c.blocked);
      if (runnable.length > 0) {
        host.activity = 'tools';
        setCurrentDetails(
          statusLine.tools(
            turn,
            runnable.map((c) => ({ name: c.name, summary: summaryOf(c) })),
            Date.now(),
          ),
        );
        for (const batch of planBatches(result.toolCalls, (n) => toolDeclarations[n]?.concurrency ?? 'Exclusive')) {
          batchSize = batch.length;
          if (!host.fastTurn) {
            await runBounded(batch, meta.toolConcurrency, runTool);
            continue;
          }
          const before = host.settled.length;
          try {
            await runBatch(batch, meta.toolConcurrency, runToolCall);
          } finally {
            noteSettled(before);
          }
        }
      }
      ended = stagnation.afterStep(result.toolCalls, ctl.interruptedAtMs !== null);
      if (ended) return; // GP22: the same work-state read a third time in a row.
      // Steering (SE1): inputs admitted while this step ran join the next request.
      newInputs = host.inbox.splice(0, host.inbox.length);
      if (newInputs.length > 0) stagnation.reset();
    }
  });
  ctl.over = true;
  host.stopSteering();
  if (newInputs.length > 0) {
    // Steered inputs the interrupted turn never sent drive a later turn: their record says pending (SE1).
    host.inbox.unshift(
      ...newInputs.map((i) =>
        host.takeSteeringAtEnd && i.admission === 'steered' ? { ...i, admission: 'pending' as const } : i,
      ),
    );
  }
  const outcome: TurnOutcome = { turn, steps: stepsRun, inputIds: carriedInputIds, ...ended! };
  const error = errorOf(outcome);
  return {
    outcome,
    spent,
    finish: {
      status: statusOf(outcome),
      step: host.step,
      inputIds: carriedInputIds,
      ...(error ? { error } : {}),
      ...(host.settled.length > 0 ? { settled: host.settled } : {}),
      ...(rollbackStep ? { rollbackStep, stepInputs } : {}),
    },
  };
}

/** The session status a turn outcome leaves (SessionResult / finishTurn `status`). */
export function statusOf(o: TurnOutcome): FinishSessionInput['status'] {
  switch (o.kind) {
    case 'final_answer':
      return 'completed';
    case 'limit':
      return 'failed';
    default:
      return o.kind;
  }
}

/** The typed error of a turn outcome that is not an answer or an interrupt. */
export function errorOf(o: TurnOutcome): { code: string; message: string } | undefined {
  switch (o.kind) {
    case 'failed':
    case 'blocked':
      return { code: o.code, message: o.message };
    case 'paused':
      return { code: o.reason, message: o.message };
    case 'limit':
      return { code: o.limit, message: o.message };
    default:
      return undefined;
  }
}

/** The call's one-line summary for the Temporal UI: the one modelStep computed, else the declaration's. */
function summaryOf(call: PlannedToolCall): string {
  if (call.summary !== undefined) return call.summary;
  const decl = toolDeclarations[call.name];
  return decl && call.args !== undefined ? decl.summarize(call.args as never) : call.name;
}
