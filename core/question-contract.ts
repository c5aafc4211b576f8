/**
 * The question contract (issue 11 item 5; QU1–QU15, decisions in
 * docs/questions.md): the `question` / `question_async` tools publish a
 * clarification the session workflow holds until a person answers it by
 * Update. Publish (`askQuestion`), query (`questions`), answer
 * (`answerQuestion`) and the auto-defer timer are separate (QU1, QU6).
 * Shapes shared by the workflow, the activities that record questions, the
 * tool bodies and the CLI. Deterministic, no I/O.
 */
import { escapeClosingTag } from './terminal-text.js';
import type { ErrorCode } from './error-codes.js';

/** Update (tool activity → session) that publishes a question; idempotent by Update id and question id. */
export const ASK_QUESTION_UPDATE = 'askQuestion';
/** Update that answers some or all items of a pending question. */
export const ANSWER_QUESTION_UPDATE = 'answerQuestion';
/** Update that pauses a question's auto-defer timer (a person started answering). */
export const SNOOZE_QUESTION_UPDATE = 'snoozeQuestion';
/** Query that lists the session's questions still open (pending) and its question revision. */
export const QUESTIONS_QUERY = 'questions';

/** QU4/QU11: an ordinary deferred clarification stays silent this long … */
export const AUTO_DEFER_SILENT_MS = 60_000;
/** … then counts down this long before it is auto-deferred (120 s in all). */
export const AUTO_DEFER_COUNTDOWN_MS = 60_000;

/** Most items in one question, most options per item, longest texts (characters). */
export const QUESTION_LIMITS = { items: 10, options: 10, text: 2000, option: 200, answer: 4000, header: 200 } as const;

/**
 * How a question is delivered. `deferred`: the tool returned a receipt at
 * once; the answer arrives later as an input (every question in Work and
 * Goal — QU7, QU8). `blocking` is Plan mode's synchronous clarification,
 * which does not exist yet: it would carry no deadline (QU11, QU14).
 */
export type QuestionDelivery = 'deferred' | 'blocking';

/** One item of a question: `qi_<n>` (1-based, host-generated, stable for the question's life). */
export interface QuestionItem {
  itemId: string;
  question: string;
  /** Suggested answers; a person may still answer in their own words. */
  options?: string[];
}

/**
 * QU11 auto-defer of a deferred question: `armed` (the timer runs to
 * `deadlineAtMs`; hosts show a countdown from `countdownAtMs`), `snoozed`
 * (a person started answering: the timer is paused with `remainingMs` left;
 * the original deadline stays recorded), `deferred` (the deadline passed:
 * `question.auto_deferred` was recorded; the question is still open).
 */
export interface AutoDefer {
  deadlineAtMs: number;
  countdownAtMs: number;
  state: 'armed' | 'snoozed' | 'deferred';
  /** With `snoozed`: how much of the 120 s was left when the timer paused. */
  remainingMs?: number;
  /** With `deferred`: when it was recorded. */
  deferredAtMs?: number;
}

/** QU12 delivery state, derived (never stored as a second state): see docs/questions.md. */
export type QuestionDeliveryState = 'waiting_answer' | 'answered_pending_delivery' | 'applied';

/** A question as the workflow holds it (the `questions` Query lists the pending ones). */
export interface QuestionView {
  /** `q_<turn>_<step>_<position>`: from the asking call's row id, stable across replays. */
  questionId: string;
  rowId: string;
  callId: string;
  /** `question` or `question_async`. */
  tool: string;
  delivery: QuestionDelivery;
  header?: string;
  items: QuestionItem[];
  /** Answers so far by item id (partial answers keep the rest pending, QU1). */
  answers: Record<string, string>;
  /** `pending` until every item is answered, then `answered`. */
  status: 'pending' | 'answered';
  /** The question's own revision: 1 when asked, +1 for every applied answer and the auto-defer. */
  revision: number;
  /** Absent: no deadline (blocking clarification, and questions of any kind that never get one: QU11, QU14). */
  autoDefer?: AutoDefer;
  /** With `answered`: the inbox input that carries the answer to the model. */
  inputId?: string;
  turn: number;
  step: number;
  askedAtMs: number;
  answeredAtMs?: number;
}

/** Input of {@link ASK_QUESTION_UPDATE} (sent by the tool activity). */
export interface AskQuestionRequest {
  rowId: string;
  callId: string;
  tool: string;
  turn: number;
  step: number;
  header?: string;
  items: { question: string; options?: string[] }[];
}

/** Result of {@link ASK_QUESTION_UPDATE}: the receipt the tool returns to the model. */
export interface AskQuestionReceipt {
  questionId: string;
  revision: number;
  itemIds: string[];
  /** true when this call had already published it (a re-run activity). */
  duplicate: boolean;
}

/** Input of {@link ANSWER_QUESTION_UPDATE}. */
export interface AnswerQuestionRequest {
  questionId: string;
  /** Idempotency key: the same command sent twice is one answer (QU3, QU9). */
  commandId: string;
  /** The question's revision as the person saw it (or the auto-defer successor's predecessor); else `question_stale_revision`. */
  expectedRevision: number;
  /** Answers by item id; non-empty, each a non-empty text. Items already answered cannot be answered again. */
  answers: Record<string, string>;
}

/** Result of {@link ANSWER_QUESTION_UPDATE}. */
export interface AnswerQuestionResult {
  questionId: string;
  revision: number;
  status: QuestionView['status'];
  /** Item ids still unanswered. */
  pendingItems: string[];
  /** With a complete answer: the input admitted to the inbox (exactly once). */
  inputId?: string;
  duplicate: boolean;
}

/** Input of {@link SNOOZE_QUESTION_UPDATE}. */
export interface SnoozeQuestionRequest {
  questionId: string;
  commandId: string;
}

/** Result of {@link SNOOZE_QUESTION_UPDATE}: the auto-defer as it now stands (absent: the question has no deadline). */
export interface SnoozeQuestionResult {
  questionId: string;
  autoDefer?: AutoDefer;
  duplicate: boolean;
}

/** Result of {@link QUESTIONS_QUERY}. */
export interface QuestionsView {
  pending: QuestionView[];
}

/** What the session carries across continue-as-new: the open questions and their applied commands (newest 256). */
export interface CarriedQuestions {
  open: QuestionView[];
  commands: [string, { request: string; result: AnswerQuestionResult | SnoozeQuestionResult }][];
}

/** Typed refusals (ApplicationFailure types). */
export const QUESTION_ERRORS = {
  notFound: 'question_not_found',
  staleRevision: 'question_stale_revision',
  alreadyAnswered: 'question_already_answered',
  commandConflict: 'question_command_conflict',
  invalid: 'question_invalid',
  sessionEnding: 'question_session_ending',
} as const satisfies Record<string, ErrorCode>;

/** What a `recordQuestion` call records besides the row. */
export type QuestionRecordEvent = 'asked' | 'answered' | 'auto_deferred' | 'snoozed';

/** Input of the `recordQuestion` activity: the question as it stands and the event this change writes. */
export interface RecordQuestionInput {
  sessionId: string;
  question: QuestionView;
  event: QuestionRecordEvent;
  /** With `answered`: the command and the items it answered. */
  commandId?: string;
  answeredItems?: string[];
  atMs: number;
}

/** The question id of a call row id: `tc_<t>_<s>_<p>` → `q_<t>_<s>_<p>`. */
export function questionIdOf(rowId: string): string {
  return `q_${rowId.replace(/^tc_/, '')}`;
}

/** The input text that carries a complete answer to the model: every item with its answer, a `</question_answer>` inside escaped (terminal-text.ts `escapeClosingTag`). */
export function answerText(q: Pick<QuestionView, 'questionId' | 'header' | 'items' | 'answers'>): string {
  const lines: string[] = [];
  if (q.header) lines.push(q.header);
  for (const item of q.items) {
    lines.push(`[${item.itemId}] ${item.question}`, `answer: ${q.answers[item.itemId] ?? ''}`);
  }
  const body = escapeClosingTag(lines.join('\n'), 'question_answer');
  return [`<question_answer questionId="${q.questionId}">`, ...(body ? [body] : []), '</question_answer>'].join('\n');
}
