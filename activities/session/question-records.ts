import { EV } from '../../core/events.js';
import type { RecordQuestionInput } from '../../core/question-contract.js';
import type { NewEvent, ProjectionStore } from '../projection/types.js';

/**
 * Builds the `recordQuestion` activity (issue 11 item 5; QU6, QU11): the one
 * writer of question rows and their events. Each call writes the question
 * as the workflow holds it now and, in the same transaction, its event:
 * `question.asked`, `question.answered` (one per applied answer command),
 * `question.auto_deferred`; a snooze writes the row only. Keyed by the
 * question id (and revision): a retry writes the same row and no second
 * event. The question itself is the session workflow's; this only records it.
 */
export function createRecordQuestion(store: ProjectionStore) {
  return async function recordQuestion(input: RecordQuestionInput): Promise<void> {
    const { sessionId, question: q, atMs } = input;
    const event = eventOf(input);
    await store.transaction(sessionId, async (tx) => {
      await tx.upsertQuestion({
        sessionId,
        id: q.questionId,
        status: q.status,
        revision: q.revision,
        view: q,
        inputId: q.inputId ?? null,
        askedAtMs: q.askedAtMs,
        updatedAtMs: atMs,
      });
      if (event) await tx.appendEvent(event);
    });
  };
}

function eventOf(input: RecordQuestionInput): NewEvent | null {
  const { sessionId, question: q, atMs } = input;
  const base = { sessionId, atMs };
  if (input.event === 'asked')
    return {
      ...base,
      id: `${q.questionId}:asked`,
      type: EV.questionAsked,
      data: {
        questionId: q.questionId,
        rowId: q.rowId,
        callId: q.callId,
        tool: q.tool,
        ...(q.header ? { header: q.header } : {}),
        items: q.items,
        revision: q.revision,
        delivery: q.delivery,
        ...(q.autoDefer ? { deadlineAtMs: q.autoDefer.deadlineAtMs } : {}),
        turn: q.turn,
        step: q.step,
      },
    };
  if (input.event === 'answered')
    return {
      ...base,
      id: `${q.questionId}:answered:${q.revision}`,
      type: EV.questionAnswered,
      data: {
        questionId: q.questionId,
        commandId: input.commandId ?? '',
        items: input.answeredItems ?? [],
        revision: q.revision,
        complete: q.status === 'answered',
        ...(q.inputId ? { inputId: q.inputId } : {}),
      },
    };
  if (input.event === 'auto_deferred')
    return {
      ...base,
      id: `${q.questionId}:auto_deferred`,
      type: EV.questionAutoDeferred,
      data: { questionId: q.questionId, revision: q.revision, deadlineAtMs: q.autoDefer?.deadlineAtMs ?? atMs },
    };
  return null;
}
