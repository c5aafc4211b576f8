import { withContext } from '../core/compaction/settings.js';
import {
  CancellationScope,
  allHandlersFinished,
  isCancellation,
  condition,
  continueAsNew,
  currentUpdateInfo,
  getExternalWorkflowHandle,
  log,
  proxyActivities,
  setCurrentDetails,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import { budgetStop } from '../core/goal/budgets.js';
import {
  GOAL_DIRECTIVE_SIGNAL,
  type GoalControlRequest,
  type GoalControlResult,
  type GoalDirective,
  type GoalRequestInputRequest,
  type GoalRequestInputResult,
  type GoalSnapshot,
  type GoalTransition,
  type GoalTurnReport,
  type GoalUpdateRequest,
  type GoalUpdateResult,
  type GoalWorkflowInput,
} from '../core/goal/contract.js';
import type { GoalActivities } from '../core/goal/activities.js';
import { ADVANCING, type GoalState, TERMINAL_GOAL_STATUSES } from '../core/goal/status.js';
import { ZunoGoalStatus } from '../core/search-attributes.js';
import type { SessionMeta } from '../core/session/meta.js';
import type { SessionState } from '../core/session/state.js';
import { applyControl, validateControl } from './goal-control.js';
import { decideAfterTurn } from './goal-decide.js';
import { goalStatusLine } from './goal-status-line.js';
import { applyGoalUpdate } from './goal-update.js';
import { turnEndPath, turnStarted } from './goal-turns.js';
import { sameState, transitionOf } from '../core/goal/transitions.js';
import { onRoute, type RouteHost } from './route.js';
import {
  checkWatch,
  resumedState,
  sessionDue,
  startWatchedSession,
  watchDeadline,
  watchedStart,
  withReport,
} from './goal-watch.js';

/** How long a completed Goal waits for the turn that completed it to report its end, in ms. */
const COMPLETING_TURN_WAIT_MS = 10 * 60_000;
/** Results of Updates remembered for a repeated command (and carried across continue-as-new). */
const RECENT_KEPT = 256;

type Result = GoalUpdateResult | GoalControlResult | GoalRequestInputResult;

/** What the next flush shows: the notice, the directive's extras, and whether the row and the session hear of it. */
interface Pending {
  notice?: { code: string; message: string };
  directive: Omit<GoalDirective, 'revision' | 'status'>;
  /** Write the projection row (`recordGoal`). */
  record: boolean;
  /** Signal the session (not before its first turn started: the client starts the session after the Goal). */
  signal: boolean;
}

/**
 * The `goal` workflow's state and transitions (DESIGN.md §3 Goal row,
 * GL1–GL40): it owns the objective, revision, status with its typed reason,
 * budgets and what they spent, the progress fingerprint, the backoff
 * deadline; it drives continuation turns on its session (`goalDirective`
 * signals) and decides after each of the session's `goalTurn` reports.
 * Every wait is a workflow timer or condition: a backoff, the time budget,
 * `waiting_background`. Deterministic.
 */
export class GoalMachine implements RouteHost {
  snap: GoalSnapshot;
  /** The Goal's session (its route and provider: where `recordGoal` runs; a resume may move it). */
  meta: SessionMeta;
  waitingForWorker?: SessionState['waitingForWorker'];
  private attempt: number;
  private outstanding: string | null;
  private nextContinuation: number;
  private turnRunning: boolean;
  /** The running turn started while the Goal was advancing (it spends the Goal's budget, GL28). */
  private ownedTurn = false;
  private readonly reports: GoalTurnReport[] = [];
  private readonly recent: Map<string, Result>;
  /** Something changed that the projection, the session and the Temporal UI have not seen yet. */
  private pending: Pending | null = null;
  private lastStatus: GoalState['status'] | null = null;
  /** Status transitions not yet handed to `recordGoal` (the audit trail, issue 26 item 7). */
  private unrecorded: GoalTransition[];

  constructor(private readonly input: GoalWorkflowInput) {
    const c = input.carried;
    this.meta = input.session;
    this.attempt = c?.attempt ?? 0;
    this.outstanding = c?.outstanding ?? null;
    this.nextContinuation = c?.nextContinuation ?? 0;
    this.turnRunning = c?.turnRunning ?? false;
    this.recent = new Map(c?.recent ?? []);
    this.lastStatus = c ? c.snapshot.state.status : 'active'; // the client started the Goal with ZunoGoalStatus=active
    // The goal's clock is the workflow's (the time budget is measured with it): its start, not the client's clock.
    const createdAtMs = workflowInfo().startTime.getTime();
    this.snap = c?.snapshot ?? {
      goalId: input.goalId,
      sessionId: input.session.sessionId,
      objective: input.objective,
      revision: 1,
      state: { status: 'active' },
      budgets: input.budgets,
      spent: { tokens: 0, unmeasuredRequests: 0, toolCalls: 0, turns: 0 },
      criteria: input.criteria.map((k, i) => ({ id: `cr_${i + 1}`, ...k, status: 'pending' as const })),
      progress: { fingerprint: null, repeats: 0 },
      createdAtMs,
      updatedAtMs: createdAtMs,
    };
    // Issue 31: a watched Goal waits on its watch first; its session starts when the watch reports.
    if (!c && input.watch) this.snap = watchedStart(this.snap, input.watch);
    if (!c && input.watch) this.lastStatus = 'waiting_watch';
    this.unrecorded = c?.unrecorded ?? [];
    if (!c) {
      this.pending = { directive: {}, record: true, signal: false };
      this.unrecorded.push(transitionOf(null, this.snap, 'zuno goal start'));
    }
  }

  /** Signal handler of `goalTurn`: queued, handled by the main loop in order. */
  onTurn(r: GoalTurnReport): void {
    this.reports.push(r);
  }

  /** Query `goal`. */
  query(): GoalSnapshot {
    return this.snap;
  }

  /** Update validator of `goalControl`: throws a typed ApplicationFailure; records nothing. */
  validateControl(req: unknown): void {
    const id = (req as { commandId?: unknown } | null)?.commandId;
    if (typeof id === 'string' && this.recent.has(id)) return;
    validateControl(req, this.snap);
  }

  /** Update handler of `goalControl` (a person: pause, resume, cancel, answer, edit, budgets). */
  control(req: GoalControlRequest): GoalControlResult {
    const seen = this.recent.get(req.commandId);
    if (seen) return seen as GoalControlResult;
    const out = applyControl(this.snap, req, Date.now());
    if (out.next) out.next = { ...out.next, state: resumedState(out.next, out.next.state) };
    if (out.next) {
      this.note(this.snap.state, out.next, `${req.by ?? 'a person'}: goal ${req.action}`);
      this.snap = out.next;
      if (out.next.state.status === 'active') this.attempt = 0;
      if (req.action === 'resume' && req.choice === 'resume') {
        if (req.route || req.provider || req.model) {
          this.meta = withContext(
            {
              ...this.meta,
              ...(req.route ? { route: req.route } : {}),
              ...(req.provider ? { provider: req.provider } : {}),
              ...(req.model ? { model: req.model } : {}),
            },
            req.context,
          );
        }
      }
      this.changed({
        ...out.directive,
        ...(req.action === 'resume' && req.route ? { route: req.route } : {}),
        ...(req.action === 'resume' && req.provider ? { provider: req.provider } : {}),
        ...(req.action === 'resume' && req.model ? { model: req.model } : {}),
        ...(req.action === 'resume' && req.context !== undefined ? { context: req.context } : {}),
      });
    }
    const waitsAgain = req.action === 'resume' && this.snap.state.status === 'waiting_watch';
    const result: GoalControlResult = {
      goalId: this.snap.goalId,
      revision: this.snap.revision,
      status: this.snap.state.status,
      message: waitsAgain ? 'the goal waits on its release watch again; its next check runs now' : out.message,
    };
    this.remember(req.commandId, result);
    return result;
  }

  /**
   * Update handler of `goalUpdate` (the `goal_update` tool, GL30): the
   * criteria changes and the completion commit together, or nothing does.
   */
  update(req: GoalUpdateRequest): GoalUpdateResult {
    const id = currentUpdateInfo()?.id;
    const seen = id ? this.recent.get(id) : undefined;
    if (seen) return seen as GoalUpdateResult;
    const out = applyGoalUpdate(this.snap, req, Date.now());
    if (out.next) {
      const cited = out.next.criteria.flatMap((c) => (c.evidence ? [c.evidence.receiptId] : []));
      this.note(this.snap.state, out.next, `the model: goal_update in turn ${req.turn}`, cited);
      this.snap = out.next;
      this.changed({});
    } else if (out.audit) {
      this.snap = { ...this.snap, lastAudit: out.audit };
    }
    if (id) this.remember(id, out.result);
    return out.result;
  }

  /** Update handler of `goalRequestInput` (GL39): the Goal pauses `required_input`, bound to the observed revision. */
  requestInput(req: GoalRequestInputRequest): GoalRequestInputResult {
    const id = currentUpdateInfo()?.id;
    const seen = id ? this.recent.get(id) : undefined;
    if (seen) return seen as GoalRequestInputResult;
    const s = this.snap;
    let result: GoalRequestInputResult;
    if (req.expectedRevision !== s.revision) {
      result = {
        ok: false,
        code: 'stale_revision',
        message: `the goal is at revision ${s.revision}, not ${req.expectedRevision}: call goal_get and ask again if still needed`,
        revision: s.revision,
        status: s.state.status,
      };
    } else if (s.state.status !== 'active') {
      result = {
        ok: false,
        code: 'goal_not_active',
        message: `the goal is ${s.state.status}; only an active goal asks for input`,
        revision: s.revision,
        status: s.state.status,
      };
    } else {
      const requestId = `rq_${req.callId}`;
      const from = s.state;
      this.snap = {
        ...s,
        revision: s.revision + 1,
        updatedAtMs: Date.now(),
        state: { status: 'paused', reason: 'required_input', message: req.question },
        question: { requestId, text: req.question, revision: s.revision + 1 },
      };
      this.note(from, this.snap, `the model: goal_request_input (call ${req.callId})`);
      this.changed({});
      result = { ok: true, requestId, revision: this.snap.revision };
    }
    if (id) this.remember(id, result);
    return result;
  }

  /**
   * The Goal's life: record its start, then handle turn reports, person
   * controls and deadlines until it completes or is cancelled; returns the
   * final snapshot. Continues-as-new when Temporal suggests it between turns.
   */
  async run(): Promise<GoalSnapshot> {
    try {
      return await this.loop();
    } catch (err) {
      if (!isCancellation(err) || TERMINAL_GOAL_STATUSES.has(this.snap.state.status)) throw err;
      // Cancelled from Temporal (the UI's Request Cancellation, `temporal workflow cancel`): the goal is
      // cancelled like any other — recorded, its session told — and the workflow ends Canceled.
      await CancellationScope.nonCancellable(async () => {
        this.transition({ status: 'cancelled', by: 'temporal' }, 'Temporal: the workflow was cancelled');
        while (this.pending) await this.flush();
      });
      throw err;
    }
  }

  private async loop(): Promise<GoalSnapshot> {
    for (;;) {
      // Until nothing is left to show: an Update handled while a flush awaited its activity or signal changed more.
      while (this.pending) await this.flush();
      if (TERMINAL_GOAL_STATUSES.has(this.snap.state.status)) {
        if (this.reports.length > 0) {
          // Reports queued in the activation that ended the Goal (a worker lost, one task delivers both the
          // completing turn's `started` and its `goal_update`): handled first, so that turn's end is awaited.
          while (this.reports.length > 0) this.handle(this.reports.shift()!);
          continue;
        }
        if (this.snap.state.status === 'completed' && this.turnRunning) {
          // The turn that completed the Goal is still ending: what it spent is counted when it reports.
          if (await condition(() => this.reports.length > 0, COMPLETING_TURN_WAIT_MS)) {
            while (this.reports.length > 0) this.handle(this.reports.shift()!);
          } else this.turnRunning = false;
          continue;
        }
        await condition(allHandlersFinished);
        return this.snap;
      }
      if (workflowInfo().continueAsNewSuggested && !this.turnRunning && this.reports.length === 0) {
        await condition(allHandlersFinished);
        await continueAsNew<(i: GoalWorkflowInput) => Promise<GoalSnapshot>>({
          ...this.input,
          session: this.meta,
          carried: {
            snapshot: this.snap,
            attempt: this.attempt,
            outstanding: this.outstanding,
            nextContinuation: this.nextContinuation,
            turnRunning: this.turnRunning,
            recent: [...this.recent].slice(-RECENT_KEPT),
            ...(this.unrecorded.length > 0 ? { unrecorded: this.unrecorded } : {}),
          },
        });
      }
      const deadline = this.nextDeadline();
      const ready = () => this.reports.length > 0 || this.pending !== null;
      if (deadline === null) await condition(ready);
      else if (deadline > Date.now()) await condition(ready, deadline - Date.now());
      while (this.reports.length > 0) this.handle(this.reports.shift()!);
      this.checkDeadlines();
      await this.advanceWatch();
    }
  }

  /**
   * Issue 31: runs the watch's check when it is due, moves the Goal on its
   * report (matched: `active`; timed out: `blocked watch_timed_out`), and
   * starts the session of a watched Goal that became active.
   */
  private async advanceWatch(): Promise<void> {
    const due = watchDeadline(this.snap);
    if (due !== null && Date.now() >= due) {
      const w = await checkWatch(this, this.snap, Date.now());
      if (this.snap.state.status !== 'waiting_watch') return; // paused or cancelled while it ran: nothing changes
      const seen = this.snap.watch?.last;
      this.snap = w.report ? withReport(this.snap, w) : { ...this.snap, watch: w };
      const r = w.report;
      if (r?.outcome === 'matched')
        this.transition({ status: 'active' }, `the release watch (matched after ${r.attempts} checks)`, [r.reportId]);
      else if (r) {
        const message = `the watch of ${r.url} saw no ${r.until} in ${r.attempts} checks`;
        this.transition({ status: 'blocked', code: 'watch_timed_out', message }, 'the release watch (timed out)');
      } else if (seen?.status !== w.last?.status || seen?.error !== w.last?.error || w.attempts === 1)
        this.changed({}, { record: true, signal: false }); // what the checks see changed: `goal show` says it
      else this.changed({}, { record: false, signal: false }); // the current details show the next check
      while (this.pending) await this.flush();
    }
    if (sessionDue(this.snap)) {
      try {
        await startWatchedSession(this, this.snap);
        this.snap = { ...this.snap, watch: { ...this.snap.watch!, sessionStarted: true } };
        this.changed({}, { record: true, signal: false });
      } catch (err) {
        const message = `the goal's session could not be started: ${String((err as Error).message ?? err).slice(0, 200)}`;
        this.transition({ status: 'blocked', code: 'session_gone', message }, 'the release watch');
      }
    }
  }

  /**
   * The next instant the Goal must act by itself: the backoff's end or the
   * time budget's, whichever comes first — a budget that runs out during a
   * backoff stops the Goal then, not when the backoff ends.
   */
  private nextDeadline(): number | null {
    const st = this.snap.state;
    const times: number[] = [];
    if (st.status === 'backoff') times.push(st.untilMs);
    if (this.snap.budgets.timeMs !== undefined && (ADVANCING.has(st.status) || st.status === 'waiting_watch'))
      times.push(this.snap.createdAtMs + this.snap.budgets.timeMs);
    const watch = watchDeadline(this.snap);
    if (watch !== null) times.push(watch);
    return times.length > 0 ? Math.min(...times) : null;
  }

  private checkDeadlines(): void {
    const now = Date.now();
    const st = this.snap.state;
    const stop = budgetStop(this.snap.budgets, {
      tokens: 0,
      turnTokens: 0,
      toolCalls: 0,
      elapsedMs: now - this.snap.createdAtMs,
    });
    if (
      stop?.kind === 'time_budget' &&
      (st.status === 'active' ||
        st.status === 'waiting_background' ||
        st.status === 'backoff' ||
        st.status === 'waiting_watch')
    ) {
      this.transition({ status: 'budget_limited', kind: 'time_budget', message: stop.message }, 'the time budget');
      this.pending!.notice = { code: stop.notice, message: stop.message };
      return;
    }
    if (st.status === 'backoff' && now >= st.untilMs) this.transition({ status: 'active' }, 'the backoff timer');
  }

  private handle(r: GoalTurnReport): void {
    const st = this.snap.state.status;
    if (r.event === 'voided') {
      if (r.continuationId === this.outstanding) this.outstanding = null;
      log.info('continuation voided', { continuationId: r.continuationId, reason: r.reason });
      if (st === 'active') this.changed({});
      return;
    }
    if (r.event === 'started') {
      this.turnRunning = true;
      if (r.source.kind === 'continuation' && r.source.continuationId === this.outstanding) this.outstanding = null;
      const started = turnStarted(st, r.source);
      this.ownedTurn = started.owned;
      // GL5: user input ends a backoff early — the Goal is active again and this turn is its work.
      if (started.endsBackoff) this.transition({ status: 'active' }, `${started.endsBackoff} (turn ${r.turn})`);
      else this.changed({}, { record: false, signal: false }); // the current details show the running turn
      return;
    }
    this.turnRunning = false;
    const path = turnEndPath(st, this.ownedTurn, r.source);
    if (path === 'count') {
      // The turn that completed the Goal ended: its spending is counted, nothing else follows.
      const d = decideAfterTurn(this.snap, r, this.attempt, Date.now(), () => 0);
      this.snap = { ...this.snap, spent: d.spent, updatedAtMs: Date.now() };
      this.changed({}, { record: true, signal: false });
      return;
    }
    if (path === 'ignore') {
      // GL28: a turn the Goal does not own spends nothing of it and resumes nothing; but a Goal resumed while
      // it ran has waited for it to end before continuing.
      this.changed({}, { record: false, signal: st === 'active' });
      return;
    }
    // eslint-disable-next-line no-restricted-properties -- Temporal seeds a workflow's Math.random: the jitter replays
    const d = decideAfterTurn(this.snap, r, this.attempt, Date.now(), Math.random);
    this.attempt = d.attempt;
    this.snap = {
      ...this.snap,
      spent: d.spent,
      progress: d.progress,
      ...(d.uncertain ? { uncertain: d.uncertain } : {}),
    };
    if (d.state.status !== this.snap.state.status || d.state.status === 'paused')
      this.transition(d.state, `turn ${r.turn} ended (${r.outcome.kind})`);
    else this.changed({});
    if (d.notice) this.pending!.notice = d.notice;
  }

  /** Moves to `state` (the revision moves with it: a prepared continuation is void, GL19), caused by `by`. */
  private transition(state: GoalState, by: string, evidence: string[] = []): void {
    const from = this.snap.state;
    this.snap = { ...this.snap, state, revision: this.snap.revision + 1, updatedAtMs: Date.now() };
    // The release watch's report is the evidence of the move it causes (its criterion's receipt).
    if (evidence.length > 0 && !sameState(from, state))
      this.unrecorded.push(transitionOf(from, this.snap, by, evidence));
    else this.note(from, this.snap, by);
    this.changed({});
  }

  /** Adds the move from `from` to `next`'s state to the audit trail when the status or its reason changed. */
  private note(from: GoalState, next: GoalSnapshot, by: string, evidence: string[] = []): void {
    if (sameState(from, next.state)) return;
    this.unrecorded.push(transitionOf(from, next, by, next.state.status === 'completed' ? evidence : []));
  }

  private changed(
    directive: Omit<GoalDirective, 'revision' | 'status'>,
    show: { record: boolean; signal: boolean } = { record: true, signal: true },
  ): void {
    const p = this.pending;
    this.pending = {
      ...(p?.notice ? { notice: p.notice } : {}),
      directive: { ...p?.directive, ...directive },
      record: show.record || (p?.record ?? false),
      signal: show.signal || (p?.signal ?? false),
    };
  }

  private remember(id: string, r: Result): void {
    this.recent.set(id, r);
    if (this.recent.size > RECENT_KEPT) this.recent.delete(this.recent.keys().next().value!);
  }

  /**
   * Shows what changed: `ZunoGoalStatus`, the current details, the projection
   * row and its event (`recordGoal`, on the session's route), and a
   * directive to the session — with a continuation when the Goal is active,
   * no turn runs and none is outstanding (GL22).
   */
  private async flush(): Promise<void> {
    const p = this.pending;
    if (!p) return;
    this.pending = null;
    const s = this.snap;
    if (s.state.status !== this.lastStatus) {
      this.lastStatus = s.state.status;
      upsertSearchAttributes([{ key: ZunoGoalStatus, value: s.state.status }]);
    }
    // A watched Goal's session does not exist until its watch reported (advanceWatch starts it): nothing to signal.
    const unstarted = s.watch !== undefined && !s.watch.sessionStarted;
    const continueWith =
      p.signal &&
      !unstarted &&
      s.state.status === 'active' &&
      !this.turnRunning &&
      this.outstanding === null &&
      !p.directive.answer &&
      !p.directive.resumeSession
        ? { continuationId: `gc_${++this.nextContinuation}` }
        : undefined;
    if (continueWith) this.outstanding = continueWith.continuationId;
    setCurrentDetails(goalStatusLine(s, { turnRunning: this.turnRunning, nowMs: Date.now() }));
    const startToCloseTimeout = this.meta.activityDefaults.projection.startToCloseTimeoutMs;
    if (p.record) {
      const transitions = this.unrecorded.slice();
      await onRoute(this, (o) =>
        proxyActivities<GoalActivities>({ startToCloseTimeout, ...o }).recordGoal({
          snapshot: s,
          ...(p.notice ? { notice: p.notice } : {}),
          ...(transitions.length > 0 ? { transitions } : {}),
        }),
      );
      // Recorded: those leave the buffer (more may have come while the activity ran).
      this.unrecorded.splice(0, transitions.length);
    }
    if (!p.signal || unstarted) return;
    const directive: GoalDirective = {
      revision: s.revision,
      status: s.state.status,
      ...p.directive,
      ...(continueWith ? { continueWith } : {}),
      ...(s.state.status === 'paused' && s.state.reason === 'uncertain_side_effect' ? { toolsDisabled: true } : {}),
    };
    try {
      await getExternalWorkflowHandle(`session/${s.sessionId}`).signal(GOAL_DIRECTIVE_SIGNAL, directive);
    } catch (err) {
      // The session's workflow is not running (it closed, or was never started): nothing to direct.
      if (continueWith) this.outstanding = null;
      log.warn('goal directive not delivered', { sessionId: s.sessionId, error: String(err) });
      if (s.state.status === 'active' && !this.turnRunning) {
        this.transition(
          {
            status: 'blocked',
            code: 'session_gone',
            message: `the goal's session ${s.sessionId} is not running`,
          },
          'the session was not running',
        );
      }
    }
  }
}
