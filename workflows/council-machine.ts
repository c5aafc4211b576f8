import {
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  ChildWorkflowCancellationType,
  condition,
  isCancellation,
  proxyActivities,
  setCurrentDetails,
  upsertSearchAttributes,
  uuid4,
} from '@temporalio/workflow';
import {
  type CouncilActivities,
  type CouncilResult,
  type CouncilStatus,
  type CouncilWorkflowInput,
  durationText,
  NO_USAGE,
  type PrepareCouncilResult,
  type SeatAttempt,
  type SeatRecord,
  type SeatStatus,
  seatSummary,
} from '../core/council/contract.js';
import { BALANCED_REVIEW, type CouncilPreset } from '../core/council/preset.js';
import { seatPrompt } from '../core/council/prompt.js';
import { childMeta, childSessionIdOf, type ChildEnd } from '../core/delegation/contract.js';
import { ZunoCouncilStatus } from '../core/search-attributes.js';
import type { SessionMeta } from '../core/session/meta.js';
import type { SessionState } from '../core/session/state.js';
import { inertLine } from '../core/terminal-text.js';
import { declaredTools } from '../core/tools/registry.js';
import { councilGeneration } from './generation.js';
import { type AttemptEnd, reportQuery, seatRetries, settleAttempt } from './council-seat.js';
import { childEndOfFailure, childEndOfResult, startChildSession } from './child-session.js';
import { onRoute, type RouteHost, type RouteOptions } from './route.js';
import { asErrorCode, type ErrorCode } from '../core/error-codes.js';

/** Every declared tool name, in registry order (the ceiling of a seat's catalog). */
const ALL_TOOLS = Object.keys(declaredTools);

export { SEAT_START_RECORD_PATCH } from './generation.js';

/** Shortest start-to-close the synthesis is given, in ms (the reserve nearly spent still allows one request to fail fast). */
const MIN_SYNTHESIS_MS = 1_000;

/**
 * The `council` workflow's state and transitions (DC5, DC23–DC27; issue 12
 * items 5–6; docs/council.md), after temporalio/samples-typescript
 * `safe-message-handlers`: a status enum ({@link CouncilStatus}) drives
 * `preparing → seating → synthesizing → succeeded | failed`.
 *
 * - The Council's clock is the workflow's: `startedAtMs` is its first
 *   activation; seats share ONE deadline `startedAtMs + 540 000` (one
 *   `condition` timeout), the whole Council ends by `startedAtMs + 600 000`.
 * - Seats run in parallel, each a child `session` (`startChildSession`,
 *   `TRY_CANCEL`) in its own cancellation scope; its prompt states the time
 *   left, computed before each attempt (DC24).
 * - At the deadline every unfinished seat's scope is cancelled: the child is
 *   asked to cancel and the seat is settled `timed_out` with
 *   `cancelRequested` (DC26) — its child id and recorded usage kept.
 * - A natively completed seat whose report is invalid retries (preset
 *   `retries`, same deadline); nothing else is ever replayed (DC25).
 * - Quorum counts valid reports only; success = quorum + the synthesis
 *   (`synthesizeCouncil`, bounded by what is left of the 600 000 ms).
 * - Every activity runs on the base meta's route ({@link onRoute}).
 *
 * Deterministic.
 */
export class CouncilMachine implements RouteHost {
  /** The seats' base meta: no reasoning capsule ever goes to a Council request (DC27). */
  readonly meta: SessionMeta;
  waitingForWorker?: SessionState['waitingForWorker'];
  status: CouncilStatus = 'preparing';
  readonly seats: SeatRecord[];
  readonly startedAtMs: number;
  readonly seatDeadlineMs: number;
  readonly deadlineMs: number;
  private readonly preset: Readonly<CouncilPreset> = BALANCED_REVIEW;
  private readonly scopes: CancellationScope[];
  /** What this run's generation records (generation.ts). */
  private readonly generation = councilGeneration();
  private deadlinePassed = false;
  private prepared: PrepareCouncilResult = {};
  /** recordCouncil writes, one after another (each writes the state as it stands when it is scheduled). */
  private recording: Promise<void> = Promise.resolve();

  constructor(private readonly input: CouncilWorkflowInput) {
    this.meta = { ...input.base, provider: { ...input.base.provider, reasoningReplay: 'off' } };
    this.startedAtMs = Date.now();
    this.seatDeadlineMs = this.startedAtMs + this.preset.seatDeadlineMs;
    this.deadlineMs = this.startedAtMs + this.preset.totalMs;
    const of = this.preset.seats.length;
    this.seats = this.preset.seats.map((s) => ({
      index: s.index,
      of,
      agent: s.agent,
      childSessionIds: [],
      status: 'running',
      validity: 'missing',
      usage: NO_USAGE,
      attempts: [],
    }));
    this.scopes = this.preset.seats.map(() => new CancellationScope());
  }

  /** The Council to its end: the result, or a typed ApplicationFailure whose details are `[CouncilResult]`. */
  async run(): Promise<CouncilResult> {
    await this.enter('preparing');
    try {
      this.prepared = await this.act((a) =>
        a.prepareCouncil({
          runId: this.input.runId,
          workspace: this.meta.workspace,
          ...(this.input.diffRange ? { diffRange: this.input.diffRange } : {}),
        }),
      );
    } catch (err) {
      if (isCancellation(err)) throw err;
      const cause = err instanceof ActivityFailure ? err.cause : err;
      const code =
        (cause instanceof ApplicationFailure ? asErrorCode(cause.type) : undefined) ?? 'council_prepare_failed';
      return this.fail(code, (cause as Error).message);
    }
    await this.enter('seating');
    const runs = Promise.all(this.seats.map((_, i) => this.runSeat(i)));
    // Handled here too: when the Council is cancelled the wait below throws first, and a seat's rejection must not go unhandled.
    runs.catch(() => undefined);
    const inTime = await condition(
      () => this.seats.every((s) => s.status !== 'running'),
      Math.max(1, this.seatDeadlineMs - Date.now()),
    );
    if (!inTime) {
      // DC26: the wait ended; the Council (the deadline owner) asks every unfinished seat's child to cancel.
      this.deadlinePassed = true;
      this.seats.forEach((s, i) => s.status === 'running' && this.scopes[i]!.cancel());
    }
    await runs;
    const valid = this.validCount();
    if (valid < this.preset.quorum)
      return this.fail(
        'council_quorum_missed',
        `${valid}/${this.preset.quorum} valid seat reports: ${this.seats.map((s) => `seat ${s.index} ${s.agent} ${s.status}/${s.validity}`).join(', ')}`,
      );
    await this.enter('synthesizing');
    try {
      const left = Math.max(MIN_SYNTHESIS_MS, this.deadlineMs - Date.now());
      const synth = await this.act(
        (a) =>
          a.synthesizeCouncil({
            runId: this.input.runId,
            question: this.input.question,
            ...(this.input.diffRange ? { diffRange: this.input.diffRange } : {}),
            meta: { provider: this.meta.provider, model: this.meta.model, workspace: this.meta.workspace },
            seats: this.seats
              .filter((s) => s.validity === 'valid')
              .map((s) => ({ index: s.index, agent: s.agent, childSessionId: s.childSessionIds.at(-1)! })),
            missing: this.seats
              .filter((s) => s.validity !== 'valid')
              .map((s) => ({ index: s.index, agent: s.agent, status: s.status, validity: s.validity })),
          }),
        {
          scheduleToCloseTimeout: left,
          startToCloseTimeout: left,
          heartbeatTimeout: this.meta.activityDefaults.model.heartbeatTimeoutMs,
          retry: {
            maximumAttempts: this.meta.provider.retry.maxAttempts,
            initialInterval: this.meta.provider.retry.initialDelayMs,
            maximumInterval: this.meta.provider.retry.maxDelayMs,
            backoffCoefficient: 2,
          },
        },
      );
      await this.enter('succeeded');
      return this.result('succeeded', 'ok', undefined, synth);
    } catch (err) {
      if (isCancellation(err)) throw err;
      const cause = err instanceof ActivityFailure && err.cause ? err.cause : err;
      return this.fail('council_synthesis_failed', `the synthesis failed: ${(cause as Error).message}`);
    }
  }

  /**
   * The Council itself was cancelled (a person's Ctrl-C, its parent closing):
   * the row is recorded `failed` / `cancelled` with every seat as it stood.
   * Run in a non-cancellable scope by the caller.
   */
  async recordCancelled(): Promise<void> {
    this.errorCode = 'cancelled';
    for (const s of this.seats) if (s.status === 'running') s.status = 'cancelled';
    await this.enter('failed');
  }

  /** Seats with a valid terminal report (DC25: the quorum counts nothing else). */
  private validCount(): number {
    return this.seats.filter((s) => s.validity === 'valid').length;
  }

  /**
   * One seat to its settlement: attempt 1, and one more (preset `retries`)
   * only when the child completed natively with an invalid report and the
   * deadline has not passed (DC25). Each attempt is a new child session;
   * its prompt states the remaining time computed now (DC24).
   */
  private async runSeat(i: number): Promise<void> {
    const seat = this.seats[i]!;
    const maxAttempts = 1 + this.preset.retries;
    let previousProblem: string | undefined;
    for (let attempt = 1; attempt <= maxAttempts; attempt++) {
      const nowMs = Date.now();
      const leftMs = this.seatDeadlineMs - nowMs;
      if (leftMs <= 0 || this.deadlinePassed) {
        if (attempt === 1) this.settle(seat, 'timed_out', 'missing');
        break;
      }
      const a = this.startAttempt(seat, attempt, nowMs);
      const meta = this.seatMeta(seat, a, maxAttempts);
      const prompt = this.seatPromptOf(seat, { attempt, maxAttempts, nowMs, previousProblem });
      this.showDetails();
      let end: AttemptEnd;
      try {
        end = await this.scopes[i]!.run(() => this.seatChild(seat, meta, prompt, leftMs));
      } catch (err) {
        end = this.deadlinePassed && isCancellation(err) ? 'timed_out' : childEndOfFailure(err);
      }
      const completed = end !== 'timed_out' && end.status === 'completed';
      const read = await this.act((acts) => acts.readSeatReport(reportQuery(seat, meta, a.childSessionId, completed)));
      settleAttempt(seat, a, end, read, Date.now());
      const { deadlinePassed, seatDeadlineMs } = this;
      if (seatRetries({ end, read, attempt, maxAttempts, deadlinePassed, nowMs: Date.now(), seatDeadlineMs })) {
        previousProblem = read.problem;
        // Not awaited: the next attempt starts now; a failed write fails the seat's final (awaited) record too.
        this.record().catch(() => undefined);
        continue;
      }
      this.settle(seat, a.status, a.validity);
      break;
    }
    await this.record();
  }

  /** A seat's new attempt: a new child session id, recorded running (DC25). */
  private startAttempt(seat: SeatRecord, attempt: number, nowMs: number): SeatAttempt {
    const childSessionId = childSessionIdOf(uuid4());
    const a: SeatAttempt = {
      attempt,
      childSessionId,
      status: 'running',
      validity: 'missing',
      usage: NO_USAGE,
      startedAtMs: nowMs,
    };
    seat.attempts.push(a);
    seat.childSessionIds.push(childSessionId);
    // The row shows the running attempt and its child at once. Not awaited: the child starts now; the
    // seat's final (awaited) record fails the seat if the writes fail.
    if (this.generation.seatStartRecord) this.record().catch(() => undefined);
    return a;
  }

  /** The attempt's child session meta: the Council's base narrowed to the seat's reviewer role, one level deeper. */
  private seatMeta(seat: SeatRecord, a: SeatAttempt, maxAttempts: number): SessionMeta {
    const parent = this.input.parent;
    return childMeta(
      this.meta,
      {
        sessionId: a.childSessionId,
        agent: seat.agent,
        title: inertLine(`seat ${seat.index}/${seat.of} ${seat.agent}: ${this.input.question}`, 120),
        link: {
          parentSessionId: parent?.sessionId ?? this.input.runId,
          rootSessionId: parent?.rootSessionId ?? this.input.runId,
          depth: (parent?.depth ?? 0) + 1,
          seat: {
            runId: this.input.runId,
            index: seat.index,
            of: seat.of,
            attempt: a.attempt,
            maxAttempts,
            deadlineMs: this.seatDeadlineMs,
          },
        },
      },
      ALL_TOOLS,
    );
  }

  /** The attempt's prompt (DC24: the remaining time as computed now; a retry names the previous report's problem). */
  private seatPromptOf(
    seat: SeatRecord,
    o: { attempt: number; maxAttempts: number; nowMs: number; previousProblem: string | undefined },
  ): string {
    return seatPrompt({
      index: seat.index,
      of: seat.of,
      agent: seat.agent,
      attempt: o.attempt,
      maxAttempts: o.maxAttempts,
      question: this.input.question,
      ...(this.input.diffRange ? { diffRange: this.input.diffRange } : {}),
      ...(this.prepared.diffPath ? { diffPath: this.prepared.diffPath } : {}),
      ...(this.prepared.files ? { files: this.prepared.files } : {}),
      nowMs: o.nowMs,
      deadlineMs: this.seatDeadlineMs,
      ...(o.previousProblem ? { previousProblem: o.previousProblem } : {}),
    });
  }

  /** The attempt's child session, started in the seat's scope and waited for; how it ended. */
  private async seatChild(seat: SeatRecord, meta: SessionMeta, prompt: string, leftMs: number): Promise<ChildEnd> {
    const child = await startChildSession({
      meta,
      prompt,
      summary: seatSummary(seat.index, seat.of, seat.agent, leftMs),
      cancellationType: ChildWorkflowCancellationType.TRY_CANCEL,
    });
    return childEndOfResult(await child.result());
  }

  /** A seat's two facts, final (DC25). */
  private settle(seat: SeatRecord, status: SeatStatus, validity: SeatRecord['validity']): void {
    seat.status = status;
    seat.validity = validity;
    if (status === 'timed_out') seat.cancelRequested = true;
    this.showDetails();
  }

  /** Moves to `status`: the search attribute, the current details and the councils row. */
  private async enter(status: CouncilStatus): Promise<void> {
    this.status = status;
    upsertSearchAttributes([{ key: ZunoCouncilStatus, value: status }]);
    this.showDetails();
    await this.record();
  }

  /** Temporal current details: the Council's status and one line per seat (`seat 2/3 security-review · 3 m 12 s left`). */
  private showDetails(): void {
    const now = Date.now();
    const lines = [
      `council ${this.status} · quorum ${this.validCount()}/${this.preset.quorum} · ${durationText(this.deadlineMs - now)} left in all`,
      ...this.seats.map((s) =>
        s.status === 'running'
          ? seatSummary(s.index, s.of, s.agent, this.seatDeadlineMs - now) +
            (s.attempts.length > 1 ? ` · attempt ${s.attempts.length}` : '')
          : `seat ${s.index}/${s.of} ${s.agent} · ${s.status}, report ${s.validity}`,
      ),
    ];
    setCurrentDetails(lines.join('\n'));
  }

  /** Writes the councils row as it stands, after every earlier write (the writes never cross). */
  private record(): Promise<void> {
    this.recording = this.recording.then(() =>
      this.act((a) =>
        a.recordCouncil({
          runId: this.input.runId,
          workspace: this.meta.workspace,
          question: this.input.question,
          preset: this.preset.name,
          ...(this.input.diffRange ? { diffRange: this.input.diffRange } : {}),
          status: this.status,
          ...(this.errorCode ? { errorCode: this.errorCode } : {}),
          seats: this.seats,
          ...(this.input.parent ? { parentSessionId: this.input.parent.sessionId } : {}),
          startedAtMs: this.startedAtMs,
          seatDeadlineMs: this.seatDeadlineMs,
          deadlineMs: this.deadlineMs,
          updatedAtMs: Date.now(),
        }),
      ),
    );
    return this.recording;
  }

  private errorCode?: ErrorCode;

  /** The Council failed: recorded, then a typed, non-retryable ApplicationFailure with the result (every seat) in its details. */
  private async fail(code: ErrorCode, message: string): Promise<never> {
    this.errorCode = code;
    await this.enter('failed');
    const result = this.result('failed', code, message);
    throw ApplicationFailure.create({ type: code, message, nonRetryable: true, details: [result] });
  }

  private result(
    status: CouncilResult['status'],
    code: string,
    message?: string,
    synth?: { chars: number; usage: CouncilResult['synthesisUsage'] },
  ): CouncilResult {
    return {
      runId: this.input.runId,
      status,
      code,
      ...(message ? { message } : {}),
      seats: this.seats,
      quorum: { needed: this.preset.quorum, valid: this.validCount() },
      synthesisChars: synth?.chars ?? 0,
      ...(synth?.usage ? { synthesisUsage: synth.usage } : {}),
      startedAtMs: this.startedAtMs,
      seatDeadlineMs: this.seatDeadlineMs,
      deadlineMs: this.deadlineMs,
      endedAtMs: Date.now(),
    };
  }

  /** Runs one Council activity on the route (short projection/prepare options unless `opts` says otherwise). */
  private act<T>(
    call: (a: CouncilActivities) => Promise<T>,
    opts?: Omit<Parameters<typeof proxyActivities>[0], 'taskQueue' | 'scheduleToStartTimeout'>,
  ): Promise<T> {
    return onRoute(this, (o: RouteOptions) =>
      call(
        proxyActivities<CouncilActivities>({
          startToCloseTimeout: this.meta.activityDefaults.projection.startToCloseTimeoutMs,
          retry: { initialInterval: 1_000, backoffCoefficient: 2, maximumInterval: 30_000, maximumAttempts: 10 },
          ...opts,
          ...o,
        }),
      ),
    );
  }
}
