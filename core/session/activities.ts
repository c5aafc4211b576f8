/**
 * The session workflow's activities (implemented in activities/session/):
 * `SessionActivities` and the inputs and results of the model step, the
 * background command and observer, and `finishTurn`. Tool activities are in
 * ./tool-activity.ts.
 */
import type { CompactInput, CompactResult, CompactionRequired } from '../compaction/contract.js';
import type { RecordApprovalInput } from '../approval-contract.js';
import type { FinishReason, Usage } from '../messages.js';
import type { RecordQuestionInput } from '../question-contract.js';
import type { SandboxPolicy } from '../sandbox.js';
import type { AdmittedInput } from './inbox.js';
import type { SessionMeta } from './meta.js';
import type { PlannedToolCall, SettledOutcome, SettlementReconciliation } from './tool-calls.js';

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
  /**
   * The workflow understands `compactionRequired` (issue 28): only then does
   * the step check the compaction threshold instead of sending (an older
   * workflow would read the empty answer as final).
   */
  mayCompact?: boolean;
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
  /**
   * CP6: the request was not sent — it would cross the compaction threshold.
   * Nothing of the step was written; the workflow compacts and runs the step again.
   */
  compactionRequired?: CompactionRequired;
}

/** Input of the `bgCommand` activity: runs one background shell call to its end (BG2, BG6). */
export interface BgCommandInput {
  sessionId: string;
  workspace: string;
  call: PlannedToolCall;
  taskID: string;
  /** The session's sandbox policy (`SessionMeta.sandbox`; absent: the auto default). */
  sandbox?: SandboxPolicy;
  /** The session's route host, the command's `ZUNO_HOST_ID` (issue 33; absent: the worker's own host id). */
  host?: string;
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

/** Activity functions the session workflow calls (implemented in activities/). */
export interface SessionActivities {
  modelStep(input: ModelStepInput): Promise<ModelStepResult>;
  /** CP6–CP15: summarizes the session's older conversation and publishes the summary once (activities/session/compaction/). */
  compactSession(input: CompactInput): Promise<CompactResult>;
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
