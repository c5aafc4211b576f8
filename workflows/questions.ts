import { ApplicationFailure } from '@temporalio/workflow';
import {
  AUTO_DEFER_COUNTDOWN_MS,
  AUTO_DEFER_SILENT_MS,
  QUESTION_ERRORS,
  QUESTION_LIMITS,
  type AnswerQuestionRequest,
  type AnswerQuestionResult,
  type AskQuestionReceipt,
  type AskQuestionRequest,
  type CarriedQuestions,
  type QuestionDelivery,
  type QuestionView,
  type QuestionsView,
  type SnoozeQuestionRequest,
  type SnoozeQuestionResult,
  questionIdOf,
} from '../core/question-contract.js';
import type { ErrorCode } from '../core/error-codes.js';

interface Applied {
  request: string;
  result: AnswerQuestionResult | SnoozeQuestionResult;
}

function fail(type: ErrorCode, message: string): never {
  throw ApplicationFailure.create({ type, message, nonRetryable: true });
}

/**
 * The session's questions (issue 11 item 5; QU1, QU3, QU4, QU9, QU11):
 * the open ones with their partial answers and revisions, and every applied
 * command by `commandId` so a retried command is one answer. Workflow state
 * only — rows are written by `recordQuestion`. Deterministic.
 *
 * Only {@link answer} answers: a snooze, the auto-defer ({@link autoDefer}),
 * a timeout or an empty answer never does (QU3, QU9, QU11).
 */
export class QuestionBook {
  private readonly open = new Map<string, QuestionView>();
  /** Answered question ids of this run (refusals name them `already answered`). */
  private readonly answered = new Set<string>();
  private readonly applied = new Map<string, Applied>();

  constructor(carried?: CarriedQuestions) {
    for (const q of carried?.open ?? []) this.open.set(q.questionId, q);
    for (const [id, a] of carried?.commands ?? []) this.applied.set(id, a);
  }

  /** Query result: the pending questions, oldest first. */
  view(): QuestionsView {
    return { pending: this.list() };
  }

  /** The pending questions, oldest first. */
  list(): QuestionView[] {
    return [...this.open.values()];
  }

  /** One open question, or undefined. */
  get(questionId: string): QuestionView | undefined {
    return this.open.get(questionId);
  }

  /** Carried across continue-as-new; undefined when there is nothing to carry. */
  toCarried(): CarriedQuestions | undefined {
    if (this.open.size === 0) return undefined;
    return { open: this.list(), commands: [...this.applied].slice(-256) };
  }

  /**
   * Update validator of `askQuestion`: a well-formed request (the tool's
   * schema already checked the model's arguments; this guards the Update).
   * @throws ApplicationFailure `question_invalid`.
   */
  validateAsk(req: AskQuestionRequest): void {
    if (!req || typeof req.rowId !== 'string' || !/^tc_\d+_\d+_\d+$/.test(req.rowId))
      fail(QUESTION_ERRORS.invalid, 'a question needs the asking call row id tc_<turn>_<step>_<position>');
    if (!Array.isArray(req.items) || req.items.length === 0 || req.items.length > QUESTION_LIMITS.items)
      fail(QUESTION_ERRORS.invalid, `a question has 1 to ${QUESTION_LIMITS.items} items`);
    for (const item of req.items)
      if (typeof item?.question !== 'string' || item.question.trim() === '')
        fail(QUESTION_ERRORS.invalid, 'every item needs a question text');
  }

  /**
   * Publishes a question (or returns the receipt it already has: the same
   * call row). A deferred question gets its 120 s auto-defer deadline from
   * `nowMs` (QU4, QU11); a blocking one gets none.
   */
  ask(
    req: AskQuestionRequest,
    delivery: QuestionDelivery,
    nowMs: number,
  ): { receipt: AskQuestionReceipt; fresh: boolean } {
    const questionId = questionIdOf(req.rowId);
    const known = this.open.get(questionId);
    if (known || this.answered.has(questionId)) {
      const q = known;
      return {
        receipt: {
          questionId,
          revision: q?.revision ?? 0,
          itemIds: q?.items.map((i) => i.itemId) ?? [],
          duplicate: true,
        },
        fresh: false,
      };
    }
    const q: QuestionView = {
      questionId,
      rowId: req.rowId,
      callId: req.callId,
      tool: req.tool,
      delivery,
      ...(req.header ? { header: req.header } : {}),
      items: req.items.map((item, n) => ({
        itemId: `qi_${n + 1}`,
        question: item.question,
        ...(item.options?.length ? { options: [...item.options] } : {}),
      })),
      answers: {},
      status: 'pending',
      revision: 1,
      ...(delivery === 'deferred'
        ? {
            autoDefer: {
              deadlineAtMs: nowMs + AUTO_DEFER_SILENT_MS + AUTO_DEFER_COUNTDOWN_MS,
              countdownAtMs: nowMs + AUTO_DEFER_SILENT_MS,
              state: 'armed' as const,
            },
          }
        : {}),
      turn: req.turn,
      step: req.step,
      askedAtMs: nowMs,
    };
    this.open.set(questionId, q);
    return {
      receipt: { questionId, revision: 1, itemIds: q.items.map((i) => i.itemId), duplicate: false },
      fresh: true,
    };
  }

  /**
   * Update validator of `answerQuestion` (QU3, QU9): refuses, typed, what
   * {@link answer} would not apply. A command already applied with the same
   * content passes (the handler answers it again). The expected revision
   * must be the current one — or the one the auto-defer replaced (its exact
   * successor, QU11), since a deferral changes nothing a person wrote.
   * @throws ApplicationFailure `question_invalid`, `question_command_conflict`,
   *   `question_not_found`, `question_already_answered`, `question_stale_revision`.
   */
  validateAnswer(req: AnswerQuestionRequest): void {
    if (!req || typeof req.questionId !== 'string' || typeof req.commandId !== 'string' || req.commandId === '')
      fail(QUESTION_ERRORS.invalid, 'an answer needs questionId and a non-empty commandId');
    if (!Number.isInteger(req.expectedRevision)) fail(QUESTION_ERRORS.invalid, 'expectedRevision must be an integer');
    const entries = req.answers && typeof req.answers === 'object' ? Object.entries(req.answers) : [];
    if (entries.length === 0) fail(QUESTION_ERRORS.invalid, 'an answer names at least one item: {"qi_1": "…"}');
    for (const [, text] of entries)
      if (typeof text !== 'string' || text.trim() === '' || text.length > QUESTION_LIMITS.answer)
        fail(
          QUESTION_ERRORS.invalid,
          `every answer is a non-empty text of at most ${QUESTION_LIMITS.answer} characters`,
        );
    this.checkCommand(req.commandId, answerFingerprint(req));
    if (this.applied.has(req.commandId)) return;
    const q = this.pendingOrFail(req.questionId);
    if (
      req.expectedRevision !== q.revision &&
      !(q.autoDefer?.state === 'deferred' && req.expectedRevision === q.revision - 1)
    )
      fail(
        QUESTION_ERRORS.staleRevision,
        `question ${req.questionId} is at revision ${q.revision}, not ${req.expectedRevision}: read it again`,
      );
    for (const [itemId] of entries) {
      if (!q.items.some((i) => i.itemId === itemId))
        fail(QUESTION_ERRORS.invalid, `question ${req.questionId} has no item ${itemId}`);
      if (itemId in q.answers) fail(QUESTION_ERRORS.invalid, `item ${itemId} of ${req.questionId} is already answered`);
    }
  }

  /**
   * Applies a validated answer (or answers a retried command with its first
   * result). Returns the result and, when this answer completed the
   * question, the question as closed (the caller admits its input).
   */
  answer(
    req: AnswerQuestionRequest,
    nowMs: number,
    inputIdOf: (q: QuestionView) => string,
  ): { result: AnswerQuestionResult; question?: QuestionView; completed: boolean } {
    const before = this.applied.get(req.commandId);
    if (before) return { result: { ...(before.result as AnswerQuestionResult), duplicate: true }, completed: false };
    const q = this.open.get(req.questionId)!;
    const answers = { ...q.answers, ...req.answers };
    const pendingItems = q.items.filter((i) => !(i.itemId in answers)).map((i) => i.itemId);
    const completed = pendingItems.length === 0;
    let next: QuestionView = { ...q, answers, revision: q.revision + 1 };
    if (completed) {
      next = { ...next, status: 'answered', answeredAtMs: nowMs };
      next = { ...next, inputId: inputIdOf(next) };
      this.open.delete(q.questionId);
      this.answered.add(q.questionId);
    } else this.open.set(q.questionId, next);
    const result: AnswerQuestionResult = {
      questionId: q.questionId,
      revision: next.revision,
      status: next.status,
      pendingItems,
      ...(next.inputId ? { inputId: next.inputId } : {}),
      duplicate: false,
    };
    this.applied.set(req.commandId, { request: answerFingerprint(req), result });
    return { result, question: next, completed };
  }

  /**
   * Update validator of `snoozeQuestion`.
   * @throws ApplicationFailure `question_invalid`, `question_command_conflict`,
   *   `question_not_found`, `question_already_answered`.
   */
  validateSnooze(req: SnoozeQuestionRequest): void {
    if (!req || typeof req.questionId !== 'string' || typeof req.commandId !== 'string' || req.commandId === '')
      fail(QUESTION_ERRORS.invalid, 'a snooze needs questionId and a non-empty commandId');
    this.checkCommand(req.commandId, JSON.stringify(['snooze', req.questionId]));
    if (!this.applied.has(req.commandId)) this.pendingOrFail(req.questionId);
  }

  /**
   * Pauses an armed auto-defer timer (QU11 Snooze): state `snoozed`, the
   * time left kept, the deadline as recorded. Not a revision change (the
   * form is unchanged) and never an answer. Snoozing a question that is not
   * armed changes nothing. Returns the changed question when it changed.
   */
  snooze(req: SnoozeQuestionRequest, nowMs: number): { result: SnoozeQuestionResult; question?: QuestionView } {
    const before = this.applied.get(req.commandId);
    if (before) return { result: { ...(before.result as SnoozeQuestionResult), duplicate: true } };
    const q = this.open.get(req.questionId)!;
    let changed: QuestionView | undefined;
    if (q.autoDefer?.state === 'armed') {
      changed = {
        ...q,
        autoDefer: { ...q.autoDefer, state: 'snoozed', remainingMs: Math.max(0, q.autoDefer.deadlineAtMs - nowMs) },
      };
      this.open.set(q.questionId, changed);
    }
    const now = changed ?? q;
    const result: SnoozeQuestionResult = {
      questionId: q.questionId,
      ...(now.autoDefer ? { autoDefer: now.autoDefer } : {}),
      duplicate: false,
    };
    this.applied.set(req.commandId, { request: JSON.stringify(['snooze', req.questionId]), result });
    return { result, ...(changed ? { question: changed } : {}) };
  }

  /**
   * The deadline of an armed question passed (QU11): its auto-defer state
   * becomes `deferred` and its revision moves on by one; no answer, no
   * input, the question stays open. Returns the changed question, or
   * undefined when it is no longer armed (answered or snoozed meanwhile).
   */
  autoDefer(questionId: string, nowMs: number): QuestionView | undefined {
    const q = this.open.get(questionId);
    if (!q?.autoDefer || q.autoDefer.state !== 'armed') return undefined;
    const next: QuestionView = {
      ...q,
      revision: q.revision + 1,
      autoDefer: { ...q.autoDefer, state: 'deferred', deferredAtMs: nowMs },
    };
    this.open.set(questionId, next);
    return next;
  }

  private checkCommand(commandId: string, request: string): void {
    const before = this.applied.get(commandId);
    if (before && before.request !== request)
      fail(
        QUESTION_ERRORS.commandConflict,
        `command ${commandId} was already used for a different request on ${before.result.questionId}`,
      );
  }

  private pendingOrFail(questionId: string): QuestionView {
    const q = this.open.get(questionId);
    if (q) return q;
    if (this.answered.has(questionId))
      fail(QUESTION_ERRORS.alreadyAnswered, `question ${questionId} is already answered`);
    return fail(QUESTION_ERRORS.notFound, `no pending question ${questionId} in this session`);
  }
}

function answerFingerprint(req: AnswerQuestionRequest): string {
  const answers = Object.entries(req.answers ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return JSON.stringify(['answer', req.questionId, req.expectedRevision, answers]);
}
