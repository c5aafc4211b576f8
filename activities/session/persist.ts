/**
 * Projection writes shared by modelStep and finishTurn: carried inputs as
 * user messages (SE2) and workflow-settled tool outcomes (GP9, TD10).
 */
import { partId, userMessageId } from '../../core/ids.js';
import type { AdmittedInput, SettledOutcome } from '../../core/session-contract.js';
import type { ProjectionStore } from '../projection/types.js';

/** Persists newly carried inputs as user messages (SE2 `applied`); returns the next free part position. */
export async function persistInputs(
  store: ProjectionStore,
  sessionId: string,
  turn: number,
  step: number,
  inputs: AdmittedInput[],
  atMs: number,
): Promise<number> {
  let position = 0;
  for (const i of inputs) {
    await store.upsertInput({
      id: i.inputId,
      sessionId,
      text: i.text,
      clientMessageId: i.clientMessageId ?? null,
      admission: i.admission,
      state: 'applied',
      admittedAtMs: i.admittedAtMs,
      updatedAtMs: atMs,
    });
    const messageId = userMessageId(i.inputId);
    await store.upsertMessage({
      id: messageId,
      sessionId,
      role: 'user',
      turn,
      step,
      inputId: i.inputId,
      createdAtMs: atMs,
    });
    await store.upsertPart({
      id: partId(turn, step, position, 'text'),
      sessionId,
      messageId,
      turn,
      step,
      position,
      kind: 'text',
      text: i.text,
      createdAtMs: atMs,
    });
    position += 1;
  }
  return position;
}

/**
 * GP9, TD10: writes each workflow-settled outcome onto its tool-call row,
 * with the uncertain record and the notice the model will read, in one
 * upsert. A row its activity already completed keeps that result (the tool's
 * own report beats the workflow's guess). A row that never left `pending`
 * was never started by any worker, so an interrupted or cancelled call whose
 * activity never ran is recorded `not_run` rather than uncertain.
 */
export async function persistSettled(
  store: ProjectionStore,
  sessionId: string,
  settled: SettledOutcome[],
  atMs: number,
) {
  for (const given of settled) {
    const row = await store.getToolCall(sessionId, given.rowId);
    if (!row || row.status === 'completed') continue;
    const s: SettledOutcome =
      row.status === 'pending' && given.cause === 'interrupted'
        ? {
            ...given,
            outcome: 'error',
            cause: 'not_run',
            failureType: 'not_run',
            message: 'the turn was interrupted before this call started; nothing ran',
            paths: [],
          }
        : given;
    await store.upsertToolCall({
      ...row,
      status: 'completed',
      outcome: s.outcome,
      errorCode: s.failureType,
      output: settledNotice(s),
      result:
        s.outcome === 'uncertain'
          ? {
              uncertain: {
                tool: s.tool,
                callId: s.callId,
                paths: s.paths,
                cause: s.cause,
                observedAtMs: s.observedAtMs,
              },
            }
          : { failure: { type: s.failureType, message: s.message } },
      endedAtMs: s.observedAtMs,
    });
    await store.appendEvent({
      id: `${s.rowId}:settled`,
      sessionId,
      type: 'tool.completed',
      data: { rowId: s.rowId, callId: s.callId, tool: s.tool, outcome: s.outcome, cause: s.cause },
      atMs,
    });
  }
}

/** The model-visible text of a settled outcome (TD4 uncertain notice, TD10 not-run). */
function settledNotice(s: SettledOutcome): string {
  if (s.outcome === 'uncertain') {
    return (
      `Outcome uncertain: the ${s.tool} call ${s.callId} may or may not have taken effect` +
      `${s.paths.length ? ` on ${s.paths.join(', ')}` : ''} (${s.cause}: ${s.message}). ` +
      'It was not re-run. Inspect the authoritative state before doing anything that depends on it.'
    );
  }
  if (s.cause === 'not_run') return `The ${s.tool} call ${s.callId} did not run: ${s.message}.`;
  return `The ${s.tool} call ${s.callId} failed (${s.failureType}): ${s.message}`;
}
