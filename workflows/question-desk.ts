import { PROJECTION_RECORD_OPTIONS } from '../core/activity-policy.js';
import { ApplicationFailure, condition, proxyActivities } from '@temporalio/workflow';
import {
  QUESTION_ERRORS,
  type AnswerQuestionRequest,
  type AnswerQuestionResult,
  type AskQuestionReceipt,
  type AskQuestionRequest,
  type CarriedQuestions,
  type QuestionView,
  type RecordQuestionInput,
  type SnoozeQuestionRequest,
  type SnoozeQuestionResult,
} from '../core/question-contract.js';
import type { SessionActivities } from '../core/session/activities.js';
import { QuestionBook } from './questions.js';
import { onRoute, type RouteHost } from './route.js';

/** What the question desk needs from the session workflow. */
export interface QuestionHost extends RouteHost {
  /** Admits a complete answer to the inbox as an input the model reads (exactly once); returns its input id. */
  admitAnswer(q: QuestionView): string;
  /** The next input id the inbox would give (the book names it before admitting). */
  nextInputId(): string;
  /** true once the session is ending (closed, blocked): it takes no answers. */
  ending(): boolean;
}

/**
 * The session's questions in the workflow path (issue 11 item 5; QU1–QU4,
 * QU6, QU11, QU12): the Update handlers (publish, answer, snooze) on the
 * {@link QuestionBook}, one auto-defer timer per armed question (a workflow
 * timer: it survives worker and server restarts and keeps the original
 * deadline), and the projection writes (`recordQuestion`), chained so the
 * row never goes back to an older state. A complete answer is admitted to
 * the inbox once, by the Update that completes it.
 */
export class QuestionDesk {
  readonly book: QuestionBook;
  private chain: Promise<void> = Promise.resolve();
  private readonly timers = new Set<string>();

  constructor(
    private readonly host: QuestionHost,
    carried?: CarriedQuestions,
  ) {
    this.book = new QuestionBook(carried);
    for (const q of this.book.list()) this.arm(q);
  }

  /** Validator of `askQuestion`. @throws ApplicationFailure `question_invalid`, `question_session_ending`. */
  validateAsk(req: AskQuestionRequest): void {
    this.refuseWhenEnding();
    this.book.validateAsk(req);
  }

  /**
   * Handler of `askQuestion` (QU8): publishes a deferred question — no
   * session wait, no Goal pause — records it (`question.asked`) and arms its
   * timer; returns the receipt the tool gives the model.
   */
  async ask(req: AskQuestionRequest): Promise<AskQuestionReceipt> {
    const { receipt, fresh } = this.book.ask(req, 'deferred', Date.now());
    if (!fresh) return receipt;
    const q = this.book.get(receipt.questionId)!;
    await this.record({ question: q, event: 'asked' });
    this.arm(q);
    return receipt;
  }

  /** Validator of `answerQuestion` (QU3, QU9). @throws ApplicationFailure — see {@link QuestionBook.validateAnswer}. */
  validateAnswer(req: AnswerQuestionRequest): void {
    this.refuseWhenEnding();
    this.book.validateAnswer(req);
  }

  /** Handler of `answerQuestion`: applies the answer; a complete one is admitted to the inbox (QU3). */
  async answer(req: AnswerQuestionRequest): Promise<AnswerQuestionResult> {
    const { result, question, completed } = this.book.answer(req, Date.now(), () => this.host.nextInputId());
    if (!question) return result;
    if (completed) this.host.admitAnswer(question);
    await this.record({
      question,
      event: 'answered',
      commandId: req.commandId,
      answeredItems: Object.keys(req.answers),
    });
    return result;
  }

  /** Validator of `snoozeQuestion`. */
  validateSnooze(req: SnoozeQuestionRequest): void {
    this.refuseWhenEnding();
    this.book.validateSnooze(req);
  }

  /** Handler of `snoozeQuestion` (QU11): pauses the timer; records the row (no event). */
  async snooze(req: SnoozeQuestionRequest): Promise<SnoozeQuestionResult> {
    const { result, question } = this.book.snooze(req, Date.now());
    if (question) await this.record({ question, event: 'snoozed' });
    return result;
  }

  /** Resolves once every projection write started so far has landed (before the session closes or continues). */
  flush(): Promise<void> {
    return this.chain;
  }

  private refuseWhenEnding(): void {
    if (this.host.ending())
      throw ApplicationFailure.create({
        type: QUESTION_ERRORS.sessionEnding,
        message: 'the session is ending: it takes no more questions or answers',
        nonRetryable: true,
      });
  }

  /** One timer per armed question, to its recorded deadline; it ends early when the question is no longer armed. */
  private arm(q: QuestionView): void {
    if (q.autoDefer?.state !== 'armed' || this.timers.has(q.questionId)) return;
    this.timers.add(q.questionId);
    const id = q.questionId;
    const armed = () => this.book.get(id)?.autoDefer?.state === 'armed';
    void (async () => {
      const left = q.autoDefer!.deadlineAtMs - Date.now();
      if (left > 0) await condition(() => !armed(), left);
      this.timers.delete(id);
      const deferred = this.book.autoDefer(id, Date.now());
      if (deferred) await this.record({ question: deferred, event: 'auto_deferred' });
    })();
  }

  private record(r: Omit<RecordQuestionInput, 'sessionId' | 'atMs'>): Promise<void> {
    const input: RecordQuestionInput = { sessionId: this.host.meta.sessionId, atMs: Date.now(), ...r };
    const next = this.chain.then(() =>
      onRoute(this.host, (o) =>
        proxyActivities<SessionActivities>({
          ...PROJECTION_RECORD_OPTIONS,
          ...o,
          summary: `question ${input.question.questionId}: ${input.event}`,
        }).recordQuestion(input),
      ),
    );
    this.chain = next.catch(() => undefined);
    return next;
  }
}
