/**
 * Question rows (issue 11 item 5; prisma/models.prisma `Question`): database
 * row ↔ {@link QuestionRow}, and the QU12 delivery state derived from the
 * linked input's state — never stored as a second question state.
 */
import type { QuestionDeliveryState, QuestionView } from '../../core/question-contract.js';
import type { Question as DbQuestion } from '../../prisma/generated/sqlite/client/client.js';
import { ms } from './rows.js';
import type { InputState, QuestionRow } from './types.js';

/** Input states that mean a turn carried the input to the model (SE2): its answer is applied. */
const APPLIED: readonly InputState[] = ['applied', 'completed', 'failed'];

/**
 * QU12: `waiting_answer` while the question is pending; answered:
 * `applied` once its input was carried into a turn, else
 * `answered_pending_delivery` (admitted to the inbox, or not yet). Pure.
 */
export function deliveryOf(status: QuestionRow['status'], inputState: InputState | null): QuestionDeliveryState {
  if (status === 'pending') return 'waiting_answer';
  return inputState !== null && APPLIED.includes(inputState) ? 'applied' : 'answered_pending_delivery';
}

/** The columns of a question row (everything but the key), from the workflow's view. */
export function questionColumns(q: QuestionRow) {
  const v: QuestionView = q.view;
  return {
    rowId: v.rowId,
    callId: v.callId,
    tool: v.tool,
    status: q.status,
    revision: q.revision,
    view: JSON.stringify(v),
    autoDeferState: v.autoDefer?.state ?? null,
    deadlineAtMs: v.autoDefer ? ms(v.autoDefer.deadlineAtMs) : null,
    inputId: q.inputId,
    turn: v.turn,
    step: v.step,
    askedAtMs: ms(q.askedAtMs),
    updatedAtMs: ms(q.updatedAtMs),
  };
}

/** Database question → QuestionRow with its delivery state (`inputState`: the linked input's, null when none). */
export function toQuestion(r: DbQuestion, inputState: InputState | null): QuestionRow {
  const status = r.status as QuestionRow['status'];
  return {
    sessionId: r.sessionId,
    id: r.id,
    status,
    revision: r.revision,
    view: JSON.parse(r.view) as QuestionView,
    inputId: r.inputId,
    askedAtMs: Number(r.askedAtMs),
    updatedAtMs: Number(r.updatedAtMs),
    delivery: deliveryOf(status, inputState),
  };
}
