/**
 * The Council's contract (DC5, DC23–DC27; issue 12 items 5–7; docs/council.md):
 * the `council` workflow's input and result, a seat's two facts (its
 * execution status and its report's validity, DC25), and the payloads of
 * the Council's activities. Deterministic: shared by workflows, activities
 * and the CLI. Times are Unix ms of the workflow's clock; durations ms.
 */
import type { SessionMeta } from '../session/meta.js';
import type { ToolActivityResult } from '../session/tool-activity.js';
import type { ReportValidity } from './report.js';

/** Workflow id of a Council: `council/<runId>`. */
export function councilWorkflowId(runId: string): string {
  return `council/${runId}`;
}

/** A Council run id: `cr_` + lowercase letters and digits (the CLI makes `cr_<time36><hex8>`). */
export const COUNCIL_RUN_ID = /^cr_[a-z0-9]{4,40}$/;

/**
 * The Council's lifecycle (the `ZunoCouncilStatus` values): `preparing`
 * (the diff is written), `seating` (seats run), `synthesizing`, then
 * `succeeded` or `failed`.
 */
export type CouncilStatus = 'preparing' | 'seating' | 'synthesizing' | 'succeeded' | 'failed';

/**
 * How a seat's execution ended (DC25, DC26): `completed` (its child session
 * completed natively), `failed` (failed or blocked), `cancelled` (cancelled
 * or interrupted by someone else), `timed_out` (the seat deadline ended the
 * wait; the Council then asked the child to cancel — `cancelRequested`),
 * `uncertain` (terminated, timed out by Temporal: nothing says how it ended).
 * `running` until settled.
 */
export type SeatStatus = 'running' | 'completed' | 'failed' | 'cancelled' | 'timed_out' | 'uncertain';

/** Token usage of a seat or the synthesis, from the projection's `session.usage` events (PR11). */
export interface CouncilUsage {
  /** Answered provider requests. */
  requests: number;
  /** Input tokens (uncached + cache read + cache write) the provider reported. */
  inputTokens: number;
  outputTokens: number;
}

/** One attempt of a seat: one child session. */
export interface SeatAttempt {
  attempt: number;
  childSessionId: string;
  status: SeatStatus;
  validity: ReportValidity;
  /** Why the report is invalid / missing, or the child's failure code and message. */
  problem?: string;
  code?: string;
  usage: CouncilUsage;
  /** Workflow time the attempt started and settled. */
  startedAtMs: number;
  settledAtMs?: number;
}

/** A seat as the Council records it (the councils row's `seats`, the result). */
export interface SeatRecord {
  index: number;
  of: number;
  agent: string;
  /** Child session ids, one per attempt, in order (identity kept on timeout, DC25). */
  childSessionIds: string[];
  status: SeatStatus;
  validity: ReportValidity;
  /** DC26: the seat's wait ended at the deadline and the Council asked the child to cancel. */
  cancelRequested?: boolean;
  /** Summed over attempts. */
  usage: CouncilUsage;
  attempts: SeatAttempt[];
  /** Findings in the valid report (absent otherwise). */
  findings?: number;
}

/** The delegating session of a Council started by `council_run` (absent for one a person started). */
export interface CouncilParent {
  sessionId: string;
  rootSessionId: string;
  /** The parent's depth (its seats are depth + 1). */
  depth: number;
}

/** Input of the `council` workflow. */
export interface CouncilWorkflowInput {
  runId: string;
  question: string;
  /** A git range the seats review (`HEAD~1..HEAD`); its diff is written under `.zuno/council/<runId>/`. */
  diffRange?: string;
  /** Only `balanced-review` (DC27). */
  preset: 'balanced-review';
  /**
   * The meta the seats derive from (`childMeta`): workspace, provider, model,
   * route, permission, sandbox. Its `sessionId` is the parent's (or the run id
   * when a person started the Council); the Council's activities run on its route.
   */
  base: SessionMeta;
  parent?: CouncilParent;
}

/** The Council's result (the workflow's return value; `details[0]` of its `council_quorum_missed` failure). */
export interface CouncilResult {
  runId: string;
  status: 'succeeded' | 'failed';
  /** `ok`, `council_quorum_missed`, `council_synthesis_failed`, `council_diff_invalid`. */
  code: string;
  message?: string;
  seats: SeatRecord[];
  quorum: { needed: number; valid: number };
  /** Characters of the synthesis text (in the councils row), 0 when none ran. */
  synthesisChars: number;
  synthesisUsage?: CouncilUsage;
  startedAtMs: number;
  seatDeadlineMs: number;
  deadlineMs: number;
  endedAtMs: number;
}

/** Input of `prepareCouncil`. */
export interface PrepareCouncilInput {
  runId: string;
  workspace: string;
  diffRange?: string;
}

/** Result of `prepareCouncil`: where the diff is, workspace-relative, and its size. */
export interface PrepareCouncilResult {
  diffPath?: string;
  diffBytes?: number;
  /** Files the diff touches. */
  files?: string[];
}

/** Input of `recordCouncil`: the councils row as it stands now. */
export interface RecordCouncilInput {
  runId: string;
  workspace: string;
  question: string;
  preset: string;
  diffRange?: string;
  status: CouncilStatus;
  errorCode?: string;
  seats: SeatRecord[];
  parentSessionId?: string;
  startedAtMs: number;
  seatDeadlineMs: number;
  deadlineMs: number;
  updatedAtMs: number;
}

/** Input of `readSeatReport`: one attempt's child session. */
export interface ReadSeatReportInput {
  childSessionId: string;
  /** Only a natively completed child has a terminal report to validate; others read usage only. */
  completed: boolean;
  /** Who the seat is, for its session row (`zuno session list` shows the seat's role and the tree it belongs to). */
  seat?: { agent: string; parentSessionId: string; rootSessionId: string; depth: number };
}

/** Result of `readSeatReport`. */
export interface ReadSeatReportResult {
  validity: ReportValidity;
  problem?: string;
  findings?: number;
  usage: CouncilUsage;
}

/** Input of `synthesizeCouncil`. */
export interface SynthesizeCouncilInput {
  runId: string;
  question: string;
  diffRange?: string;
  meta: Pick<SessionMeta, 'provider' | 'model' | 'workspace'>;
  /** The seats with a valid report (read again from the projection). */
  seats: { index: number; agent: string; childSessionId: string }[];
  /** Seats without one, named in the prompt so the synthesis says what is not covered. */
  missing: { index: number; agent: string; status: SeatStatus; validity: ReportValidity }[];
}

/** Result of `synthesizeCouncil` (the text itself is in the councils row). */
export interface SynthesizeCouncilResult {
  chars: number;
  usage: CouncilUsage;
}

/** Input of `settleCouncilCall`: a `council_run` call's Council ended; write the parent's tool-call result. */
export interface SettleCouncilCallInput {
  sessionId: string;
  turn: number;
  step: number;
  rowId: string;
  callId: string;
  runId: string;
  result?: CouncilResult;
  failure?: { code: string; message: string };
}

/** The Council's activities (implemented in activities/council/). */
export interface CouncilActivities {
  prepareCouncil(input: PrepareCouncilInput): Promise<PrepareCouncilResult>;
  recordCouncil(input: RecordCouncilInput): Promise<void>;
  readSeatReport(input: ReadSeatReportInput): Promise<ReadSeatReportResult>;
  synthesizeCouncil(input: SynthesizeCouncilInput): Promise<SynthesizeCouncilResult>;
  settleCouncilCall(input: SettleCouncilCallInput): Promise<ToolActivityResult>;
}

/** No usage yet. */
export const NO_USAGE: CouncilUsage = { requests: 0, inputTokens: 0, outputTokens: 0 };

/** a + b. */
export function addUsage(a: CouncilUsage, b: CouncilUsage): CouncilUsage {
  return {
    requests: a.requests + b.requests,
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
  };
}

/** `3 m 12 s` (whole seconds, rounded down; `0 s` at or past zero). */
export function durationText(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  const m = Math.floor(s / 60);
  return m > 0 ? `${m} m ${s % 60} s` : `${s} s`;
}

/** The seat's line for the Temporal UI: `seat 2/3 security-review · 3 m 12 s left`. */
export function seatSummary(index: number, of: number, agent: string, leftMs: number): string {
  return `seat ${index}/${of} ${agent} · ${durationText(leftMs)} left`;
}

/** The Temporal UI summary of a Council: `council: review HEAD~1..HEAD` or `council: <question>`. */
export function councilSummary(input: Pick<CouncilWorkflowInput, 'diffRange' | 'question'>): string {
  return `council: ${input.diffRange ? `review ${input.diffRange}` : input.question}`.slice(0, 200);
}
