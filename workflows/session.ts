import {
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  allHandlersFinished,
  condition,
  isCancellation,
  TimeoutFailure,
  continueAsNew,
  defineQuery,
  defineUpdate,
  proxyActivities,
  setHandler,
  sleep,
  workflowInfo,
} from '@temporalio/workflow';
import { modelStepOptions, toolActivityOptions } from '../core/activity-policy.js';
import {
  type AdmissionReceipt,
  BLOCKING_FAILURES,
  PAUSING_FAILURES,
  type AdmittedInput,
  type CarriedState,
  INTERRUPT_FORCE_AFTER_MS,
  INTERRUPT_UPDATE,
  type InterruptReceipt,
  type InterruptRequest,
  type PlannedToolCall,
  type SessionActivities,
  type SessionResult,
  type SessionState,
  type SessionWorkflowInput,
  type SettledOutcome,
  STATE_QUERY,
  SUBMIT_INPUT_UPDATE,
  type SubmitInputRequest,
  type ToolActivityInput,
  type ToolActivityResult,
  toolActivityName,
} from '../core/session-contract.js';
import { toolDeclarations } from '../core/tools/registry.js';
import { BackgroundTasks } from './background.js';
import { planBatches, runBounded } from './dispatch.js';
import { settleForcedInterrupt, settleLostCall, settleNotRun } from './settle.js';

/** Update: admit one input to the session inbox; returns its admission receipt (SE1). */
export const submitInputUpdate = defineUpdate<AdmissionReceipt, [SubmitInputRequest]>(SUBMIT_INPUT_UPDATE);
/** Update: hard-interrupt the running turn (TD10); returns whether there was one. */
export const interruptUpdate = defineUpdate<InterruptReceipt, [InterruptRequest]>(INTERRUPT_UPDATE);
/** Query: the session's orchestration state. */
export const stateQuery = defineQuery<SessionState>(STATE_QUERY);

/** Largest accepted input text, in UTF-16 units. */
const MAX_INPUT_CHARS = 1_000_000;
/** Steps per turn before the turn is ended as runaway. */
const MAX_STEPS_PER_TURN = 200;

/**
 * The session workflow, id `session/<sessionId>` (DESIGN.md §3, SE1–SE8).
 * Inputs arrive by the `submitInput` update into a durable FIFO inbox; each
 * turn takes the oldest input, calls the `modelStep` activity, dispatches the
 * tool calls it returns as one activity each (TD5), and loops until the model
 * gives a final answer. Inputs that arrive during a turn are steered into it
 * at the next step. Continues-as-new when Temporal suggests it.
 */
export async function sessionWorkflow(input: SessionWorkflowInput): Promise<SessionResult> {
  const { meta } = input;
  const carried: CarriedState = input.carried ?? {
    nextTurn: 0,
    nextInputSeq: 0,
    pending: [],
    seenClientIds: [],
    lastFinalText: null,
  };
  const inbox: AdmittedInput[] = [...carried.pending];
  const seen = new Map<string, AdmissionReceipt>(carried.seenClientIds);
  let nextInputSeq = carried.nextInputSeq;
  let turn = carried.nextTurn;
  let step = 0;
  let phase: SessionState['phase'] = 'idle';
  let inTurn = false;
  let lastFinalText = carried.lastFinalText;

  const root = CancellationScope.current();
  const background = new BackgroundTasks({
    meta,
    root,
    admitReport(taskID, text) {
      const status: AdmissionReceipt['status'] = inTurn ? 'steered' : inbox.length === 0 ? 'driven' : 'pending';
      inbox.push({
        inputId: `in_${nextInputSeq++}`,
        text: `<background_report taskID="${taskID}">\n${text}\n</background_report>`,
        kind: 'report',
        taskID,
        admission: status,
        admittedAtMs: Date.now(),
      });
    },
    revokeReport(taskID) {
      const at = inbox.findIndex((i) => i.kind === 'report' && i.taskID === taskID);
      if (at >= 0) inbox.splice(at, 1);
      return at >= 0;
    },
  });

  const activities = proxyActivities<SessionActivities>({
    startToCloseTimeout: meta.activityDefaults.projection.startToCloseTimeoutMs,
  });
  const modelStep = proxyActivities<SessionActivities>(
    modelStepOptions(meta.provider.retry, meta.activityDefaults, `model: ${meta.provider.id}/${meta.model}`),
  ).modelStep;

  setHandler(
    submitInputUpdate,
    (req) => {
      const previous = req.clientMessageId !== undefined ? seen.get(req.clientMessageId) : undefined;
      if (previous) return { ...previous, duplicate: true };
      const status: AdmissionReceipt['status'] = inTurn ? 'steered' : inbox.length === 0 ? 'driven' : 'pending';
      const inputId = `in_${nextInputSeq++}`;
      const receipt: AdmissionReceipt = { inputId, sessionId: meta.sessionId, status, duplicate: false };
      inbox.push({
        inputId,
        text: req.text,
        admission: status,
        admittedAtMs: Date.now(),
        ...(req.clientMessageId !== undefined ? { clientMessageId: req.clientMessageId } : {}),
      });
      if (req.clientMessageId !== undefined) {
        seen.set(req.clientMessageId, receipt);
        while (seen.size > 256) seen.delete(seen.keys().next().value!);
      }
      return receipt;
    },
    {
      validator: (req) => {
        if (typeof req !== 'object' || req === null)
          throw new Error('input must be an object {text, clientMessageId?}');
        if (typeof req.text !== 'string' || req.text.trim() === '')
          throw new Error('input.text must be a non-empty string');
        if (req.text.length > MAX_INPUT_CHARS) throw new Error(`input.text exceeds ${MAX_INPUT_CHARS} characters`);
        if (
          req.clientMessageId !== undefined &&
          (typeof req.clientMessageId !== 'string' || req.clientMessageId === '')
        ) {
          throw new Error('input.clientMessageId must be a non-empty string when given');
        }
      },
    },
  );
  setHandler(stateQuery, () => ({
    sessionId: meta.sessionId,
    phase,
    turn,
    step,
    pending: inbox.map((i) => ({ inputId: i.inputId, admission: i.admission, ...(i.kind ? { kind: i.kind } : {}) })),
    background: background.ids(),
    lastFinalText,
  }));

  /** Outcomes the workflow itself settled (activity lost or failed), persisted by the next modelStep or finishTurn. */
  let settled: SettledOutcome[] = [];
  /** The running turn's cancellation scope and interrupt state (TD10); null between turns. */
  let turnCtl: TurnControl | null = null;
  /** An interrupt arrived between turns and stopped background tasks. */
  let idleInterrupted = false;

  setHandler(interruptUpdate, (): InterruptReceipt => {
    const seen = { sessionId: meta.sessionId, turn, phase, backgroundCancelled: [] as string[] };
    if (!turnCtl) {
      // Idle: what runs is background work; stop it (a `zuno run` then ends as interrupted).
      const stopped = background.interruptAll();
      if (stopped.length > 0) idleInterrupted = true;
      return { ...seen, interrupted: stopped.length > 0, alreadyRequested: false, backgroundCancelled: stopped };
    }
    const alreadyRequested = turnCtl.interruptedAtMs !== null;
    if (!alreadyRequested) {
      turnCtl.interruptedAtMs = Date.now();
      phase = 'interrupting';
      turnCtl.scope.cancel();
    }
    return { ...seen, interrupted: true, alreadyRequested };
  });

  const runTool = async (call: PlannedToolCall): Promise<void> => {
    const ctl = turnCtl!;
    if (ctl.interruptedAtMs !== null) {
      settled.push(settleNotRun(call, Date.now()));
      return;
    }
    const decl = toolDeclarations[call.name]!;
    const bgAction = call.name === 'bg' ? (call.args as { action?: string; taskID?: string } | undefined) : undefined;
    if (bgAction?.action === 'cancel' && bgAction.taskID) background.cancel(bgAction.taskID);
    const summary = (call.summary ?? decl.summarize(call.args as never)).slice(0, 200);
    const act = proxyActivities<Record<string, (i: ToolActivityInput) => Promise<ToolActivityResult>>>(
      toolActivityOptions(decl, meta.activityDefaults, summary),
    )[toolActivityName(call.name)]!;
    const outcome = await raceForced(
      ctl,
      act({ sessionId: meta.sessionId, workspace: meta.workspace, turn, step, call }),
    );
    if (outcome.kind === 'done') {
      const bg = outcome.value.background;
      if (bg?.started && outcome.value.outcome === 'ok' && !outcome.value.late) background.start(call, bg.taskID);
      if (bg?.terminal) background.observedTerminal(bg.taskID);
    } else if (outcome.kind === 'forced') settled.push(settleForcedInterrupt(call, decl, Date.now()));
    else if (outcome.kind === 'failed') {
      const err = outcome.error;
      if (err instanceof ActivityFailure) settled.push(settleLostCall(call, decl, err, Date.now()));
      else if (isCancellation(err)) settled.push(settleNotRun(call, Date.now()));
      else throw err;
    }
  };

  /** `zuno run`'s end: a turn has run, nothing is queued and no background task can still report. */
  const doneWhenIdle = () => input.exitWhenIdle && turn > 0 && inbox.length === 0 && !background.busy();
  // Background tasks pin the run: continue-as-new cannot carry a running activity.
  const mayContinueAsNew = () => workflowInfo().continueAsNewSuggested && !background.busy();
  for (;;) {
    phase = 'idle';
    await condition(() => inbox.length > 0 || mayContinueAsNew() || doneWhenIdle());
    if (doneWhenIdle()) {
      if (!idleInterrupted) return { sessionId: meta.sessionId, status: 'completed', turns: turn };
      await activities.finishTurn({ sessionId: meta.sessionId, status: 'interrupted', turn, step: 0, inputIds: [] });
      return { sessionId: meta.sessionId, status: 'interrupted', turns: turn };
    }
    if (inbox.length === 0 || mayContinueAsNew()) {
      await condition(allHandlersFinished);
      await continueAsNew<typeof sessionWorkflow>({
        ...input,
        carried: {
          nextTurn: turn,
          nextInputSeq,
          pending: inbox,
          seenClientIds: [...seen.entries()],
          lastFinalText,
        },
      });
    }
    // A turn: drive the oldest input; inputs arriving meanwhile are steered in.
    inTurn = true;
    const ctl = newTurnControl();
    turnCtl = ctl;
    const carriedInputIds: string[] = [];
    // SE3: one wake claims every pending report at the head; a user input drives a turn alone.
    const head = inbox[0]!.kind === 'report' ? inbox.findIndex((i) => i.kind !== 'report') : 1;
    let newInputs = inbox.splice(0, head < 0 ? inbox.length : head);
    let failure: SessionResult['error'] | undefined;
    let status = 'completed' as SessionResult['status'];
    let rollbackStep = false;
    let stepInputs: AdmittedInput[] = [];
    await ctl.scope.run(async () => {
      for (step = 0; ; step++) {
        if (ctl.interruptedAtMs !== null) {
          status = 'interrupted';
          return;
        }
        if (step >= MAX_STEPS_PER_TURN) {
          failure = { code: 'turn_step_limit', message: `the turn exceeded ${MAX_STEPS_PER_TURN} model steps` };
          status = 'failed';
          return;
        }
        carriedInputIds.push(...newInputs.map((i) => i.inputId));
        stepInputs = newInputs;
        phase = 'model';
        const outcome = await raceForced(ctl, modelStep({ meta, turn, step, newInputs, settled }));
        newInputs = [];
        if (outcome.kind !== 'done' && ctl.interruptedAtMs !== null) {
          // The model step was cut: its partial assistant output goes, its inputs stay.
          status = 'interrupted';
          rollbackStep = true;
          return;
        }
        if (outcome.kind === 'forced') throw new Error('unreachable: forced without an interrupt');
        if (outcome.kind === 'failed') {
          const err = outcome.error;
          const cause = err instanceof ActivityFailure ? err.cause : err;
          const timedOut = cause instanceof TimeoutFailure;
          const code =
            cause instanceof ApplicationFailure && cause.type
              ? cause.type
              : timedOut
                ? 'model_step_timeout'
                : 'model_step_failed';
          const message = timedOut
            ? `the model step ran past temporal.yaml activities.model.startToCloseTimeoutMs (${meta.activityDefaults.model.startToCloseTimeoutMs} ms) or its heartbeat timeout`
            : ((cause as Error)?.message ?? String(cause));
          failure = { code, message };
          status = PAUSING_FAILURES.includes(code) ? 'paused' : BLOCKING_FAILURES.includes(code) ? 'blocked' : 'failed';
          return;
        }
        const result = outcome.value;
        settled = [];
        if (result.toolCalls.length === 0) {
          if (ctl.interruptedAtMs !== null) status = 'interrupted';
          return;
        }
        if (result.toolCalls.some((c) => !c.blocked)) {
          phase = 'tools';
          for (const batch of planBatches(result.toolCalls, (n) => toolDeclarations[n]?.concurrency ?? 'Exclusive')) {
            await runBounded(batch, meta.toolConcurrency, runTool);
          }
        }
        // Steering (SE1): inputs admitted while this step ran join the next request.
        newInputs = inbox.splice(0, inbox.length);
      }
    });
    ctl.over = true;
    turnCtl = null;
    if (newInputs.length > 0) inbox.unshift(...newInputs); // steered inputs the interrupted turn never sent
    const finished = await activities.finishTurn({
      sessionId: meta.sessionId,
      status,
      turn,
      step,
      inputIds: carriedInputIds,
      ...(failure ? { error: failure } : {}),
      ...(settled.length > 0 ? { settled } : {}),
      ...(rollbackStep ? { rollbackStep, stepInputs } : {}),
      ...(background.busy() ? { background: background.ids() } : {}),
    });
    settled = [];
    lastFinalText = finished.finalText;
    inTurn = false;
    turn += 1;
    if (
      status === 'failed' ||
      status === 'paused' ||
      status === 'blocked' ||
      (status === 'interrupted' && input.exitWhenIdle)
    ) {
      phase = 'failed';
      await background.stopAll();
      await condition(allHandlersFinished);
      return { sessionId: meta.sessionId, status, turns: turn, ...(failure ? { error: failure } : {}) };
    }
  }
}

/** Cancellation state of one turn (TD10). */
interface TurnControl {
  /** Every activity of the turn runs in this scope; an interrupt cancels it. */
  scope: CancellationScope;
  /** Workflow time of the interrupt, or null. */
  interruptedAtMs: number | null;
  /** Resolves {@link INTERRUPT_FORCE_AFTER_MS} after an interrupt; never otherwise. */
  forced: Promise<'forced'>;
  /** Set when the turn ended, releasing the `forced` watcher. */
  over: boolean;
}

function newTurnControl(): TurnControl {
  const ctl: TurnControl = {
    scope: new CancellationScope(),
    interruptedAtMs: null,
    forced: new Promise<'forced'>(() => undefined),
    over: false,
  };
  ctl.forced = CancellationScope.nonCancellable(async () => {
    await condition(() => ctl.interruptedAtMs !== null || ctl.over);
    if (ctl.over) return new Promise<'forced'>(() => undefined);
    await sleep(INTERRUPT_FORCE_AFTER_MS);
    return 'forced' as const;
  });
  return ctl;
}

/** How an activity of an interruptible turn ended. */
type Raced<T> = { kind: 'done'; value: T } | { kind: 'failed'; error: unknown } | { kind: 'forced' };

/**
 * Waits for an activity, or — after a hard interrupt — at most until the
 * turn's force deadline (TD10). Never rejects.
 */
function raceForced<T>(ctl: TurnControl, running: Promise<T>): Promise<Raced<T>> {
  return Promise.race([
    running.then(
      (value): Raced<T> => ({ kind: 'done', value }),
      (error: unknown): Raced<T> => ({ kind: 'failed', error }),
    ),
    ctl.forced.then((): Raced<T> => ({ kind: 'forced' })),
  ]);
}
