import type { RecordApprovalInput } from './approval-contract.js';
import type { CarriedQuestions, RecordQuestionInput } from './question-contract.js';
import type { CallSubject, PermissionPolicy, SessionGrant } from './permission/types.js';
import type { ShownKind } from './permission/shown.js';
import type { ActivityDefaults } from './activity-defaults.js';
import type { FinishReason, Usage } from './messages.js';
import type { ProviderConfig } from './provider-config.js';
import type { BlockedCategory, ToolActivityFacts, ToolOutcome } from './tools/types.js';
import { RULE_FILE_UNREADABLE } from './rule-budget.js';
import type { CarriedGoalLink, SessionGoalBinding } from './goal/contract.js';
import type { SandboxPolicy } from './sandbox.js';
import type { DelegationLink } from './delegation/contract.js';

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
  /** The agent role this session runs as (search attribute `ZunoAgent`); absent in sessions started before it existed: `build`. */
  agent?: string;
  /**
   * Where the session's activities run (DESIGN.md §1: work routed to the host
   * that owns the workspace). Absent in sessions started before routing
   * existed: their activities run on the workflow's own task queue.
   */
  route?: SessionRoute;
  /** The Goal that drives this session (`goal/<goalId>`, DESIGN.md §3); absent for ordinary sessions. */
  goal?: SessionGoalBinding;
  /** The session's permission policy (TD2, TD7; docs/permissions.md); absent in sessions started before it existed: every call is admitted. */
  permission?: PermissionPolicy;
  /**
   * What the session's shell commands can reach (SH10, SB1), resolved from
   * `zuno.json` at start; handed to every tool and background activity.
   * Absent in sessions started before the sandbox existed: the auto default
   * (`DEFAULT_SANDBOX_POLICY`).
   */
  sandbox?: SandboxPolicy;
  /**
   * The tools the session may call (DC2, DC9: a child's catalog is its
   * role's allowlist within its parent's; a session started with `--agent`
   * has its role's). Absent: its role's allowlist (`build`: every tool).
   */
  tools?: string[];
  /** A child session (issue 12): who delegated to it and how deep it is. Absent for a session a person started. */
  delegation?: DelegationLink;
}

/**
 * The worker route of a session: every activity of the session (model
 * steps, tool calls, background commands, projection writes) is scheduled
 * on `taskQueue`, which only workers of `host` poll — the workspace's files
 * and the projection are on that host. Workflow tasks stay on the shared
 * workflow task queue (any Zuno worker can run them: they touch no files).
 */
export interface SessionRoute {
  /** Host identity of the workspace's owner: `ZUNO_HOST_ID`, else the hostname. */
  host: string;
  /**
   * `<base>/host/<host>` — served by `zuno worker` on that host, for every
   * workspace there; or `<base>/host/<host>/session/<sessionId>` — served only
   * by the in-process worker of the `zuno` command driving this session.
   */
  taskQueue: string;
  /** `worker`: a standalone `zuno worker` serves it; `run`: the in-process worker of a `zuno run`/`resume`. */
  servedBy: 'worker' | 'run';
}

/** Input of the session workflow (also the continue-as-new carrier). */
export interface SessionWorkflowInput {
  meta: SessionMeta;
  /** Complete the workflow once idle (no pending input) after a final answer; `zuno run` sets true. */
  exitWhenIdle: boolean;
  /** Compact state carried across continue-as-new. */
  carried?: CarriedState;
  /**
   * A new run of a session whose earlier run closed (`zuno run --session`,
   * `--continue`): `carried` comes from the projection, and the input that
   * reopened it arrives with the start (update-with-start).
   */
  reopened?: boolean;
}

/** Compact state carried across continue-as-new. */
export interface CarriedState {
  nextTurn: number;
  nextInputSeq: number;
  pending: AdmittedInput[];
  /**
   * Runs recorded before the client-id table existed: clientMessageId →
   * receipt, the newest 256. Read once into {@link CarriedState.clientIds}.
   */
  seenClientIds: [string, AdmissionReceipt][];
  /** SE2 client-id table for the session's life, compact entries (see workflows/client-ids.ts). */
  clientIds?: string[];
  /**
   * Update id → receipt of the newest inputs admitted by the run that
   * continued-as-new: an Update the server delivers again to this run
   * (temporalio/temporal#6375) returns its receipt instead of being admitted twice.
   */
  recentUpdates?: [string, AdmissionReceipt][];
  lastFinalText: string | null;
  /** How the last turn ended (absent before the first turn, and in runs recorded before it existed). */
  lastOutcome?: TurnOutcome;
  /** A Goal-bound session: what it knows of its Goal. */
  goal?: CarriedGoalLink;
  /** Session-wide approval grants (`approve_session`), kept across continue-as-new and reopening. */
  grants?: SessionGrant[];
  /** Open questions (QU1) and their applied answer/snooze commands, kept across continue-as-new. */
  questions?: CarriedQuestions;
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

/**
 * The session's orchestration phase (workflows/session-machine.ts): what the
 * session is doing and which transitions it accepts. `ZunoStatus` in the
 * Temporal UI is derived from it (see {@link ZunoStatusValue}).
 */
export type SessionPhase =
  'idle' | 'running_turn' | 'interrupting' | 'waiting_background' | 'paused' | 'blocked' | 'closed';

/**
 * Values of the `ZunoStatus` keyword search attribute, upserted at every
 * phase change: `idle` (waiting for input), `running` (a turn runs),
 * `interrupting` (a hard interrupt is settling the turn), `waiting_background`
 * (the turn ended, background tasks still run and will report),
 * `waiting_approval` (a call waits for a person's decision), and the
 * final values `completed`, `failed`, `paused`, `blocked`, `interrupted`.
 */
export type ZunoStatusValue =
  | 'idle'
  | 'running'
  | 'interrupting'
  | 'waiting_background'
  | 'waiting_approval'
  | 'completed'
  | 'failed'
  | 'paused'
  | 'blocked'
  | 'interrupted';

/** What a running turn is doing right now (for the status line and the interrupt receipt). */
export type TurnActivity = 'idle' | 'model' | 'tools' | 'interrupting';

/** Query `state` result. */
export interface SessionState {
  sessionId: string;
  /** Where the session's activities run now (absent: the workflow's own task queue). */
  route?: SessionRoute;
  /** Set while an activity has waited longer than the notice period for a worker of the route. */
  waitingForWorker?: { host: string; taskQueue: string; sinceMs: number };
  /** The session's phase. */
  phase: SessionPhase;
  /** Inside a turn: whether a model step or tool calls run; `idle` between turns. */
  activity: TurnActivity;
  turn: number;
  step: number;
  pending: { inputId: string; admission: AdmissionReceipt['status']; kind?: 'report' }[];
  /** Background tasks this run is executing (BG1). */
  background: string[];
  lastFinalText: string | null;
  /** How the last turn ended; null before the first turn ended. */
  lastOutcome: TurnOutcome | null;
}

/**
 * How one turn ended — the typed turn outcome that the session returns to
 * whoever drove the turn (the CLI today; Goal, Council and delegation
 * workflows next). `turn` is 0-based; `steps` counts the model steps it ran;
 * `inputIds` are the inputs it carried (SE2).
 * - `final_answer`: the model answered (text in the projection, `textLength` UTF-16 units).
 * - `failed`: a typed failure (`code`, e.g. `provider_bad_request`, `model_step_timeout`).
 * - `paused`: a person must act before the session can go on (PR3: `provider_auth`).
 * - `blocked`: the setup is broken (PR3: `provider_protocol`, `provider_config`, …).
 * - `interrupted`: a hard interrupt (TD10) stopped the turn.
 * - `limit`: the turn hit a runaway guard (`turn_step_limit`; `stagnant_tool_loop`: the same
 *   work-state read three times in a row, GP22).
 */
export type TurnOutcome = { turn: number; steps: number; inputIds: string[] } & TurnEnd;

/** How a turn ended, without its position (see {@link TurnOutcome}). */
export type TurnEnd =
  | { kind: 'final_answer'; textLength: number }
  | {
      kind: 'failed';
      code: string;
      message: string;
      /** The failure may go away by itself (a provider's 5xx, 429, timeout, a cut stream): a Goal backs off (GL5). */
      retryable?: boolean;
      /** The provider's `Retry-After`, ms (GL6). */
      retryAfterMs?: number;
    }
  | { kind: 'paused'; reason: string; message: string }
  | { kind: 'blocked'; code: string; message: string }
  | { kind: 'interrupted'; source?: string }
  | { kind: 'limit'; limit: 'turn_step_limit' | 'stagnant_tool_loop'; message: string };

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
  /**
   * A Goal continuation turn (GL19, GL20): the Goal and revision it runs for.
   * No user message is written; the request carries the Goal as runtime context.
   */
  continuation?: { goalId: string; revision: number };
  /** GL36: a discussion turn while the Goal is paused on an unknown outcome — the request offers no tools. */
  toolsDisabled?: boolean;
}

/** A tool outcome decided by the workflow, not by the tool activity. */
export interface SettledOutcome {
  rowId: string;
  callId: string;
  tool: string;
  /**
   * `uncertain` for a replay-Never call whose outcome was lost; `error` for a
   * Safe call that kept failing or one that never ran; `blocked` for a call
   * the permission gate refused (TD8 category `denied`): nothing ran.
   */
  outcome: 'uncertain' | 'error' | 'blocked';
  /**
   * `lost_outcome`: the activity timed out or its worker vanished; `interrupted`:
   * a hard interrupt (TD10) forced it past the cooperative window; `failed`: a
   * Safe call kept failing; `not_run`: the turn was interrupted before the call
   * was scheduled (nothing ran).
   */
  cause: 'lost_outcome' | 'interrupted' | 'failed' | 'not_run' | 'denied';
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
  /** What the call touches, for the permission rules (computed by modelStep; absent: nothing known). */
  subject?: CallSubject;
  /**
   * With `argsInProjection` and a subject: what an approval would show
   * (core/permission/shown.ts) — its kind, the sha256 (hex) of its full text
   * and that text's length in characters — since the workflow does not hold
   * the arguments; the text itself is read from the stored row when an
   * approval is recorded (issue 26).
   */
  shown?: { kind: ShownKind; digest: string; chars: number };
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
  /** The Goal driving the session (goal tools reach it through its workflow). */
  goalId?: string;
  /** The session's sandbox policy (`SessionMeta.sandbox`; absent: the auto default). */
  sandbox?: SandboxPolicy;
  /**
   * Set when the call runs as a local activity (issue 13): the task queue
   * whose worker must run it — the session's route, or the workflow's own
   * task queue for a session without one. A worker that does not serve it
   * refuses with {@link LOCAL_ELSEWHERE} and the workflow schedules the
   * regular activity on the route.
   */
  localOn?: string;
}

/**
 * Longest a tool call runs as a local activity before the regular activity
 * takes over, in ms (issue 13). Temporal keeps the workflow task open while
 * its local activities run, so nothing reaches the workflow meanwhile — an
 * interrupt (TD10), a steered input: kept within INTERRUPT_DELIVERY_MS.
 */
export const LOCAL_ACTIVITY_TIMEOUT_MS = 500;

/** Failure type of a local activity refused by a worker that does not serve the session's route. */
export const LOCAL_ELSEWHERE = 'local_elsewhere';

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
  /** The session's sandbox policy (`SessionMeta.sandbox`; absent: the auto default). */
  sandbox?: SandboxPolicy;
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

/**
 * One step of a remote observer (SH9, GL26) whose wait the workflow holds
 * (`bgObserverStart` / `bgObserverPoll`): `result` once the task has
 * settled (or was lost), absent while it still runs.
 */
export interface BgObserverStep {
  result?: BgCommandResult;
}

/** Input of `bgObserverPoll` and `bgObserverStop`: names the task of the session (the call's row for its `bg.completed` event). */
export interface BgObserverInput {
  sessionId: string;
  workspace: string;
  taskID: string;
  rowId: string;
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
  /**
   * Inputs admitted (they have a receipt) that no turn will carry because the
   * session ends with this turn: recorded `cancelled`, never dropped (SE2).
   */
  unrun?: AdmittedInput[];
  /** A Goal-bound session: finishTurn also returns the work-state facts its Goal decides on. */
  goalId?: string;
  /** Set when finishTurn runs as a local activity (issue 13, a fast turn): as {@link ToolActivityInput.localOn}. */
  localOn?: string;
}

/** Work-state facts at a turn's end, for the Goal (GL23, GL26). */
export interface TurnWorkFacts {
  /** Plan/Todo revisions (GL23 progress fingerprint; decided in docs/goals.md). */
  fingerprint: string;
  /** Some Plan step or Todo is not terminal. */
  remains: boolean;
}

/**
 * Result of the session workflow. A `completed` or `interrupted` session
 * completes its workflow with this value; a `failed`, `paused` or `blocked`
 * one fails it with an ApplicationFailure whose type is the Zuno error code
 * and whose first detail is this value (client/session-start.ts
 * `sessionResultOf` reads both).
 */
export interface SessionResult {
  sessionId: string;
  status: 'completed' | 'failed' | 'paused' | 'blocked' | 'interrupted';
  turns: number;
  error?: { code: string; message: string };
  /** How the last turn ended (absent in results recorded before it existed). */
  outcome?: TurnOutcome;
}

/** Activity functions the session workflow calls (implemented in activities/). */
export interface SessionActivities {
  modelStep(input: ModelStepInput): Promise<ModelStepResult>;
  bgCommand(input: BgCommandInput): Promise<BgCommandResult>;
  /** Starts a remote observer's command and returns at once (the workflow holds its wait, workflows/observer.ts). */
  bgObserverStart(input: BgCommandInput): Promise<BgObserverStep>;
  /** Reads how a remote observer's task stands now; never waits for it. */
  bgObserverPoll(input: BgObserverInput): Promise<BgObserverStep>;
  /** Asks a remote observer's command to stop (SH5 window); the next polls see it settle. */
  bgObserverStop(input: BgObserverInput): Promise<void>;
  /** Writes an approval's projection row and its `approval.requested` / `approval.decided` event (idempotent). */
  recordApproval(input: RecordApprovalInput): Promise<void>;
  /** Writes a question's projection row and its `question.*` event (idempotent; issue 11 item 5). */
  recordQuestion(input: RecordQuestionInput): Promise<void>;
  finishTurn(input: FinishSessionInput): Promise<{
    finalText: string | null;
    /** Settlements of `settled` that met an already committed result (see {@link SettlementReconciliation}). */
    reconciled?: SettlementReconciliation[];
    /** With `goalId`: the work-state facts at the turn's end. */
    work?: TurnWorkFacts;
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
/**
 * PR3: failure codes that block the session (the setup is broken; a person
 * fixes it, a retry would not). `rule_file_unreadable` (SE27): a local rule
 * file Zuno cannot read stops the turn before its first provider request.
 */
export const BLOCKING_FAILURES: readonly string[] = [
  'provider_protocol',
  'provider_config',
  'corrupt_state',
  'config_invalid',
  RULE_FILE_UNREADABLE,
];

/** Name of the session hard-interrupt update (TD10). */
export const INTERRUPT_UPDATE = 'interrupt';

/** Update name: resume a paused session (its cause fixed). */
export const RESUME_UPDATE = 'resume';

/**
 * Update `resume` argument: who serves the session from now on and, for a
 * session whose provider lived in the old process (a scripted local
 * provider), where the provider is now. Fields absent keep what the session has.
 */
export interface ResumeRequest {
  route?: SessionRoute;
  provider?: ProviderConfig;
  model?: string;
  /** Who asks (e.g. `cli:session-resume`), recorded in the resume event. */
  source?: string;
}

/** Update `resume` result. */
export interface ResumeReceipt {
  sessionId: string;
  /** The turn that will run (0-based). */
  turn: number;
  /** What paused the session. */
  pausedBy: string;
}

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
  phase: TurnActivity;
  /** true when an earlier interrupt of this turn is already in progress. */
  alreadyRequested: boolean;
  /** With no turn running: the background tasks this interrupt stopped (their outcome is recorded, no report turn follows). */
  backgroundCancelled: string[];
}

/** TD10 cooperative window a tool gets after the cancellation reaches it, in ms. */
export const INTERRUPT_COOPERATIVE_WINDOW_MS = 2_000;
/**
 * Longest delay between the interrupt update and the cancellation reaching a
 * running activity, in ms: the worker delivers heartbeats at least every
 * second (worker/worker.ts `maxHeartbeatThrottleInterval`) and the cancel
 * request rides on the next heartbeat's response.
 */
export const INTERRUPT_DELIVERY_MS = 1_000;
/** Allowance for a tool that settled inside its window to write its own report, in ms. */
export const INTERRUPT_REPORT_MS = 500;
/**
 * TD10 as Zuno measures it. The contract's window is 2 s *after the
 * interrupt reaches the call*: the tool activity measures that itself from
 * the moment its cancellation signal fires, and labels its report
 * `cancellation.kind: cooperative` only when it settled inside those 2 s
 * (otherwise `forced`, outcome uncertain). The workflow cannot observe that
 * moment, so it stops waiting {@link INTERRUPT_DELIVERY_MS} +
 * {@link INTERRUPT_COOPERATIVE_WINDOW_MS} + {@link INTERRUPT_REPORT_MS} =
 * 3.5 s after the interrupt and records a call that has not reported forced
 * + uncertain: a call that settled inside its own window always reports
 * before then. Sessions recorded before this rule used 5 s
 * ({@link INTERRUPT_FORCE_AFTER_V1_MS}).
 */
export const INTERRUPT_FORCE_AFTER_MS = INTERRUPT_DELIVERY_MS + INTERRUPT_COOPERATIVE_WINDOW_MS + INTERRUPT_REPORT_MS;
/** The force deadline of sessions recorded before TD10 was measured from delivery, in ms. */
export const INTERRUPT_FORCE_AFTER_V1_MS = 5_000;

/** Name of the session state query. */
export const STATE_QUERY = 'state';
/**
 * Signal a worker sends the session when a remote observer's command it runs
 * has ended (its taskID): the workflow polls at once instead of at its next
 * timer. A hint only — the poll decides; a lost signal costs one poll interval.
 */
export const BG_SETTLED_SIGNAL = 'bgSettled';
/** Task queue default (temporal.yaml `taskQueue`). */
export const DEFAULT_TASK_QUEUE = 'zuno';
