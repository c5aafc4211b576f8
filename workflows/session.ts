import {
  CancellationScope,
  CancelledFailure,
  defineQuery,
  defineSignal,
  defineUpdate,
  setHandler,
} from '@temporalio/workflow';
import type { AdmissionReceipt } from '../core/session/inbox.js';
import {
  BG_SETTLED_SIGNAL,
  COMPACT_UPDATE,
  type CompactReceipt,
  type CompactRequest,
  INTERRUPT_UPDATE,
  type InterruptReceipt,
  type InterruptRequest,
  RESUME_UPDATE,
  type ResumeReceipt,
  type ResumeRequest,
  STATE_QUERY,
  SUBMIT_INPUT_UPDATE,
  type SubmitInputRequest,
} from '../core/session/updates.js';
import type { SessionResult } from '../core/session/outcome.js';
import type { SessionState } from '../core/session/state.js';
import type { SessionWorkflowInput } from '../core/session/meta.js';
import { GOAL_DIRECTIVE_SIGNAL, type GoalDirective } from '../core/goal/contract.js';
import {
  APPROVALS_QUERY,
  DECIDE_APPROVAL_UPDATE,
  type ApprovalDecisionRequest,
  type ApprovalDecisionResult,
  type ApprovalsView,
} from '../core/approval-contract.js';
import {
  ANSWER_QUESTION_UPDATE,
  ASK_QUESTION_UPDATE,
  QUESTIONS_QUERY,
  SNOOZE_QUESTION_UPDATE,
  type AnswerQuestionRequest,
  type AnswerQuestionResult,
  type AskQuestionReceipt,
  type AskQuestionRequest,
  type QuestionsView,
  type SnoozeQuestionRequest,
  type SnoozeQuestionResult,
} from '../core/question-contract.js';
import { SessionMachine } from './session-machine.js';

/** Update: admit one input to the session inbox; returns its admission receipt (SE1). */
export const submitInputUpdate = defineUpdate<AdmissionReceipt, [SubmitInputRequest]>(SUBMIT_INPUT_UPDATE);
/** Update: hard-interrupt the running turn (TD10); returns whether there was one. */
export const interruptUpdate = defineUpdate<InterruptReceipt, [InterruptRequest]>(INTERRUPT_UPDATE);
/** Update: compact the session's conversation now, between turns (issue 28 item 4). */
export const compactUpdate = defineUpdate<CompactReceipt, [CompactRequest]>(COMPACT_UPDATE);
/** Update: resume a paused session once its cause is fixed (optionally served elsewhere from now on). */
export const resumeUpdate = defineUpdate<ResumeReceipt, [ResumeRequest]>(RESUME_UPDATE);
/** Signal (goal → session): the driving Goal's status and revision, and a continuation to run (GL19). */
export const goalDirectiveSignal = defineSignal<[GoalDirective]>(GOAL_DIRECTIVE_SIGNAL);
export const bgSettledSignal = defineSignal<[string]>(BG_SETTLED_SIGNAL);
/** Query: the session's orchestration state. */
export const stateQuery = defineQuery<SessionState>(STATE_QUERY);
export const decideApprovalUpdate = defineUpdate<ApprovalDecisionResult, [ApprovalDecisionRequest]>(
  DECIDE_APPROVAL_UPDATE,
);
export const approvalsQuery = defineQuery<ApprovalsView>(APPROVALS_QUERY);
/** Update (a question tool's activity → session): publish a question (QU8). */
export const askQuestionUpdate = defineUpdate<AskQuestionReceipt, [AskQuestionRequest]>(ASK_QUESTION_UPDATE);
/** Update: answer some or all items of a pending question (QU1, QU3). */
export const answerQuestionUpdate = defineUpdate<AnswerQuestionResult, [AnswerQuestionRequest]>(ANSWER_QUESTION_UPDATE);
/** Update: pause a question's auto-defer timer (QU11). */
export const snoozeQuestionUpdate = defineUpdate<SnoozeQuestionResult, [SnoozeQuestionRequest]>(SNOOZE_QUESTION_UPDATE);
export const questionsQuery = defineQuery<QuestionsView>(QUESTIONS_QUERY);

/**
 * The session workflow, id `session/<sessionId>` (DESIGN.md §3, SE1–SE8).
 * Thin: the handlers validate and hand over to {@link SessionMachine}, which
 * owns the phase, the durable FIFO inbox, the turn loop, interrupts and
 * continue-as-new. A completed or interrupted session completes with its
 * {@link SessionResult}; a failed, paused or blocked one fails with a typed
 * ApplicationFailure (type = Zuno error code, details = [SessionResult]).
 */
export async function sessionWorkflow(input: SessionWorkflowInput): Promise<SessionResult> {
  // A cancellation request (a parent cancelling its child session, issue 12) is an interrupt, not an
  // abort: the session runs in a scope the request cannot cancel, stops its turn and background work as
  // an interrupt does, records it, then ends the workflow Cancelled.
  const root = CancellationScope.current();
  return CancellationScope.nonCancellable(async () => {
    const machine = new SessionMachine(input);
    root.cancelRequested.catch(() => machine.cancel());
    wire(machine);
    const result = await machine.run();
    if (machine.cancelled) throw new CancelledFailure('the session was cancelled by its parent');
    return result;
  });
}

/** Wires the session's Temporal handlers to its machine. */
function wire(machine: SessionMachine): void {
  setHandler(submitInputUpdate, (req) => machine.admit(req), { validator: (req) => machine.validateInput(req) });
  setHandler(interruptUpdate, (req) => machine.interrupt(req), { validator: (req) => machine.validateInterrupt(req) });
  setHandler(compactUpdate, (req) => machine.compactions.compact(req));
  setHandler(resumeUpdate, (req) => machine.resume(req), { validator: (req) => machine.validateResume(req) });
  setHandler(stateQuery, () => machine.state());
  setHandler(decideApprovalUpdate, (req) => machine.approvals.decide(req), {
    validator: (req) => machine.approvals.validate(req),
  });
  setHandler(approvalsQuery, () => machine.approvals.view());
  const questions = machine.questions;
  setHandler(askQuestionUpdate, (req) => questions.ask(req), { validator: (req) => questions.validateAsk(req) });
  setHandler(answerQuestionUpdate, (req) => questions.answer(req), {
    validator: (req) => questions.validateAnswer(req),
  });
  setHandler(snoozeQuestionUpdate, (req) => questions.snooze(req), {
    validator: (req) => questions.validateSnooze(req),
  });
  setHandler(questionsQuery, () => questions.book.view());
  setHandler(goalDirectiveSignal, (d) => machine.goalDirective(d));
  setHandler(bgSettledSignal, (taskID) => machine.background.hintSettled(taskID));
}
