import { turnWorkFacts } from './work-facts.js';
import { Context } from '@temporalio/activity';
import { TURN_END_EVENT } from '../../core/events.js';
import type { FinishSessionInput, SessionActivities } from '../../core/session/activities.js';
import type { InputState, ProjectionStore, ProjectionWrite } from '../projection/types.js';
import { localHere, type Serves } from './local-guard.js';
import { persistInputs, persistUnrunInputs } from './persist.js';
import { recordSettled } from './tool-records.js';
import { interruptVerdictWrites } from './interrupt-verdicts.js';

/** SE2 state of a turn's inputs once the turn ended with a given status. */
const INPUT_STATE_AFTER = {
  completed: 'completed',
  failed: 'failed',
  paused: 'applied', // a resumed turn answers them (its finishTurn marks them completed)
  blocked: 'failed',
  interrupted: 'cancelled',
} as const satisfies Record<FinishSessionInput['status'], InputState>;

/** Final answer text returned to the workflow is bounded to this many UTF-16 units (history stays small). */
const MAX_FINAL_TEXT_IN_HISTORY = 2_000;

/**
 * Builds the `finishTurn` activity: records how a turn ended. On `completed`
 * the final answer is the assistant text of the turn's last step; the
 * session row gets status + final text, the turn's inputs become
 * completed/failed (SE2), and `session.completed` / `session.failed` /
 * `session.paused` / `session.interrupted` is appended (idempotent by turn).
 * For an interrupted turn (TD10) it first writes the outcomes the workflow
 * settled (forced, not run) and, when the model step itself was cut, removes
 * that step's assistant half while keeping the user inputs it carried, so
 * the transcript never holds a tool call without a result. Inputs of an
 * interrupted turn become `cancelled` (SE2), and so do inputs the session
 * admitted but will never carry because it ends with this turn. Returns the final text (bounded)
 * for the workflow's state query, and `reconciled` when a settlement met an
 * already committed result (tool-records.ts `recordSettled`) and, for a
 * Goal-bound session (`goalId`), the work-state facts its Goal decides on.
 * The session's status, its inputs' states and the end event are one
 * transaction. A fast turn (issue 13) runs it first as a local activity:
 * then it refuses in a worker that does not serve `input.localOn`
 * (local-guard.ts). Every write is idempotent: a second run records the
 * same turn end.
 */
export function createFinishTurn(store: ProjectionStore, serves: Serves) {
  return async function finishTurn(input: FinishSessionInput): ReturnType<SessionActivities['finishTurn']> {
    localHere(serves, input.localOn);
    const { sessionId, turn, step, status } = input;
    const atMs = Date.now();
    let finalText: string | null = null;
    if (input.rollbackStep) {
      await store.deleteStep(sessionId, turn, step);
      await persistInputs(store, sessionId, turn, step, input.stepInputs ?? [], atMs);
    }
    const reconciled = input.settled?.length ? await recordSettled(store, sessionId, input.settled, atMs) : [];
    if (status === 'completed') {
      const parts = await store.stepParts(sessionId, { turn, step });
      finalText = parts
        .filter((p) => p.kind === 'text' && p.messageId.endsWith('_assistant'))
        .map((p) => p.text ?? '')
        .join('\n\n'); // separate message items (Responses commentary, then answer) stay apart
    }
    const waiting = status === 'completed' && (input.background?.length ?? 0) > 0;
    // SF13: the verdict of each call the interrupt stopped, published before the turn's end.
    const verdicts =
      status === 'interrupted' ? await interruptVerdictWrites(store, sessionId, turn, input.settled ?? [], atMs) : [];
    // One transaction: the session's status, its inputs' SE2 states, the turn's end event.
    await store.writeBatch(sessionId, [
      {
        kind: 'sessionStatus',
        sessionId,
        status: waiting ? 'waiting_background' : status,
        atMs,
        ...(finalText !== null ? { finalText } : {}),
        ...(input.error ? { error: `${input.error.code}: ${input.error.message}` } : {}),
      },
      ...input.inputIds.map((inputId): ProjectionWrite => ({
        kind: 'inputState',
        sessionId,
        inputId,
        state: INPUT_STATE_AFTER[status],
        atMs,
      })),
      ...verdicts,
      {
        kind: 'event',
        event: {
          id: `turn_${turn}:finished`,
          sessionId,
          type: TURN_END_EVENT[status],
          data: {
            sessionId,
            turn,
            workflowId: Context.current().info.workflowExecution?.workflowId ?? null,
            text: finalText,
            error: input.error ?? null,
            background: input.background ?? [],
            inputIds: input.inputIds,
          },
          atMs,
        },
      },
    ]);
    if (input.unrun?.length) await persistUnrunInputs(store, sessionId, input.unrun, atMs);
    return {
      finalText: finalText === null ? null : finalText.slice(0, MAX_FINAL_TEXT_IN_HISTORY),
      ...(reconciled.length ? { reconciled } : {}),
      ...(input.goalId ? { work: await turnWorkFacts(store, sessionId) } : {}),
    };
  };
}
