import { createHash, randomUUID } from 'node:crypto';
import { findPending } from './pending-lookup.js';
import { sendSessionUpdate } from './session-update.js';
import type { Client } from '@temporalio/client';
import {
  ANSWER_QUESTION_UPDATE,
  QUESTION_ERRORS,
  SNOOZE_QUESTION_UPDATE,
  type AnswerQuestionRequest,
  type AnswerQuestionResult,
  type SnoozeQuestionRequest,
  type SnoozeQuestionResult,
} from '../core/question-contract.js';
import type { ProjectionStore, QuestionRow } from '../activities/projection/index.js';

/** `q_<turn>_<step>_<position>`. */
/**
 * The question a person names: by id, in `sessionId` when given, else the
 * only pending question with that id in Zuno's home.
 * @throws ZunoError `usage_error` (malformed id), `question_not_found`,
 *   `question_ambiguous` (several sessions have one), `question_already_answered`.
 */
export function findQuestion(store: ProjectionStore, id: string, sessionId?: string): Promise<QuestionRow> {
  return findPending<QuestionRow>(
    {
      noun: 'question',
      idPattern: /^q_\d+_\d+_\d+$/,
      idShape: 'q_<n>_<n>_<n>',
      listCommand: 'zuno questions list',
      notFoundCode: QUESTION_ERRORS.notFound,
      doneCode: QUESTION_ERRORS.alreadyAnswered,
      doneWords: () => 'already answered',
      get: (s, i) => store.getQuestion(s, i),
      list: (f) => store.listQuestions(f),
    },
    id,
    sessionId,
  );
}

/**
 * Answers items of a question (the `answerQuestion` Update), bound to the
 * revision as stored. `commandId` defaults to a new random id (one answer per
 * invocation); the Update id is the command plus a digest of its content, so
 * a resent command is one Update and the same command with other content is
 * refused by the workflow.
 * @throws ZunoError with the workflow's typed refusal (`question_stale_revision`,
 *   `question_already_answered`, `question_command_conflict`, `question_invalid`,
 *   `question_not_found`, `question_session_ending`), or `session_not_running`.
 */
export async function answerQuestion(
  client: Client,
  row: Pick<QuestionRow, 'sessionId' | 'id' | 'revision'>,
  answers: Record<string, string>,
  commandId: string = randomUUID(),
): Promise<AnswerQuestionResult> {
  const req: AnswerQuestionRequest = { questionId: row.id, commandId, expectedRevision: row.revision, answers };
  const digest = createHash('sha256')
    .update(JSON.stringify([req.questionId, req.expectedRevision, Object.entries(answers).sort()]))
    .digest('hex')
    .slice(0, 16);
  return send(client, row, ANSWER_QUESTION_UPDATE, req, `question:${commandId}:${digest}`);
}

/**
 * Pauses a question's auto-defer timer (the `snoozeQuestion` Update, QU11).
 * @throws ZunoError as {@link answerQuestion}.
 */
export async function snoozeQuestion(
  client: Client,
  row: Pick<QuestionRow, 'sessionId' | 'id'>,
  commandId: string = randomUUID(),
): Promise<SnoozeQuestionResult> {
  const req: SnoozeQuestionRequest = { questionId: row.id, commandId };
  return send(client, row, SNOOZE_QUESTION_UPDATE, req, `question-snooze:${commandId}:${row.id}`);
}

function send<R, A>(
  client: Client,
  row: Pick<QuestionRow, 'sessionId' | 'id'>,
  update: string,
  req: A,
  updateId: string,
): Promise<R> {
  return sendSessionUpdate<R, A>(client, {
    sessionId: row.sessionId,
    about: `question ${row.id}`,
    update,
    args: req,
    updateId,
    invalidCode: QUESTION_ERRORS.invalid,
    endedHint:
      `question ${row.id} can no longer be answered there; ` +
      `answer it as a message: zuno run --session ${row.sessionId} "…"`,
  });
}
