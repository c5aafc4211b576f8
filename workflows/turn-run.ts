import { ActivityFailure, isCancellation } from '@temporalio/workflow';
import { modelStepOptions, toolActivityOptions } from '../core/activity-policy.js';
import { type CompactInput, MAX_RECOVERIES_PER_DRIVE } from '../core/compaction/contract.js';
import type { FinishSessionInput, ModelStepResult } from '../core/session/activities.js';
import type { AdmittedInput } from '../core/session/inbox.js';
import type { SessionMeta } from '../core/session/meta.js';
import type { TurnEnd, TurnOutcome } from '../core/session/outcome.js';
import type { TurnActivity } from '../core/session/state.js';
import { type ToolActivityInput, type ToolActivityResult, toolActivityName } from '../core/session/tool-activity.js';
import type { PlannedToolCall, SettledOutcome } from '../core/session/tool-calls.js';
import { requestTokens } from '../core/goal/usage.js';
import { declarationOf } from '../core/mcp/declaration.js';
import type { ToolDeclaration } from '../core/tools/types.js';
import type { BackgroundTasks } from './background.js';
import type { DelegatedCall } from './delegation.js';
import { delegationRefusal } from './delegation.js';
import { planBatches, runBatch, runBounded } from './dispatch.js';
import type { SessionGeneration } from './generation.js';
import { runsLocally } from './local-tools.js';
import { classifyModelFailure } from './model-failure.js';
import { settleForcedInterrupt, settleLostCall, settleNotRun } from './settle.js';
import { StagnationGuard } from './stagnation-guard.js';
import { compactionNeed, DriveRecoveries } from './turn-compaction.js';
import { statusLine } from './status-line.js';
import type { Raced, TurnControl } from './turn-control.js';
import type { TurnPorts, TurnWhere } from './turn-ports.js';

/** Steps per turn before the turn is ended as runaway. */
export const MAX_STEPS_PER_TURN = 200;

/** What a {@link TurnRun} reads and writes of the session it runs in. */
export interface TurnRunHost {
  readonly meta: SessionMeta;
  readonly background: Pick<BackgroundTasks, 'cancel' | 'waitFor' | 'start' | 'observedTerminal'>;
  /** The session's inbox (FIFO); steered inputs are taken from it between steps. */
  readonly inbox: AdmittedInput[];
  /**
   * The run's generation (generation.ts): `stateMachine` — a turn whose last
   * step answered while steered inputs waited takes them in one more step
   * (SE1); `fastTurn` — a call the policy decides awaits nothing before it is
   * scheduled and a batch that fits runs without lanes (issue 13: with several
   * resolutions in one activation, the order of the next commands depends on
   * the promise structure); `localReads` — which short reads run locally.
   */
  readonly generation: Pick<SessionGeneration, 'stateMachine' | 'fastTurn' | 'localReads' | 'compaction'>;
  /** Outcomes settled by the workflow, persisted by the next modelStep or finishTurn. */
  settled: SettledOutcome[];
  /** The step now running (for the state query). */
  step: number;
  /** What the turn is doing (for the state query and the interrupt receipt). */
  activity: TurnActivity;
  /** Called once the turn takes no more steered input (its last step answered). */
  stopSteering(): void;
}

/** The part of a turn's {@link TurnControl} a {@link TurnRun} reads (the interrupt) and writes (`over`). */
export type TurnFlags = Pick<TurnControl, 'interruptedAtMs' | 'interruptSource' | 'forceAfterMs' | 'over'>;

/** What a turn hands back: the typed outcome, the facts finishTurn records, what a Goal counts. */
export interface TurnResult {
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

/** The inputs of one turn: see {@link TurnRun}. */
export interface TurnStart {
  turn: number;
  /** The inputs that drive the turn (taken from the inbox by the caller). */
  first: AdmittedInput[];
  /** Ids of inputs a paused turn carried: a resumed turn (`first` empty) answers them and counts them as its own. */
  resumed?: string[];
  opts?: TurnOptions;
}

/**
 * One turn as a state object (SE1, TD5, TD10): model steps until a final
 * answer ({@link steps}); each step's tool calls dispatched one activity
 * each, ParallelSafe batches together and Exclusive calls alone
 * ({@link dispatch}); inputs admitted meanwhile steered into the next step;
 * the end settled into a {@link TurnResult} ({@link settle}). Everything
 * runs in the turn's scope (a hard interrupt cancels it; the force deadline
 * bounds the wait). Never throws for a model or tool failure: it ends with
 * a typed {@link TurnOutcome}. Every command goes through {@link TurnPorts}.
 * Deterministic.
 */
export class TurnRun {
  private readonly meta: SessionMeta;
  private readonly model: string;
  private readonly turn: number;
  private readonly opts: TurnOptions;
  /** Every input the turn answers: the resumed ones, then each step's new ones. */
  private readonly carriedInputIds: string[];
  /** Inputs the next model step carries for the first time (the first ones, then steered ones). */
  private newInputs: AdmittedInput[];
  /** Inputs the step now running carries (put back when an interrupt cuts it). */
  private stepInputs: AdmittedInput[] = [];
  /** The model step was cut by an interrupt: finishTurn drops its partial output. */
  private rollbackStep = false;
  private stepsRun = 0;
  private ended: TurnEnd | undefined;
  private readonly spent: TurnResult['spent'] = {
    usage: { tokens: 0, unmeasured: 0 },
    toolCalls: 0,
    changes: 0,
    uncertain: [],
  };
  private readonly stagnation = new StagnationGuard();
  /** CP6: the automatic compactions of this drive (this turn). */
  private readonly recoveries = new DriveRecoveries();
  /** Calls in the batch now running (issue 13: a v2 local read needs its whole batch to run at once). */
  private batchSize = 0;

  constructor(
    private readonly host: TurnRunHost,
    private readonly ctl: TurnFlags,
    private readonly ports: TurnPorts,
    start: TurnStart,
  ) {
    this.meta = host.meta;
    this.model = `${this.meta.provider.id}/${this.meta.model}`;
    this.turn = start.turn;
    this.opts = start.opts ?? {};
    this.carriedInputIds = [...(start.resumed ?? [])];
    this.newInputs = start.first;
  }

  /** Runs the turn to its end; see {@link TurnRun}. */
  async run(): Promise<TurnResult> {
    await this.ports.inScope(() => this.steps());
    return this.settle();
  }

  /**
   * The step loop. Awaits sit here only, where the turn always had them:
   * the helpers it calls issue their commands synchronously, so the order
   * of the commands of one activation is the recorded one.
   */
  private async steps(): Promise<void> {
    for (this.host.step = 0; ; this.host.step++) {
      if (this.endsBeforeStep()) return;
      const result = await this.modelStep();
      if (!result) return;
      if (result.toolCalls.length === 0) {
        if (this.answered(result)) return;
        continue;
      }
      for (const batch of this.batchesOf(result)) {
        if (this.pausedByCall(batch)) continue;
        this.batchSize = batch.length;
        if (!this.host.generation.fastTurn) {
          await runBounded(batch, this.meta.toolConcurrency, (call) => this.dispatchNoted(call));
          continue;
        }
        const before = this.host.settled.length;
        try {
          await runBatch(batch, this.meta.toolConcurrency, (call) => this.dispatch(call));
        } finally {
          this.noteSettled(before);
        }
      }
      // Issue 33: a call paused the turn (its workspace is missing): the model gets no further step.
      if (this.ended) return;
      if (this.afterStep(result)) return;
    }
  }

  /**
   * Issue 33: once a call of this step paused the turn (its tool activity
   * answered with `pause`: the workspace is missing on the host), the
   * step's later batches do not run: each of their calls is settled not run.
   * True when it skipped `batch`. Only a `pause` result sets `ended` while
   * a step's calls run, and no history recorded before it carries one, so
   * older histories replay the loop unchanged.
   */
  private pausedByCall(batch: PlannedToolCall[]): boolean {
    if (this.ended?.kind !== 'paused') return false;
    for (const call of batch) if (!call.blocked) this.host.settled.push(settleNotRun(call, Date.now()));
    return true;
  }

  private get interrupted(): boolean {
    return this.ctl.interruptedAtMs !== null;
  }

  private where(): TurnWhere {
    return { turn: this.turn, step: this.host.step };
  }

  private endInterrupted(): void {
    this.ended = { kind: 'interrupted', ...(this.ctl.interruptSource ? { source: this.ctl.interruptSource } : {}) };
  }

  /** Ends the turn before a step when it was interrupted or ran out of steps; true when it ended. */
  private endsBeforeStep(): boolean {
    if (this.interrupted) this.endInterrupted();
    else if (this.host.step >= MAX_STEPS_PER_TURN) {
      const message = `the turn exceeded ${MAX_STEPS_PER_TURN} model steps`;
      this.ended = { kind: 'limit', limit: 'turn_step_limit', message };
    }
    return this.ended !== undefined;
  }

  /**
   * Runs this step's model step; when it asks for a compaction (CP6: over
   * the threshold, nothing sent; CP8: the provider's context-limit error),
   * compacts and runs the same step again, at most
   * MAX_RECOVERIES_PER_DRIVE times in this turn. Returns the step's result,
   * or null when the turn ends with it.
   */
  private async modelStep(): Promise<ModelStepResult | null> {
    for (;;) {
      const outcome = await this.ports.race(this.startStep());
      const need = this.interrupted ? null : compactionNeed(outcome);
      if (!need || !this.host.generation.compaction) return this.takeStep(outcome);
      this.unstartStep();
      const input = this.recoveries.next(this.meta, this.where(), need, this.ports.uid());
      if ('kind' in input) {
        this.ended = input;
        return null;
      }
      if (!(await this.compact(input))) return null;
    }
  }

  /** A step that asked for a compaction sent nothing: its inputs are carried by the step run again. */
  private unstartStep(): void {
    this.carriedInputIds.splice(this.carriedInputIds.length - this.newInputs.length);
    this.stepsRun -= 1;
  }

  /** Runs one compaction (the Temporal UI says `compacting (n of 5)`); false when the turn ends with it. */
  private async compact(input: CompactInput): Promise<boolean> {
    this.host.activity = 'compacting';
    this.ports.details(statusLine.compacting(this.turn, input.recovery, MAX_RECOVERIES_PER_DRIVE, Date.now()));
    const summary = `turn ${this.turn + 1} · compacting (${input.recovery} of ${MAX_RECOVERIES_PER_DRIVE}) · ${input.trigger}`;
    const options = modelStepOptions(this.meta.provider.retry, this.meta.activityDefaults, summary);
    const outcome = await this.ports.race(this.ports.compactSession(input, options));
    if (outcome.kind === 'done') {
      // The summary request is spent by this turn too (GL10 budgets); a result read back was never counted.
      this.count(outcome.value.usage);
      return true;
    }
    if (this.interrupted) this.endInterrupted();
    else if (outcome.kind === 'failed') {
      this.ended = classifyModelFailure(outcome.error, this.meta.activityDefaults.model.startToCloseTimeoutMs);
    }
    return false;
  }

  /** Schedules this step's `modelStep` with the inputs it carries for the first time and the settled outcomes. */
  private startStep(): Promise<ModelStepResult> {
    const { meta, turn, opts } = this;
    const step = this.host.step;
    this.carriedInputIds.push(...this.newInputs.map((i) => i.inputId));
    this.stepInputs = this.newInputs;
    this.host.activity = 'model';
    this.ports.details(statusLine.model(turn, step, this.model, Date.now()));
    const summary = `turn ${turn + 1} · step ${step + 1} · model ${this.model}`;
    const options = modelStepOptions(meta.provider.retry, meta.activityDefaults, summary);
    this.stepsRun += 1;
    const input = {
      meta,
      turn,
      step,
      newInputs: this.newInputs,
      settled: this.host.settled,
      ...(opts.continuation ? { continuation: opts.continuation } : {}),
      ...(opts.toolsDisabled ? { toolsDisabled: true } : {}),
      mayCompact: true,
    };
    return this.ports.modelStep(input, options);
  }

  /** How the model step ended: its result, or null when the turn ends with it (cut by an interrupt, or failed). */
  private takeStep(outcome: Raced<ModelStepResult>): ModelStepResult | null {
    this.newInputs = [];
    if (outcome.kind !== 'done' && this.interrupted) {
      // The model step was cut: its partial assistant output goes, its inputs stay.
      this.endInterrupted();
      this.rollbackStep = true;
      return null;
    }
    if (outcome.kind === 'forced') throw new Error('unreachable: forced without an interrupt');
    if (outcome.kind === 'failed') {
      this.ended = classifyModelFailure(outcome.error, this.meta.activityDefaults.model.startToCloseTimeoutMs);
      return null;
    }
    this.count(outcome.value.usage);
    this.host.settled = [];
    return outcome.value;
  }

  /** Adds one provider request's usage to what the turn spent (`unmeasured` when it reported none). */
  private count(usage: ModelStepResult['usage']): void {
    const tokens = requestTokens(usage);
    if (tokens === null) this.spent.usage.unmeasured += 1;
    else this.spent.usage.tokens += tokens;
  }

  /** The step answered with no tool call: the turn ends, unless steered inputs wait (SE1); true when it ended. */
  private answered(result: ModelStepResult): boolean {
    if (this.interrupted) {
      this.endInterrupted();
      return true;
    }
    if (this.host.generation.stateMachine && this.host.inbox.length > 0) {
      // SE1: inputs steered while the last step ran are taken before the turn ends.
      this.newInputs = this.host.inbox.splice(0, this.host.inbox.length);
      return false;
    }
    this.host.stopSteering();
    this.ended = { kind: 'final_answer', textLength: result.textLength };
    return true;
  }

  /** The step's dispatch plan (TD5): none when every call is blocked; else the status shows the calls. */
  private batchesOf(result: ModelStepResult): PlannedToolCall[][] {
    const runnable = result.toolCalls.filter((c) => !c.blocked);
    if (runnable.length === 0) return [];
    this.host.activity = 'tools';
    const shown = runnable.map((c) => ({ name: c.name, summary: summaryOf(c) }));
    this.ports.details(statusLine.tools(this.turn, shown, Date.now()));
    const byName = new Map(result.toolCalls.map((c) => [c.name, declarationOf(c)]));
    return planBatches(result.toolCalls, (n) => byName.get(n)?.concurrency ?? 'Exclusive');
  }

  /** After the step's calls: GP22 stagnation ends the turn (true); else inputs steered meanwhile join the next step. */
  private afterStep(result: ModelStepResult): boolean {
    this.ended = this.stagnation.afterStep(result.toolCalls, this.interrupted);
    if (this.ended) return true;
    // Steering (SE1): inputs admitted while this step ran join the next request.
    this.newInputs = this.host.inbox.splice(0, this.host.inbox.length);
    if (this.newInputs.length > 0) this.stagnation.reset();
    return false;
  }

  /** Notes the unknown outcomes among the settlements from index `from` before a modelStep or finishTurn gets them. */
  private noteSettled(from: number): void {
    for (const o of this.host.settled.slice(from))
      if (o.outcome === 'uncertain') this.spent.uncertain.push({ callId: o.callId, tool: o.tool, cause: o.cause });
  }

  /** {@link dispatch} of an older generation's lane: the call's settlements are noted as it ends. */
  private async dispatchNoted(call: PlannedToolCall): Promise<void> {
    const before = this.host.settled.length;
    try {
      await this.dispatch(call);
    } finally {
      this.noteSettled(before);
    }
  }

  /** Counts a call whose own report said its outcome is unknown (GL33). */
  private noteReportedUncertain(call: PlannedToolCall): void {
    this.spent.uncertain.push({ callId: call.callId, tool: call.name, cause: 'reported_uncertain' });
  }

  /** Settles `call` as not run (TD10) when the turn was interrupted; true when it did. */
  private notRunWhenInterrupted(call: PlannedToolCall): boolean {
    if (this.interrupted) this.host.settled.push(settleNotRun(call, Date.now()));
    return this.interrupted;
  }

  /**
   * One call: the permission gate (TD2/TD7/PM6) decides before anything is
   * scheduled (an `ask` waits here for a person); then a delegation's child
   * workflow or the tool's activity runs, raced against the force deadline,
   * and its outcome is settled.
   */
  private async dispatch(call: PlannedToolCall): Promise<void> {
    if (this.notRunWhenInterrupted(call)) return;
    const gate =
      (this.host.generation.fastTurn ? this.ports.decideCall(call) : null) ??
      (await this.ports.admitCall(call, this.where(), () => this.interrupted));
    if (!gate.run) {
      this.host.settled.push(gate.settled);
      return;
    }
    if (this.notRunWhenInterrupted(call)) return;
    const decl = declarationOf(call)!;
    if (decl.delegation) {
      const delegated = this.startDelegation(call, decl.delegation);
      if (delegated) this.settleDelegation(call, decl, await this.ports.race(delegated));
      return;
    }
    const waits = this.scheduleEffect(call, decl);
    if (waits) {
      // DC15 `job wait`: the workflow waits on a timer until the job settles; the call then reads it.
      try {
        await this.host.background.waitFor(waits.taskID, waits.timeoutMs);
      } catch (err) {
        if (!isCancellation(err)) throw err;
        this.host.settled.push(settleNotRun(call, Date.now()));
        return;
      }
    }
    this.settleTool(call, decl, await this.ports.race(this.startTool(call, decl)));
  }

  /** Issue 12: a delegation is a child workflow this workflow starts, not an activity; null when it is refused. */
  private startDelegation(call: PlannedToolCall, kind: 'task' | 'council'): Promise<DelegatedCall> | null {
    const refused = delegationRefusal(this.meta, call);
    if (refused) {
      this.host.settled.push(refused);
      return null;
    }
    this.spent.toolCalls += 1;
    return this.ports.delegate(kind, call, this.where());
  }

  private settleDelegation(call: PlannedToolCall, decl: ToolDeclaration, raced: Raced<DelegatedCall>): void {
    if (raced.kind === 'forced')
      this.host.settled.push(settleForcedInterrupt(call, decl, Date.now(), this.ctl.forceAfterMs));
    else if (raced.kind === 'failed') throw raced.error;
    else if (raced.value.kind === 'settled') this.host.settled.push(raced.value.settled);
    else if (raced.value.value.outcome === 'uncertain') this.noteReportedUncertain(call);
  }

  /** The workflow-side effect of scheduling `call` (a background task cancelled now); the job it waits for, if any. */
  private scheduleEffect(
    call: PlannedToolCall,
    decl: ToolDeclaration,
  ): { taskID: string; timeoutMs: number } | undefined {
    const effect = call.args !== undefined ? decl.onSchedule?.(call.args as never) : undefined;
    if (effect?.cancelsBackgroundTask) this.host.background.cancel(effect.cancelsBackgroundTask);
    return effect?.waitsForBackgroundTask;
  }

  /** Schedules the call's tool activity; a short read first in this worker (issue 13), falling back to the regular one. */
  private startTool(call: PlannedToolCall, decl: ToolDeclaration): Promise<ToolActivityResult> {
    const { meta } = this;
    const summary = summaryOf(call).slice(0, 200);
    const options = toolActivityOptions(decl, meta.activityDefaults, summary);
    this.spent.toolCalls += 1;
    const input: ToolActivityInput = {
      sessionId: meta.sessionId,
      workspace: meta.workspace,
      turn: this.turn,
      step: this.host.step,
      call,
      ...(meta.goal ? { goalId: meta.goal.goalId } : {}),
      ...(meta.sandbox ? { sandbox: meta.sandbox } : {}),
      ...(meta.mcp ? { mcp: meta.mcp } : {}),
      // tool_search hides what a rule denies (MC1); webfetch matches each redirect hop against the rules.
      ...(meta.permission && (meta.mcp || call.name === 'webfetch') ? { permission: meta.permission } : {}),
      ...(meta.network ? { network: meta.network } : {}),
      ...(meta.route ? { host: meta.route.host } : {}),
    };
    const activity = toolActivityName(call.name, call.mcp !== undefined);
    const regular = (): Promise<ToolActivityResult> => this.ports.toolActivity(activity, options, input);
    const batch = { size: this.batchSize, concurrency: meta.toolConcurrency };
    if (!runsLocally(this.host.generation.localReads, decl, call, batch)) return regular();
    const local = { ...input, localOn: meta.route?.taskQueue ?? this.ports.taskQueue() };
    if (this.host.generation.fastTurn) return this.ports.localFirst(activity, summary, local, regular);
    return this.localThenRegular(call, summary, local, regular);
  }

  /** An older generation's local attempt: anything but a result runs the regular activity. */
  private async localThenRegular(
    call: PlannedToolCall,
    summary: string,
    local: ToolActivityInput & { localOn: string },
    regular: () => Promise<ToolActivityResult>,
  ): Promise<ToolActivityResult> {
    const attempt = await this.ports.tryLocal(call.name, summary, local);
    return attempt.kind === 'done' ? attempt.value : regular();
  }

  /** Records how a tool call ended: its result's facts, or a settlement of a forced, lost or cancelled call. */
  private settleTool(call: PlannedToolCall, decl: ToolDeclaration, outcome: Raced<ToolActivityResult>): void {
    if (outcome.kind === 'done') {
      const value = outcome.value;
      this.stagnation.record(call, value);
      if (value.outcome === 'uncertain') this.noteReportedUncertain(call);
      if (value.outcome === 'ok' && decl.effect !== 'ReadOnly') this.spent.changes += 1;
      const bg = value.background;
      if (bg?.started && value.outcome === 'ok' && !value.late) this.host.background.start(call, bg.taskID);
      if (bg?.terminal) this.host.background.observedTerminal(bg.taskID);
      // Issue 33: the call could not run where its workspace should be: the turn pauses for a person.
      if (value.pause && !this.ended) this.ended = { kind: 'paused', ...value.pause };
    } else if (outcome.kind === 'forced') {
      this.host.settled.push(settleForcedInterrupt(call, decl, Date.now(), this.ctl.forceAfterMs));
    } else {
      const err = outcome.error;
      if (err instanceof ActivityFailure) this.host.settled.push(settleLostCall(call, decl, err, Date.now()));
      else if (isCancellation(err)) this.host.settled.push(settleNotRun(call, Date.now()));
      else throw err;
    }
  }

  /**
   * The turn is over: steered inputs it never sent go back to the inbox's
   * head (their record says pending, SE1), and the outcome, the facts
   * finishTurn records and what the turn spent are handed back.
   */
  private settle(): TurnResult {
    this.ctl.over = true;
    this.host.stopSteering();
    if (this.newInputs.length > 0) {
      const requeue = this.host.generation.stateMachine;
      this.host.inbox.unshift(
        ...this.newInputs.map((i) =>
          requeue && i.admission === 'steered' ? { ...i, admission: 'pending' as const } : i,
        ),
      );
    }
    const inputIds = this.carriedInputIds;
    const outcome: TurnOutcome = { turn: this.turn, steps: this.stepsRun, inputIds, ...this.ended! };
    const error = errorOf(outcome);
    const { settled } = this.host;
    const finish: TurnResult['finish'] = {
      status: statusOf(outcome),
      step: this.host.step,
      inputIds,
      ...(error ? { error } : {}),
      ...(settled.length > 0 ? { settled } : {}),
      ...(this.rollbackStep ? { rollbackStep: true, stepInputs: this.stepInputs } : {}),
    };
    return { outcome, spent: this.spent, finish };
  }
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
  const decl = declarationOf(call);
  return decl && call.args !== undefined ? decl.summarize(call.args as never) : call.name;
}
