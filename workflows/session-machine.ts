import {
  ApplicationFailure,
  CancellationScope,
  allHandlersFinished,
  condition,
  continueAsNew,
  currentUpdateInfo,
  proxyActivities,
  getCurrentDetails,
  setCurrentDetails,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { GoalDirective, GoalTurnReport, GoalTurnSource } from '../core/goal/contract.js';
import { ZunoStatus } from '../core/search-attributes.js';
import { withContext } from '../core/compaction/settings.js';
import { ApprovalBook } from './approvals.js';
import { ManualCompaction, type ManualCompactionHost } from './manual-compaction.js';
import { answerText, type QuestionView } from '../core/question-contract.js';
import { QuestionDesk, type QuestionHost } from './question-desk.js';
import { approvalLine } from './permission-gate.js';
import type { AdmissionReceipt, AdmittedInput } from '../core/session/inbox.js';
import { INTERRUPT_FORCE_AFTER_MS, INTERRUPT_FORCE_AFTER_V1_MS } from '../core/session/interrupt.js';
import type { InterruptReceipt, InterruptRequest, ResumeReceipt, ResumeRequest } from '../core/session/updates.js';
import type { SessionActivities } from '../core/session/activities.js';
import type { SessionMeta, SessionWorkflowInput } from '../core/session/meta.js';
import type { SessionPhase, SessionState, TurnActivity, ZunoStatusValue } from '../core/session/state.js';
import type { SessionResult, TurnOutcome } from '../core/session/outcome.js';
import type { SettledOutcome } from '../core/session/tool-calls.js';
import { utf8ByteLength } from '../core/utf8.js';
import { escapeClosingTag } from '../core/terminal-text.js';
import { admissionStatusOf, decideAdmission, type AdmissionView } from './admission.js';
import { BackgroundTasks } from './background.js';
import { GoalLink } from './goal-link.js';
import { ClientIdTable } from './client-ids.js';
import { onRoute } from './route.js';
import { describeOutcome, statusLine } from './status-line.js';
import { validateResume } from './resume.js';
import {
  afterFirstWait,
  afterTurn,
  pausedLife,
  resumeAsked,
  type SessionLife,
  type WakeView,
  startLife,
  turnStarted,
  wakeMove,
  waitsForResume,
} from './session-life.js';
import { localFirst } from './local-tools.js';
import { readSessionGeneration, type SessionGeneration } from './generation.js';
import { errorOf, runTurn, statusOf, type TurnHost, type TurnResult } from './turn.js';
import { newTurnControl, type TurnControl } from './turn-control.js';

export { FAST_TURN_PATCH, RESUME_PATCH, STATE_MACHINE_PATCH } from './generation.js';
/** Update ids of this run remembered for the next run (temporalio/temporal#6375 redelivery). */
const RECENT_UPDATES_KEPT = 1024;

/**
 * The session's orchestration state and its transitions (SE1–SE8, TD10,
 * BG6): one phase that drives what happens next, the durable FIFO inbox,
 * admission, the interrupt, the turn loop and continue-as-new. The workflow
 * function only wires Temporal handlers to it. Deterministic.
 *
 * Phases: `idle` ⇄ `running_turn` → `interrupting` → (turn ends) →
 * `idle` | `waiting_background` | `paused` | `blocked` | `closed`.
 */
export class SessionMachine implements TurnHost, QuestionHost, ManualCompactionHost {
  phase: SessionPhase = 'idle';
  activity: TurnActivity = 'idle';
  step = 0;
  settled: SettledOutcome[] = [];
  /** The session's description; `resume` may give it a new route or provider. */
  meta: SessionMeta;
  waitingForWorker?: SessionState['waitingForWorker'];
  readonly inbox: AdmittedInput[];
  readonly background: BackgroundTasks;
  /** Calls waiting for a person's decision, and the session-wide grants (issue 11). */
  readonly approvals: ApprovalBook;
  /** The session's questions (issue 11 item 5): published by the question tools, answered by Update. */
  readonly questions: QuestionDesk;
  /** A person's compactions (issue 28 item 4): between turns, one at a time. */
  readonly compactions: ManualCompaction;
  /** The current details an approval wait replaced, restored when none is pending. */
  private detailsBeforeApproval: string | null = null;
  /** The session's side of the Goal that drives it (DESIGN.md §3); null for an ordinary session. */
  readonly goal: GoalLink | null;
  /** What this run's generation does: its `patched()` outcomes, read once (generation.ts). */
  readonly generation: SessionGeneration;
  /** The session's life beside its phase: fresh, open, paused (waiting for `resume`) or cancelled (session-life.ts). */
  private life: SessionLife;
  turn: number;
  private nextInputSeq: number;
  private lastFinalText: string | null;
  private lastOutcome: TurnOutcome | null;
  private readonly clientIds: ClientIdTable;
  private readonly previousRunUpdates: Map<string, AdmissionReceipt>;
  private readonly recentUpdates = new Map<string, AdmissionReceipt>();
  private turnCtl: TurnControl | null = null;
  private takesSteering = false;
  /** An interrupt arrived between turns and stopped background tasks. */
  private idleInterrupted = false;
  private zunoStatus: ZunoStatusValue | null = null;
  /** Cache of {@link bytesOf}; entries of inputs that left the inbox are dropped when a turn takes them. */
  private readonly textBytes = new Map<string, number>();
  /** A reopened run whose first input has not been admitted yet: it must not close as idle before it. */
  private awaitingFirstInput: boolean;

  constructor(private readonly input: SessionWorkflowInput) {
    this.generation = readSessionGeneration();
    this.meta = input.meta;
    const c = input.carried;
    this.inbox = [...(c?.pending ?? [])];
    this.turn = c?.nextTurn ?? 0;
    this.nextInputSeq = c?.nextInputSeq ?? 0;
    this.lastFinalText = c?.lastFinalText ?? null;
    this.lastOutcome = c?.lastOutcome ?? null;
    this.clientIds = new ClientIdTable(this.meta.sessionId, c?.clientIds, c?.seenClientIds);
    this.previousRunUpdates = new Map(c?.recentUpdates ?? []);
    // A fresh (or reopened) session is started with ZunoStatus=running and its first input in the same call.
    this.life = startLife(c !== undefined, input.reopened === true);
    this.awaitingFirstInput = input.reopened === true;
    if (this.life.kind === 'fresh') this.zunoStatus = 'running';
    this.goal = this.meta.goal ? new GoalLink(this.meta.goal.goalId, c?.goal) : null;
    this.approvals = new ApprovalBook(c?.grants);
    this.questions = new QuestionDesk(this, c?.questions);
    this.compactions = new ManualCompaction(this);
    this.background = new BackgroundTasks({
      host: this,
      root: CancellationScope.current(),
      generation: this.generation,
      admitReport: (taskID, text) => {
        this.inbox.push({
          inputId: `in_${this.nextInputSeq++}`,
          text: `<background_report taskID="${taskID}">\n${escapeClosingTag(text, 'background_report')}\n</background_report>`,
          kind: 'report',
          taskID,
          admission: admissionStatusOf({ turnTakesSteering: this.takesSteering, queued: this.inbox.length }),
          admittedAtMs: Date.now(),
        });
      },
      revokeReport: (taskID) => {
        const at = this.inbox.findIndex((i) => i.kind === 'report' && i.taskID === taskID);
        if (at >= 0) this.inbox.splice(at, 1);
        return at >= 0;
      },
    });
  }

  /** Update validator of `submitInput`: throws a typed ApplicationFailure for a rejected input; records nothing. */
  validateInput(req: unknown): void {
    const d = decideAdmission(req, this.admissionView());
    if (d.kind === 'reject') throw ApplicationFailure.nonRetryable(d.message, d.code);
  }

  /** Update handler of `submitInput` (SE1, SE2): admits the input to the inbox, or returns the receipt it already has. */
  admit(req: { text: string; clientMessageId?: string }): AdmissionReceipt {
    const d = decideAdmission(req, this.admissionView());
    if (d.kind === 'reject') throw ApplicationFailure.nonRetryable(d.message, d.code);
    if (d.kind === 'duplicate') return d.receipt;
    const inputId = `in_${this.nextInputSeq++}`;
    this.awaitingFirstInput = false;
    const receipt: AdmissionReceipt = { inputId, sessionId: this.meta.sessionId, status: d.status, duplicate: false };
    this.inbox.push({
      inputId,
      text: req.text,
      admission: d.status,
      admittedAtMs: Date.now(),
      ...(req.clientMessageId !== undefined ? { clientMessageId: req.clientMessageId } : {}),
    });
    if (req.clientMessageId !== undefined) this.clientIds.remember(req.clientMessageId, receipt);
    const updateId = currentUpdateInfo()?.id;
    if (updateId) {
      this.recentUpdates.set(updateId, receipt);
      if (this.recentUpdates.size > RECENT_UPDATES_KEPT)
        this.recentUpdates.delete(this.recentUpdates.keys().next().value!);
    }
    return receipt;
  }

  /** Update validator of `interrupt`: a malformed request or a session that is ending is a typed rejection. */
  validateInterrupt(req: unknown): void {
    if (req !== undefined && (typeof req !== 'object' || req === null || Array.isArray(req))) {
      throw ApplicationFailure.nonRetryable('interrupt request must be an object {source?}', 'input_invalid');
    }
    const source = (req as InterruptRequest | undefined)?.source;
    if (source !== undefined && typeof source !== 'string') {
      throw ApplicationFailure.nonRetryable('interrupt.source must be a string when given', 'input_invalid');
    }
    if (this.isEnding()) {
      throw ApplicationFailure.nonRetryable(
        `the session is ${this.phase}; there is nothing to interrupt`,
        'session_closed',
      );
    }
  }

  /**
   * Update handler of `interrupt` (TD10): cancels the running turn's scope
   * (each running call gets its cooperative window, the force deadline
   * bounds the wait); between turns it stops the background tasks instead.
   */
  interrupt(req: InterruptRequest | undefined): InterruptReceipt {
    const seen = { sessionId: this.meta.sessionId, turn: this.turn, phase: this.activity, backgroundCancelled: [] };
    const ctl = this.turnCtl;
    if (!ctl) {
      // Idle: what runs is background work; stop it (a `zuno run` then ends as interrupted).
      const stopped = this.background.interruptAll();
      if (stopped.length > 0) this.idleInterrupted = true;
      return { ...seen, interrupted: stopped.length > 0, alreadyRequested: false, backgroundCancelled: stopped };
    }
    const alreadyRequested = ctl.interruptedAtMs !== null;
    if (!alreadyRequested) {
      ctl.interruptedAtMs = Date.now();
      if (typeof req?.source === 'string') ctl.interruptSource = req.source;
      this.activity = 'interrupting';
      this.enter('interrupting');
      setCurrentDetails(statusLine.interrupting(this.turn, Date.now()));
      ctl.scope.cancel();
    }
    return { ...seen, interrupted: true, alreadyRequested };
  }

  /**
   * The workflow was asked to cancel (its parent cancelled the delegation,
   * or a Council's deadline passed): an interrupt of whatever runs, and the
   * session closes as interrupted at its next wait (session.ts then ends
   * the workflow Cancelled). Idempotent.
   */
  cancel(): void {
    if (this.cancelled) return;
    this.life = { kind: 'cancelled' };
    if (!this.isEnding()) this.interrupt({ source: 'cancelled' });
  }

  /** Update validator of `resume`: only a paused session resumes; a malformed request is a typed rejection. */
  validateResume(req: unknown): void {
    validateResume(req, this.phase, this.life.kind === 'paused' && this.life.resumeAsked);
  }

  /**
   * Update handler of `resume`: the paused session runs its paused turn
   * again (the inputs it carried are answered by the resumed turn), served
   * by the route and provider the request names, if any.
   */
  resume(req: ResumeRequest | undefined): ResumeReceipt {
    this.life = resumeAsked(this.life);
    this.meta = withContext(
      {
        ...this.meta,
        ...(req?.route ? { route: req.route } : {}),
        ...(req?.provider ? { provider: req.provider } : {}),
        ...(req?.model ? { model: req.model } : {}),
      },
      req?.context,
    );
    const pausedBy = this.lastOutcome?.kind === 'paused' ? this.lastOutcome.reason : 'paused';
    return { sessionId: this.meta.sessionId, turn: this.turn, pausedBy };
  }

  /**
   * Signal handler of `goalDirective` (a Goal-bound session): the Goal's
   * status and revision, a continuation to run, and — for a Goal resumed
   * elsewhere — the session's new route and provider; a session paused with
   * its Goal resumes with it.
   */
  goalDirective(d: GoalDirective): void {
    if (!this.goal) return;
    this.goal.onDirective(d);
    this.meta = withContext(
      {
        ...this.meta,
        ...(d.route ? { route: d.route } : {}),
        ...(d.provider ? { provider: d.provider } : {}),
        ...(d.model ? { model: d.model } : {}),
      },
      d.context,
    );
    if (d.resumeSession) this.life = resumeAsked(this.life);
    if (d.answer && !this.inbox.some((i) => i.clientMessageId === d.answer!.requestId)) {
      // GL39: the answer is the person's own input (typed at `zuno goal answer`), keyed by the request it answers.
      this.inbox.push({
        inputId: `in_${this.nextInputSeq++}`,
        text: d.answer.text,
        clientMessageId: d.answer.requestId,
        admission: 'pending',
        admittedAtMs: Date.now(),
      });
    }
  }

  /**
   * A question's complete answer (QU3): admitted to the inbox once, as an
   * input the model reads — it wakes an idle session, or is steered into a
   * running turn like any input. Keyed `question:<questionId>` so the
   * projection links it to the question (QU12 delivery).
   */
  admitAnswer(q: QuestionView): string {
    const inputId = `in_${this.nextInputSeq++}`;
    this.awaitingFirstInput = false;
    this.inbox.push({
      inputId,
      text: answerText(q),
      clientMessageId: `question:${q.questionId}`,
      admission: admissionStatusOf({ turnTakesSteering: this.takesSteering, queued: this.inbox.length }),
      admittedAtMs: Date.now(),
    });
    return inputId;
  }

  /** QuestionHost: the id the next admitted input gets. */
  nextInputId(): string {
    return `in_${this.nextInputSeq}`;
  }

  /** QuestionHost: a closed or blocked session takes no more questions or answers. */
  ending(): boolean {
    return this.phase === 'closed' || this.phase === 'blocked';
  }

  /** Query `state`. */
  state(): SessionState {
    return {
      sessionId: this.meta.sessionId,
      ...(this.meta.route ? { route: this.meta.route } : {}),
      ...(this.waitingForWorker ? { waitingForWorker: this.waitingForWorker } : {}),
      phase: this.phase,
      activity: this.activity,
      turn: this.turn,
      step: this.step,
      pending: this.inbox.map((i) => ({
        inputId: i.inputId,
        admission: i.admission,
        ...(i.kind ? { kind: i.kind } : {}),
      })),
      background: this.background.ids(),
      lastFinalText: this.lastFinalText,
      lastOutcome: this.lastOutcome,
    };
  }

  /** TurnHost: the running turn takes no more steered input. */
  stopSteering(): void {
    this.takesSteering = false;
  }

  /**
   * The session's life: wait for input, run one turn per wake (SE3: one wake
   * claims every pending report at the head; a user input drives a turn
   * alone), continue-as-new when Temporal suggests it, end as the last turn
   * outcome says. Returns the result of a completed or interrupted session;
   * @throws ApplicationFailure (type = Zuno error code, details = [SessionResult])
   *   when the session ends failed, paused or blocked (sessions recorded before
   *   {@link STATE_MACHINE_PATCH} return those too).
   */
  async run(): Promise<SessionResult> {
    for (;;) {
      let ended: SessionResult | null;
      switch (this.life.kind) {
        case 'cancelled':
          return this.closeCancelled();
        case 'paused':
          await condition(() => !waitsForResume(this.life) && !this.compactions.busy);
          if (this.cancelled) continue;
          ended = await this.runOneTurn();
          break;
        default: {
          if (!this.readyToAct() && this.life.kind !== 'fresh') this.betweenTurns();
          this.life = afterFirstWait(this.life);
          // Always yield here, even when ready: an Update admitted in this activation completes first.
          await condition(() => this.readyToAct());
          switch (wakeMove(this.wakeView())) {
            case 'close_cancelled':
              continue;
            case 'close_idle':
              await this.questions.flush();
              return this.closeWhenIdle();
            case 'continuation': {
              const continuation = await this.goal!.takeContinuation();
              ended = continuation ? await this.runOneTurn(continuation) : null;
              break;
            }
            case 'between_turns':
              // Background work ended without a report (an idle interrupt consumed it): leave waiting_background first,
              // or readyToAct() stays true and this loop never yields (a goal's session: the worker dies of it).
              this.betweenTurns();
              continue;
            case 'continue_as_new':
              return this.continueAsNew();
            case 'turn':
              ended = await this.runOneTurn();
          }
        }
      }
      if (ended) return ended;
    }
  }

  /** The workflow was asked to cancel (a parent cancelling its child, issue 12): it ends as interrupted, then Cancelled. */
  get cancelled(): boolean {
    return this.life.kind === 'cancelled';
  }

  /** What the open session's loop sees when it wakes (session-life.ts `wakeMove`). */
  private wakeView(): WakeView {
    return {
      cancelled: this.cancelled,
      doneWhenIdle: this.doneWhenIdle(),
      inboxRunnable: this.inboxRunnable(),
      mayContinueAsNew: this.mayContinueAsNew(),
      hasContinuation: this.goal?.hasContinuation() ?? false,
    };
  }

  /** Continues as new once every handler finished (SE8): the inbox, ids, Goal link, grants and questions carried. */
  private async continueAsNew(): Promise<never> {
    await condition(allHandlersFinished);
    await this.questions.flush();
    const questions = this.questions.book.toCarried();
    return continueAsNew<(i: SessionWorkflowInput) => Promise<SessionResult>>({
      ...this.input,
      meta: this.meta,
      carried: {
        nextTurn: this.turn,
        nextInputSeq: this.nextInputSeq,
        pending: this.inbox,
        seenClientIds: [],
        clientIds: this.clientIds.toCarried(),
        // Updates of earlier runs too: the server may deliver one again more than one run later.
        recentUpdates: [...this.previousRunUpdates, ...this.recentUpdates].slice(-RECENT_UPDATES_KEPT),
        lastFinalText: this.lastFinalText,
        ...(this.lastOutcome ? { lastOutcome: this.lastOutcome } : {}),
        ...(this.goal ? { goal: this.goal.toCarried() } : {}),
        ...(this.approvals.grants().length > 0 ? { grants: this.approvals.grants() } : {}),
        ...(questions ? { questions } : {}),
      },
    });
  }

  /**
   * Runs the turn the inbox's head drives — or, with `continuation`, a Goal
   * continuation turn that takes no input (GL19) — and, in a Goal-bound
   * session, tells the Goal it started and how it ended; returns the
   * session's result when the session ends with it.
   */
  private async runOneTurn(continuation?: { continuationId: string; revision: number }): Promise<SessionResult | null> {
    this.takesSteering = true;
    this.enter('running_turn');
    const ctl = newTurnControl(this.generation.stateMachine ? INTERRUPT_FORCE_AFTER_MS : INTERRUPT_FORCE_AFTER_V1_MS);
    this.turnCtl = ctl;
    const started = turnStarted(this.life);
    this.life = started.life;
    const { resumed } = started;
    // A resumed or continuation turn takes nothing new: a resumed one answers the inputs its paused turn carried.
    const first = resumed.length > 0 || continuation ? [] : this.takeFromInbox();
    this.textBytes.clear(); // the inbox's remaining entries are re-measured on demand
    const goal = this.goal;
    const source = goal
      ? continuation
        ? { kind: 'continuation' as const, ...continuation }
        : goal.sourceOf(this.turn, first)
      : null;
    if (goal && source) await goal.report({ event: 'started', turn: this.turn, source });
    const run = await runTurn(this, ctl, this.turn, first, resumed, {
      ...(goal && continuation ? { continuation: { goalId: goal.goalId, revision: continuation.revision } } : {}),
      ...(source?.kind === 'discussion' ? { toolsDisabled: true } : {}),
    });
    this.turnCtl = null;
    const status = statusOf(run.outcome);
    const { pauses, ends } = afterTurn(status, {
      goalBound: goal !== null,
      resumablePause: this.generation.resumablePause,
      exitWhenIdle: this.input.exitWhenIdle,
    });
    // The session ends with this turn: from here on it admits nothing, and what waits is recorded, not dropped.
    const unrun = ends && this.generation.stateMachine ? this.stopAdmitting(status) : [];
    const finished = await this.finishTurn({
      sessionId: this.meta.sessionId,
      turn: this.turn,
      ...(goal ? { goalId: goal.goalId } : {}),
      ...run.finish,
      ...(this.background.busy() ? { background: this.background.ids() } : {}),
      ...(unrun.length > 0 ? { unrun } : {}),
    });
    this.settled = [];
    this.lastFinalText = finished.finalText;
    this.lastOutcome = run.outcome;
    this.activity = 'idle';
    if (goal && source) await goal.report(this.endedReport(run, source, finished));
    this.turn += 1;
    if (pauses) this.pause(run.outcome.inputIds);
    if (!ends) return null;
    await this.background.stopAll();
    await condition(allHandlersFinished);
    await this.questions.flush();
    return this.close(status);
  }

  /** The `goalTurn` report of a turn that ended (GL10–GL26): its outcome, what it spent, the work state it left. */
  private endedReport(
    run: TurnResult,
    source: GoalTurnSource,
    finished: Awaited<ReturnType<SessionActivities['finishTurn']>>,
  ): GoalTurnReport {
    return {
      event: 'ended',
      turn: this.turn,
      source,
      outcome: run.outcome,
      ...run.spent,
      background: { running: this.background.ids(), remoteObservers: this.background.remoteObservers() },
      progress: finished.work?.fingerprint ?? '',
      workRemains: finished.work?.remains ?? false,
      ...(run.outcome.kind === 'failed' && run.outcome.retryAfterMs !== undefined
        ? { retryAfterMs: run.outcome.retryAfterMs }
        : {}),
    };
  }

  /**
   * The inputs the next turn takes (SE3): every report at the head in one
   * wake, else the one user input at the head. While the session's Goal
   * forbids reports to wake a turn (GL28: paused, blocked, out of budget),
   * the first user input is taken and the reports stay queued.
   */
  private takeFromInbox(): AdmittedInput[] {
    if (this.goal && !this.goal.reportsMayWake()) {
      const at = this.inbox.findIndex((i) => i.kind !== 'report');
      return at < 0 ? [] : this.inbox.splice(at, 1);
    }
    const head = this.inbox[0]?.kind === 'report' ? this.inbox.findIndex((i) => i.kind !== 'report') : 1;
    return this.inbox.splice(0, head < 0 ? this.inbox.length : head);
  }

  /** Something in the inbox can drive a turn now (queued reports of a Goal that forbids them cannot). */
  private inboxRunnable(): boolean {
    if (this.inbox.length === 0) return false;
    return !this.goal || this.goal.reportsMayWake() || this.inbox.some((i) => i.kind !== 'report');
  }

  /**
   * The session is ending with status `status`: moves to its final phase (so
   * the validators refuse new input and interrupts) and takes the inputs
   * still waiting — they have receipts; finishTurn records them cancelled.
   * ZunoStatus is upserted by {@link close}.
   */
  private stopAdmitting(status: SessionResult['status']): AdmittedInput[] {
    this.phase = status === 'paused' ? 'paused' : status === 'blocked' ? 'blocked' : 'closed';
    return this.inbox.splice(0, this.inbox.length);
  }

  /** The session was cancelled between turns: what waits is recorded cancelled, background work stopped, the end recorded interrupted. */
  private async closeCancelled(): Promise<SessionResult> {
    const unrun = this.stopAdmitting('interrupted');
    await this.background.stopAll();
    await this.finishTurn({
      sessionId: this.meta.sessionId,
      status: 'interrupted',
      turn: this.turn,
      step: 0,
      inputIds: [],
      ...(unrun.length > 0 ? { unrun } : {}),
    });
    await condition(allHandlersFinished);
    await this.questions.flush();
    return this.close('interrupted');
  }

  /** `zuno run`'s end: a turn has run, nothing is queued and no background task can still report. */
  private async closeWhenIdle(): Promise<SessionResult> {
    if (!this.idleInterrupted) return this.close('completed');
    await this.finishTurn({
      sessionId: this.meta.sessionId,
      status: 'interrupted',
      turn: this.turn,
      step: 0,
      inputIds: [],
    });
    return this.close('interrupted');
  }

  /** Ends the session: the final ZunoStatus, and a Failed workflow for failed, paused and blocked sessions. */
  private close(status: SessionResult['status']): SessionResult {
    const error = this.lastOutcome && status !== 'completed' ? errorOf(this.lastOutcome) : undefined;
    const result: SessionResult = {
      sessionId: this.meta.sessionId,
      status,
      turns: this.turn,
      ...(error ? { error } : {}),
      ...(this.lastOutcome ? { outcome: this.lastOutcome } : {}),
    };
    if (!this.generation.stateMachine) return result;
    this.enter(status === 'paused' ? 'paused' : status === 'blocked' ? 'blocked' : 'closed', status);
    setCurrentDetails(statusLine.closed(this.turn, this.lastOutcome));
    if (status === 'completed' || status === 'interrupted') return result;
    const summary = this.lastOutcome ? describeOutcome(this.lastOutcome) : status;
    throw ApplicationFailure.create({
      type: error?.code ?? `session_${status}`,
      message: `session ${summary}`,
      details: [result],
      nonRetryable: true,
    });
  }

  /**
   * The `finishTurn` activity, on the session's route; in a fast turn
   * ({@link FAST_TURN_PATCH}) first as a local activity in this worker, when
   * it serves the route (finishTurn's writes are idempotent: the regular
   * activity that follows a failed attempt records the same turn end).
   */
  private finishTurn(
    input: Parameters<SessionActivities['finishTurn']>[0],
  ): ReturnType<SessionActivities['finishTurn']> {
    const startToCloseTimeout = this.meta.activityDefaults.projection.startToCloseTimeoutMs;
    // A fast turn's regular activity (after a refused local attempt) carries the local one's summary in the UI.
    const summary = this.generation.fastTurn ? `turn ${input.turn + 1} · finish (${input.status})` : undefined;
    const regular = () =>
      onRoute(this, (o) =>
        proxyActivities<SessionActivities>({ startToCloseTimeout, ...(summary ? { summary } : {}), ...o }).finishTurn(
          input,
        ),
      );
    if (!summary) return regular();
    const localOn = this.meta.route?.taskQueue ?? workflowInfo().taskQueue;
    return localFirst('finishTurn', summary, { ...input, localOn }, regular);
  }

  /**
   * The turn paused (PR3: a person must act, e.g. set the API key): the
   * workflow stays open in phase `paused` until a `resume` Update; inputs
   * admitted before stay queued, new ones are refused until then.
   */
  private pause(inputIds: string[]): void {
    this.life = pausedLife(this.life, inputIds);
    this.enter('paused');
    setCurrentDetails(statusLine.paused(this.turn, this.lastOutcome, this.meta.sessionId));
  }

  /** Between turns: `waiting_background` while background tasks still run (they will report), else `idle`. */
  private betweenTurns(): void {
    this.enter(this.background.busy() ? 'waiting_background' : 'idle');
    setCurrentDetails(
      statusLine.idle(this.turn, this.lastOutcome, this.background.ids(), Date.now(), this.background.labels()),
    );
  }

  /** Moves to `phase` and, in sessions under {@link STATE_MACHINE_PATCH}, upserts `ZunoStatus` when it changes. */
  private enter(phase: SessionPhase, closedAs?: SessionResult['status']): void {
    this.phase = phase;
    if (!this.generation.stateMachine) return;
    const status: ZunoStatusValue =
      phase === 'running_turn'
        ? 'running'
        : phase === 'closed'
          ? (closedAs ?? 'completed')
          : phase === 'interrupting' || phase === 'paused' || phase === 'blocked' || phase === 'waiting_background'
            ? phase
            : 'idle';
    this.upsertZunoStatus(status);
  }

  private upsertZunoStatus(status: ZunoStatusValue): void {
    if (status === this.zunoStatus) return;
    this.zunoStatus = status;
    upsertSearchAttributes([{ key: ZunoStatus, value: status }]);
  }

  /**
   * The pending approvals changed (permission-gate.ts): while any waits,
   * ZunoStatus is `waiting_approval` and the current details name the
   * oldest (`waiting for approval: shell: rm -rf build`); after the last,
   * the turn's own status and details come back.
   */
  approvalsChanged(): void {
    const line = approvalLine(this.approvals.list());
    if (line !== null) {
      if (this.detailsBeforeApproval === null) this.detailsBeforeApproval = getCurrentDetails();
      setCurrentDetails(line);
      this.upsertZunoStatus('waiting_approval');
      return;
    }
    if (this.detailsBeforeApproval !== null) setCurrentDetails(this.detailsBeforeApproval);
    this.detailsBeforeApproval = null;
    this.enter(this.phase);
  }

  private readyToAct(): boolean {
    if (this.cancelled) return true;
    // A person's compaction is asked for or running: no turn starts before it is over.
    if (this.compactions.busy) return false;
    return (
      this.inboxRunnable() ||
      (this.goal?.hasContinuation() ?? false) ||
      this.mayContinueAsNew() ||
      this.doneWhenIdle() ||
      (this.generation.stateMachine && this.phase === 'waiting_background' && !this.background.busy())
    );
  }

  /** ManualCompactionHost: a turn runs now. */
  turnRunning(): boolean {
    return this.phase === 'running_turn' || this.phase === 'interrupting';
  }

  /** ManualCompactionHost: reads the compaction generation where a manual compaction is about to run. */
  compactionAllowed(): boolean {
    return this.generation.compaction;
  }

  /** ManualCompactionHost: the current details of the phase the session is in. */
  restoreDetails(): void {
    if (this.phase === 'paused') setCurrentDetails(statusLine.paused(this.turn, this.lastOutcome, this.meta.sessionId));
    else if (!this.turnRunning())
      setCurrentDetails(
        statusLine.idle(this.turn, this.lastOutcome, this.background.ids(), Date.now(), this.background.labels()),
      );
  }

  private doneWhenIdle(): boolean {
    return (
      this.input.exitWhenIdle &&
      this.turn > 0 &&
      (!this.goal || this.goal.ended()) &&
      !this.awaitingFirstInput &&
      this.inbox.length === 0 &&
      !this.background.busy()
    );
  }

  /** Background tasks pin the run: continue-as-new cannot carry a running activity. */
  private mayContinueAsNew(): boolean {
    return workflowInfo().continueAsNewSuggested && !this.background.busy();
  }

  private isEnding(): boolean {
    return this.phase === 'closed' || this.phase === 'paused' || this.phase === 'blocked';
  }

  /** UTF-8 size of an inbox input's text, measured once per input (admission checks the queue on every Update). */
  private bytesOf(i: AdmittedInput): number {
    let n = this.textBytes.get(i.inputId);
    if (n === undefined) {
      n = utf8ByteLength(i.text);
      this.textBytes.set(i.inputId, n);
    }
    return n;
  }

  private admissionView(): AdmissionView {
    const updateId = currentUpdateInfo()?.id;
    const redelivered = updateId ? this.previousRunUpdates.get(updateId) : undefined;
    return {
      phase: this.phase,
      turnTakesSteering: this.takesSteering,
      queued: this.inbox.length,
      queuedBytes: this.inbox.reduce((sum, i) => sum + this.bytesOf(i), 0),
      clientIds: this.clientIds,
      ...(redelivered ? { redelivered } : {}),
    };
  }
}
