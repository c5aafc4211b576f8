import type { ActivityDefaults } from './activity-defaults.js';
import type { FinishReason, Usage } from './messages.js';
import type { ProviderConfig } from './provider-config.js';
import type { BlockedCategory, ToolActivityFacts, ToolOutcome } from './tools/types.js';

/**
 * The contract between the session workflow and its activities, and between
 * clients and the session workflow. Small payloads only (DESIGN.md "Where data
 * lives"): ids, statuses, counts — content stays in the projection.
 */

/** Frozen description of a session, carried in the workflow input. */
export interface SessionMeta {
  sessionId: string;
  /** Absolute workspace root on the worker host. */
  workspace: string;
  provider: ProviderConfig;
  model: string;
  /** One-line title (first prompt, shortened). */
  title: string;
  /** TD6 `concurrency.tool_calls`, 1..64 (default 8). */
  toolConcurrency: number;
  activityDefaults: ActivityDefaults;
}

/** Input of the session workflow (also the continue-as-new carrier). */
export interface SessionWorkflowInput {
  meta: SessionMeta;
  /** Complete the workflow once idle (no pending input) after a final answer; `zuno run` sets true. */
  exitWhenIdle: boolean;
  /** Compact state carried across continue-as-new. */
  carried?: CarriedState;
}

/** Compact state carried across continue-as-new. */
export interface CarriedState {
  nextTurn: number;
  nextInputSeq: number;
  pending: AdmittedInput[];
  /** clientMessageId → receipt, bounded to the newest 256. */
  seenClientIds: [string, AdmissionReceipt][];
  lastFinalText: string | null;
}

/** Update `submitInput` argument (SE1). */
export interface SubmitInputRequest {
  text: string;
  /** Optional idempotency key per session (SE2); never dedupe by text. */
  clientMessageId?: string;
}

/** SE1/SE2 admission receipt returned by the `submitInput` update. */
export interface AdmissionReceipt {
  inputId: string;
  sessionId: string;
  /** driven: the caller drives it now; steered: a running turn takes it at its next safe point; pending: queued. */
  status: 'driven' | 'steered' | 'pending';
  /** true when this clientMessageId was seen before and the original receipt is returned. */
  duplicate: boolean;
}

/** An input admitted to the workflow's durable FIFO inbox. */
export interface AdmittedInput {
  inputId: string;
  text: string;
  /** `report`: a background task's completion (BG6, SE3), admitted by the workflow itself; absent: a user input. */
  kind?: 'report';
  /** With `kind: 'report'`: the task it reports. */
  taskID?: string;
  clientMessageId?: string;
  admission: AdmissionReceipt['status'];
  admittedAtMs: number;
}

/** Query `state` result. */
export interface SessionState {
  sessionId: string;
  phase: 'idle' | 'model' | 'tools' | 'interrupting' | 'completed' | 'failed';
  turn: number;
  step: number;
  pending: { inputId: string; admission: AdmissionReceipt['status']; kind?: 'report' }[];
  /** Background tasks this run is executing (BG1). */
  background: string[];
  lastFinalText: string | null;
}

/** Input of the modelStep activity. */
export interface ModelStepInput {
  meta: SessionMeta;
  turn: number;
  step: number;
  /** Inputs this request carries for the first time (persisted + marked applied, SE2). */
  newInputs: AdmittedInput[];
  /**
   * Tool outcomes the workflow settled because the tool activity failed or its
   * outcome was lost (TD4, GP9). Persisted in the same write that makes them
   * model-visible, before the request is assembled.
   */
  settled: SettledOutcome[];
}

/** A tool outcome decided by the workflow, not by the tool activity. */
export interface SettledOutcome {
  rowId: string;
  callId: string;
  tool: string;
  /** `uncertain` for a replay-Never call whose outcome was lost; `error` for a Safe call that kept failing. */
  outcome: 'uncertain' | 'error';
  /**
   * `lost_outcome`: the activity timed out or its worker vanished; `interrupted`:
   * a hard interrupt (TD10) forced it past the cooperative window; `failed`: a
   * Safe call kept failing; `not_run`: the turn was interrupted before the call
   * was scheduled (nothing ran).
   */
  cause: 'lost_outcome' | 'interrupted' | 'failed' | 'not_run';
  /** Paths the call may have changed (from its arguments; empty when unknown, e.g. shell). */
  paths: string[];
  /** Temporal's failure type (e.g. `TimeoutFailure`, an ApplicationFailure type). */
  failureType: string;
  message: string;
  observedAtMs: number;
}

/** A tool call the model asked for, after validation (TD8). */
export interface PlannedToolCall {
  /** `tc_{turn}_{step}_{position}` */
  rowId: string;
  position: number;
  /** Place among the step's tool calls, 0-based (absent in histories recorded before it existed). */
  index?: number;
  callId: string;
  name: string;
  /**
   * Validated arguments. Absent when blocked, and absent when the argument
   * text exceeds {@link INLINE_ARGS_MAX_CHARS}: then `argsInProjection` is set
   * and the tool activity reads them from the stored tool-call row, so history
   * payloads stay small (DESIGN.md "Where data lives").
   */
  args?: unknown;
  argsInProjection?: boolean;
  /** One-line summary for the Temporal UI, computed from the arguments by modelStep (set with `argsInProjection`). */
  summary?: string;
  /** Present when the call is rejected: nothing runs, outcome `blocked` is already persisted. */
  blocked?: { category: BlockedCategory; message: string };
}

/** Output of the modelStep activity. */
export interface ModelStepResult {
  finishReason: FinishReason;
  toolCalls: PlannedToolCall[];
  usage?: Usage;
  /** Length of the final assistant text in UTF-16 units (the text itself is in the projection). */
  textLength: number;
  /** Settlements of `settled` that met a result the call had already committed (see {@link SettlementReconciliation}). */
  reconciled?: SettlementReconciliation[];
}

/**
 * A workflow settlement that arrived after the tool call's own result had
 * committed: the committed result stands (it is what happened), and the
 * tool-call row, a `tool.settlement_superseded` event and this entry in the
 * persisting activity's result all say so, with what the workflow saw.
 */
export interface SettlementReconciliation {
  rowId: string;
  callId: string;
  tool: string;
  /** The committed outcome, which stands. */
  stands: ToolOutcome;
  workflowSaw: Pick<SettledOutcome, 'outcome' | 'cause' | 'failureType' | 'message'>;
}

/** Input of a tool activity (`tool_<name>`). */
export interface ToolActivityInput {
  sessionId: string;
  workspace: string;
  turn: number;
  step: number;
  call: PlannedToolCall;
}

/** Output of a tool activity: small; the output text is in the projection. */
export interface ToolActivityResult {
  outcome: ToolOutcome;
  errorCode?: string;
  outputBytes: number;
  /**
   * What an operator reads first in the Temporal UI: `failed` when the
   * outcome is error/uncertain or the tool's own facts say it failed (a
   * shell exit ≠ 0). A tool failure is still a completed activity (TD8).
   */
  status?: 'ok' | 'failed';
  /** Small outcome-deciding facts (exit code, receipt verdict, conflict kind…); never the output. */
  facts?: ToolActivityFacts;
  /** true when the workflow had already recorded the call (forced interrupt) and this result was only logged. */
  late?: boolean;
  /**
   * Background-task facts the workflow acts on (BG6): `started` — a `shell`
   * call with `background: true` handed out this taskID and the workflow now
   * runs the command; `terminal` — a `bg` read observed the task's final
   * state, which consumes its completion report.
   */
  background?: { taskID: string; started?: boolean; terminal?: boolean };
}

/** Input of the `bgCommand` activity: runs one background shell call to its end (BG2, BG6). */
export interface BgCommandInput {
  sessionId: string;
  workspace: string;
  call: PlannedToolCall;
  taskID: string;
}

/** Output of the `bgCommand` activity: small; the output itself stays on disk under `.zuno/bg/`. */
export interface BgCommandResult {
  taskID: string;
  /** `exited`, `cancelled`, `timed_out`, `failed`, `not_started`. */
  state: string;
  outcome: 'ok' | 'uncertain' | 'error';
  exitCode?: number;
  /** The model-facing completion report (≤ 4 KiB), admitted to the inbox unless already consumed. */
  report: string;
}

/** Input of the finishTurn activity: records the final answer / failure. */
export interface FinishSessionInput {
  sessionId: string;
  status: 'completed' | 'failed' | 'paused' | 'blocked' | 'interrupted';
  turn: number;
  step: number;
  inputIds: string[];
  error?: { code: string; message: string };
  /** Outcomes the workflow settled in this turn that no modelStep will persist (interrupt, TD10). */
  settled?: SettledOutcome[];
  /** Remove the assistant half of `step` (a model step cut by an interrupt): its parts and tool-call rows. */
  rollbackStep?: boolean;
  /** With `rollbackStep`: the inputs that step carried, re-written as user messages so none is lost. */
  stepInputs?: AdmittedInput[];
  /** Background tasks still running when the turn ended: the session is `waiting_background` (SH9). */
  background?: string[];
}

/** Result of the session workflow. */
export interface SessionResult {
  sessionId: string;
  status: 'completed' | 'failed' | 'paused' | 'blocked' | 'interrupted';
  turns: number;
  error?: { code: string; message: string };
}

/** Activity functions the session workflow calls (implemented in activities/). */
export interface SessionActivities {
  modelStep(input: ModelStepInput): Promise<ModelStepResult>;
  bgCommand(input: BgCommandInput): Promise<BgCommandResult>;
  finishTurn(input: FinishSessionInput): Promise<{
    finalText: string | null;
    /** Settlements of `settled` that met an already committed result (see {@link SettlementReconciliation}). */
    reconciled?: SettlementReconciliation[];
  }>;
}

/** Tool arguments longer than this (UTF-16 units) travel by reference to the projection, not in history. */
export const INLINE_ARGS_MAX_CHARS = 64 * 1024;

/** Activity type name of a tool's activity: `tool_<name>`. */
export function toolActivityName(tool: string): string {
  return `tool_${tool}`;
}

/** Name of the session input update. */
export const SUBMIT_INPUT_UPDATE = 'submitInput';
/**
 * PR3: failures that need a person before the session can go on. Auth
 * failures pause (fix the key, resume); an invalid protocol, a corrupt
 * state or a permanent configuration error blocks (fix the setup); every
 * other failure fails the turn.
 */
export const PAUSING_FAILURES: readonly string[] = ['provider_auth'];
/** PR3: failure codes that block the session. */
export const BLOCKING_FAILURES: readonly string[] = [
  'provider_protocol',
  'provider_config',
  'corrupt_state',
  'config_invalid',
];

/** Name of the session hard-interrupt update (TD10). */
export const INTERRUPT_UPDATE = 'interrupt';

/** Update `interrupt` argument. */
export interface InterruptRequest {
  /** Who asked, for the record (e.g. `cli:ctrl-c`, `cli:session interrupt`). */
  source?: string;
}

/** Update `interrupt` result. */
export interface InterruptReceipt {
  sessionId: string;
  /** false when no turn was running (nothing to interrupt). */
  interrupted: boolean;
  turn: number;
  /** What the turn was doing when the interrupt arrived. */
  phase: SessionState['phase'];
  /** true when an earlier interrupt of this turn is already in progress. */
  alreadyRequested: boolean;
  /** With no turn running: the background tasks this interrupt stopped (their outcome is recorded, no report turn follows). */
  backgroundCancelled: string[];
}

/**
 * TD10: after a hard interrupt, how long the workflow waits for a running
 * activity to settle on its own before recording it forced + uncertain, in
 * ms. The tool side has the 2 s cooperative window (SH5: SIGTERM, 2 s, then
 * SIGKILL); the rest covers delivering the cancellation on the next
 * heartbeat and writing the tool's own final report.
 */
export const INTERRUPT_FORCE_AFTER_MS = 5_000;
/** TD10 cooperative window a tool gets after cancellation, in ms. */
export const INTERRUPT_COOPERATIVE_WINDOW_MS = 2_000;

/** Name of the session state query. */
export const STATE_QUERY = 'state';
/** Task queue default (temporal.yaml `taskQueue`). */
export const DEFAULT_TASK_QUEUE = 'zuno';
