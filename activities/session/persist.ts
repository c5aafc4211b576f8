/**
 * Projection writes shared by modelStep and finishTurn: carried inputs as
 * user messages (SE2). Workflow-settled tool outcomes are tool-records.ts's.
 */
import { partId, userMessageId } from '../../core/ids.js';
import type { AdmittedInput } from '../../core/session/inbox.js';
import type {
  InputRow,
  InputState,
  MessageRow,
  PartRow,
  ProjectionStore,
  ProjectionWrite,
  TranscriptRows,
} from '../projection/types.js';

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

/** Persists newly carried inputs as user messages (SE2 `applied`) in one batch; returns the next free part position. */
export async function persistInputs(
  store: ProjectionStore,
  sessionId: string,
  turn: number,
  step: number,
  inputs: AdmittedInput[],
  atMs: number,
): Promise<number> {
  const carried = carriedInputs(sessionId, turn, step, inputs, atMs);
  if (carried.writes.length > 0) await store.writeBatch(sessionId, carried.writes);
  return carried.nextPosition;
}

/**
 * The writes that record newly carried inputs as user messages (SE2
 * `applied`): per input its row, its user message and its text part at
 * positions 0, 1, … of the step; and the same rows as a transcript would
 * read them back (a model step assembles its request before they commit).
 */
export function carriedInputs(
  sessionId: string,
  turn: number,
  step: number,
  inputs: AdmittedInput[],
  atMs: number,
): { writes: ProjectionWrite[]; rows: TranscriptRows; nextPosition: number } {
  const writes: ProjectionWrite[] = [];
  const rows: TranscriptRows = { messages: [], parts: [], toolCalls: [] };
  inputs.forEach((i, position) => {
    const message: MessageRow = {
      id: userMessageId(i.inputId),
      sessionId,
      role: 'user',
      turn,
      step,
      inputId: i.inputId,
      createdAtMs: atMs,
    };
    const part: PartRow = {
      id: partId(turn, step, position, 'text'),
      sessionId,
      messageId: message.id,
      turn,
      step,
      position,
      kind: 'text',
      text: i.text,
      createdAtMs: atMs,
    };
    writes.push(
      { kind: 'input', row: inputRow(i, sessionId, 'applied', atMs) },
      { kind: 'message', row: message },
      { kind: 'part', row: part },
    );
    rows.messages.push(message);
    rows.parts.push(part);
  });
  return { writes, rows, nextPosition: inputs.length };
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
