import {
  ActivityFailure,
  ApplicationFailure,
  allHandlersFinished,
  condition,
  continueAsNew,
  defineQuery,
  defineUpdate,
  proxyActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import { modelStepOptions, toolActivityOptions } from '../core/activity-policy.js';
import {
  type AdmissionReceipt,
  type AdmittedInput,
  type CarriedState,
  type ModelStepResult,
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
import { planBatches, runBounded } from './dispatch.js';
import { settleLostCall } from './settle.js';

/** Update: admit one input to the session inbox; returns its admission receipt (SE1). */
export const submitInputUpdate = defineUpdate<AdmissionReceipt, [SubmitInputRequest]>(SUBMIT_INPUT_UPDATE);
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
    pending: inbox.map((i) => ({ inputId: i.inputId, admission: i.admission })),
    lastFinalText,
  }));

  /** Outcomes the workflow itself settled (activity lost or failed), persisted by the next modelStep. */
  let settled: SettledOutcome[] = [];
  const runTool = async (call: PlannedToolCall): Promise<void> => {
    const decl = toolDeclarations[call.name]!;
    const summary = (call.summary ?? decl.summarize(call.args as never)).slice(0, 200);
    const act = proxyActivities<Record<string, (i: ToolActivityInput) => Promise<ToolActivityResult>>>(
      toolActivityOptions(decl, meta.activityDefaults, summary),
    )[toolActivityName(call.name)]!;
    try {
      await act({ sessionId: meta.sessionId, workspace: meta.workspace, turn, step, call });
    } catch (err) {
      if (!(err instanceof ActivityFailure)) throw err;
      settled.push(settleLostCall(call, decl, err, Date.now()));
    }
  };

  for (;;) {
    phase = 'idle';
    if (input.exitWhenIdle && turn > 0 && inbox.length === 0) {
      return { sessionId: meta.sessionId, status: 'completed', turns: turn };
    }
    await condition(() => inbox.length > 0 || workflowInfo().continueAsNewSuggested);
    if (inbox.length === 0 || workflowInfo().continueAsNewSuggested) {
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
    const carriedInputIds: string[] = [];
    let newInputs = inbox.splice(0, 1);
    let failure: SessionResult['error'] | undefined;
    let status: SessionResult['status'] = 'completed';
    for (step = 0; ; step++) {
      if (step >= MAX_STEPS_PER_TURN) {
        failure = { code: 'turn_step_limit', message: `the turn exceeded ${MAX_STEPS_PER_TURN} model steps` };
        status = 'failed';
        break;
      }
      carriedInputIds.push(...newInputs.map((i) => i.inputId));
      phase = 'model';
      let result: ModelStepResult;
      try {
        result = await modelStep({ meta, turn, step, newInputs, settled });
        settled = [];
      } catch (err) {
        const cause = err instanceof ActivityFailure ? err.cause : err;
        const code = cause instanceof ApplicationFailure && cause.type ? cause.type : 'model_step_failed';
        failure = { code, message: (cause as Error)?.message ?? String(cause) };
        status = code === 'provider_auth' ? 'paused' : 'failed';
        break;
      }
      newInputs = [];
      const runnable = result.toolCalls.filter((c) => !c.blocked);
      if (result.toolCalls.length === 0) break;
      if (runnable.length > 0) {
        phase = 'tools';
        for (const batch of planBatches(result.toolCalls, (n) => toolDeclarations[n]?.concurrency ?? 'Exclusive')) {
          await runBounded(batch, meta.toolConcurrency, runTool);
        }
      }
      // Steering (SE1): inputs admitted while this step ran join the next request.
      newInputs = inbox.splice(0, inbox.length);
    }
    const finished = await activities.finishTurn({
      sessionId: meta.sessionId,
      status,
      turn,
      step,
      inputIds: carriedInputIds,
      ...(failure ? { error: failure } : {}),
    });
    lastFinalText = finished.finalText;
    inTurn = false;
    turn += 1;
    if (status !== 'completed') {
      phase = 'failed';
      await condition(allHandlersFinished);
      return { sessionId: meta.sessionId, status, turns: turn, ...(failure ? { error: failure } : {}) };
    }
  }
}
