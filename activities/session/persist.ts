/**
 * Projection writes shared by modelStep and finishTurn: carried inputs as
 * user messages (SE2). Workflow-settled tool outcomes are tool-records.ts's.
 */
import { partId, userMessageId } from '../../core/ids.js';
import type { AdmittedInput } from '../../core/session-contract.js';
import type { InputRow, InputState, ProjectionStore } from '../projection/types.js';

/**
 * SE2: records inputs that were admitted but that no turn will carry (the
 * session ended first) as `cancelled` — they keep their text, client id and
 * admission, and enter no conversation. Idempotent (upsert by input id).
 */
export async function persistUnrunInputs(
  store: ProjectionStore,
  sessionId: string,
  inputs: AdmittedInput[],
  atMs: number,
): Promise<void> {
  for (const i of inputs) await store.upsertInput(inputRow(i, sessionId, 'cancelled', atMs));
}

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
    await store.upsertInput(inputRow(i, sessionId, 'applied', atMs));
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

/** The projection row of an admitted input in SE2 state `state`. */
function inputRow(i: AdmittedInput, sessionId: string, state: InputState, atMs: number): InputRow {
  return {
    id: i.inputId,
    sessionId,
    text: i.text,
    clientMessageId: i.clientMessageId ?? null,
    admission: i.admission,
    state,
    admittedAtMs: i.admittedAtMs,
    updatedAtMs: atMs,
  };
}
