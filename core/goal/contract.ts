import type { ContextWindow } from '../compaction/settings.js';
import type { ProviderConfig } from '../provider-config.js';
import type { SessionMeta, SessionRoute } from '../session/meta.js';
import type { TurnOutcome } from '../session/outcome.js';
import type { GoalBudgets } from './budgets.js';
import type { GoalState } from './status.js';
import type { ErrorCode } from '../error-codes.js';
import type { GoalWatchSpec, GoalWatchState } from './watch.js';

/**
 * The contract of the `goal` workflow (DESIGN.md §3 Goal row, SPEC-DIGEST
 * GL): its input, its Updates, Query and Signals, and what it exchanges
 * with the session it drives. Small payloads only: ids, statuses, counts.
 */

/** Workflow id of a Goal: `goal/<goalId>`. */
export function goalWorkflowId(goalId: string): string {
  return `goal/${goalId}`;
}

/** One completion criterion of a Goal (GL31; SEED-GAP GL40 decided in docs/goals.md). */
export interface GoalCriterion {
  /** Host id `cr_<n>`. */
  id: string;
  text: string;
  /** true: only a stored authoritative, passed shell receipt satisfies it (GL32). Always true with a `check`. */
  needsEvidence: boolean;
  /**
   * The shell command that owns the criterion (issue 26 item 6): only an
   * authoritative, passing, fresh receipt of exactly this command (white
   * space collapsed) satisfies it. Absent: any passing receipt (as before).
   */
  check?: string;
  /**
   * Owned by the Goal's release watch (issue 31): only the watch's matched
   * report satisfies it (evidence `wr_<goalId>`); no tool call settles it.
   */
  watch?: true;
  /** `pending` until settled; `satisfied` (with evidence when needed) or `dropped` (no longer applies). */
  status: 'pending' | 'satisfied' | 'dropped';
  /** The receipt that satisfied it: `rcp_…` of a shell call in this Goal's session. */
  evidence?: { receiptId: string; callId: string };
}

/** Counters a Goal keeps (GL10–GL18: the units in core/goal/budgets.ts). */
export interface GoalSpent {
  /** Sum of the four PR11 buckets over every request of the Goal's turns. */
  tokens: number;
  /** Requests whose usage the provider did not report (GL15). */
  unmeasuredRequests: number;
  toolCalls: number;
  /** Goal-owned turns that ended. */
  turns: number;
}

/** The Goal as the `goal` Query, the projection row and the CLI see it. */
export interface GoalSnapshot {
  goalId: string;
  sessionId: string;
  objective: string;
  /** Goes up by 1 at every change of objective, criteria or status made by a person or a tool (GL19). */
  revision: number;
  state: GoalState;
  budgets: GoalBudgets;
  spent: GoalSpent;
  criteria: GoalCriterion[];
  /** GL23: the progress fingerprint of the last Goal-owned turn and how many turns in a row had it. */
  progress: { fingerprint: string | null; repeats: number };
  /** GL33: the Goal's creation time bounds which uncertain calls are its obligations. */
  createdAtMs: number;
  updatedAtMs: number;
  /** While paused `uncertain_side_effect`: the calls whose outcome is unknown. */
  uncertain?: { callId: string; tool: string; cause: string }[];
  /** While paused `required_input` (GL39): the question the Goal waits on. */
  question?: { requestId: string; text: string; revision: number };
  /** The release watch (issue 31): what it checks, how it stands, its report once it woke the Goal. */
  watch?: GoalWatchState;
  /** The receipt of the last completion audit that refused (shown by `goal show`). */
  lastAudit?: { ok: boolean; problems: string[]; atMs: number };
  /**
   * The audit trail (issue 26 item 7): the newest {@link MAX_TRANSITIONS_KEPT}
   * status transitions, oldest first. Only in the projection row (the
   * `recordGoal` activity appends what the workflow hands it); the
   * workflow's own snapshot and the `goal` Query carry none.
   */
  transitions?: GoalTransition[];
}

/** Transitions a Goal's projection row keeps (the newest). */
export const MAX_TRANSITIONS_KEPT = 200;

/** One status transition of a Goal, as `zuno goal show` lists it (issue 26 item 7). */
export interface GoalTransition {
  /** The revision the Goal reached with it. */
  revision: number;
  /** Workflow time of the change, epoch ms. */
  atMs: number;
  /** The status before; null for the Goal's start. */
  from: GoalState['status'] | null;
  to: GoalState['status'];
  /** The typed reason of `to` (pause reason, budget kind, block code, who cancelled), or null. */
  reason: string | null;
  /** The status's message, when it has one (a pause's question, a block's cause). */
  message?: string;
  /** Who or what caused it, in words: `you (Ctrl-C): goal pause`, `the model: goal_update in turn 3`, `turn 3 ended (failed)`, `the time budget`. */
  by: string;
  /** The receipts the change rests on (a completion: its criteria's evidence). */
  evidence?: string[];
  /** What the Goal had spent, and its budgets, at that point. */
  spent: GoalSpent;
  budgets: GoalBudgets;
}

/** Input of the `goal` workflow (also its continue-as-new carrier). */
export interface GoalWorkflowInput {
  goalId: string;
  objective: string;
  criteria: { text: string; needsEvidence: boolean; check?: string; watch?: true }[];
  budgets: GoalBudgets;
  /**
   * A release watch (issue 31): the Goal waits (`waiting_watch`) until it
   * reports, and only then starts its session — the client does not.
   */
  watch?: GoalWatchSpec;
  /** The session the Goal drives (`session/<sessionId>`, started by the client right after the goal: client/goal-start.ts). */
  session: SessionMeta;
  /** When the client asked for the goal (informational: the goal's own clock starts at its workflow's start). */
  createdAtMs: number;
  /** Compact state carried across continue-as-new. */
  carried?: GoalCarried;
}

/** What a `goal` run hands to the next across continue-as-new. */
export interface GoalCarried {
  snapshot: GoalSnapshot;
  /** Backoff attempts in a row. */
  attempt: number;
  /** The continuation sent to the session and not yet started or voided. */
  outstanding: string | null;
  nextContinuation: number;
  turnRunning: boolean;
  /** Results of recent Updates by command / Update id (the same command twice returns the first result). */
  recent: [string, GoalUpdateResult | GoalControlResult | GoalRequestInputResult][];
  /** Transitions not yet handed to `recordGoal` (absent in runs recorded before issue 26). */
  unrecorded?: GoalTransition[];
}

/** Update `goalUpdate` (the `goal_update` tool, GL30): settle criteria and/or complete, atomically. */
export const GOAL_UPDATE_UPDATE = 'goalUpdate';
/** Update `goalControl` (a person: `zuno goal pause|resume|cancel`, answer, edit). */
export const GOAL_CONTROL_UPDATE = 'goalControl';
/** Update `goalRequestInput` (the `goal_request_input` tool, GL39). */
export const GOAL_REQUEST_INPUT_UPDATE = 'goalRequestInput';
/** Query `goal`: the {@link GoalSnapshot}. */
export const GOAL_QUERY = 'goal';
/** Signal session → goal: a turn of the Goal's session started or ended. */
export const GOAL_TURN_SIGNAL = 'goalTurn';
/** Signal goal → session: the Goal's status and revision, with a continuation to run when it asks for one. */
export const GOAL_DIRECTIVE_SIGNAL = 'goalDirective';

/** `goalUpdate` argument, built by the `goal_update` activity after it checked the receipts in the projection. */
export interface GoalUpdateRequest {
  expectedRevision: number;
  /** New criteria to add (ids are given by the Goal). */
  add?: { text: string; needsEvidence: boolean; check?: string }[];
  /** Settlements of existing criteria. */
  settle?: { id: string; status: 'satisfied' | 'dropped'; receiptId?: string }[];
  /** Complete the Goal in the same commit (GL30): refused, with everything above rolled back, when the audit fails. */
  complete?: boolean;
  /** What the activity found for each receipt id named in `settle`: only `authoritative` + `passed` is evidence. */
  receipts: Record<string, GoalReceiptFacts>;
  /** The turn the call ran in and whether the Goal owned it (a paused Goal is not completed from an independent input, GL31). */
  turn: number;
}

/** What the `goal_update` activity found of one cited receipt in the session's stored tool calls (GL32). */
export interface GoalReceiptFacts {
  found: boolean;
  /** Rows holding the id: more than 1 only for ids given before receipts were unique per call (refused ambiguous). */
  matches?: number;
  /** The call that recorded it (when exactly one did). */
  callId?: string;
  authority?: string;
  verdict?: string;
  /** The command the receipt ran, as recorded. */
  command?: string;
  /** Where it ran, relative to the workspace (absent: the workspace root); a check runs at the root. */
  workdir?: string;
  /** Paths that calls made after this one wrote (at most 5 named): the receipt is stale for an owned check. */
  writtenAfter?: string[];
}

/** `goalUpdate` result: committed, or refused with every change rolled back. */
export type GoalUpdateResult =
  | { ok: true; revision: number; status: GoalState['status']; criteria: GoalCriterion[] }
  | { ok: false; code: ErrorCode; problems: string[]; revision: number; status: GoalState['status'] };

/** `goalRequestInput` argument (GL39): the question, bound to the revision the model observed. */
export interface GoalRequestInputRequest {
  expectedRevision: number;
  question: string;
  /** The tool call asking (its id names the request: `rq_<callId>`). */
  callId: string;
}

/** `goalRequestInput` result: the Goal now waits for the answer, or the request was refused. */
export type GoalRequestInputResult =
  | { ok: true; requestId: string; revision: number }
  | { ok: false; code: ErrorCode; message: string; revision: number; status: GoalState['status'] };

/**
 * `goalControl` argument: what a person asks. Every request is bound to the
 * Goal's revision (`expectedRevision`): a stale one is refused; the same
 * `commandId` twice returns the first result.
 * - `pause`: stop auto-continuing (the running turn ends normally).
 * - `resume`: `choice: 'resume'` (Resume goal) or `'keep_paused'` (GL27); a
 *   new route or provider for the session when the old worker is gone.
 * - `cancel`: the Goal ends `cancelled`.
 * - `answer`: the answer to the Goal's required-input question (GL39).
 * - `edit`: a new objective (the revision moves: a prepared continuation is void).
 * - `budgets`: new budgets (a budget-limited Goal can then be resumed).
 */
export type GoalControlRequest = { commandId: string; expectedRevision?: number; by?: string } & (
  | { action: 'pause' }
  | {
      action: 'resume';
      choice: 'resume' | 'keep_paused';
      route?: SessionRoute;
      provider?: ProviderConfig;
      model?: string;
      /** With `model`: its context window (null: unknown; issue 28). */
      context?: ContextWindow | null;
    }
  | { action: 'cancel' }
  | { action: 'answer'; requestId: string; text: string }
  | { action: 'edit'; objective: string }
  | { action: 'budgets'; budgets: GoalBudgets }
);

/** `goalControl` result. */
export interface GoalControlResult {
  goalId: string;
  revision: number;
  status: GoalState['status'];
  /** What happened, in plain words (`the Goal stays paused`, …). */
  message: string;
}

/** What a Goal-owned turn was, as the session ran it. */
export type GoalTurnSource =
  | { kind: 'anchor' }
  | { kind: 'continuation'; continuationId: string; revision: number }
  | { kind: 'user' }
  | { kind: 'report' }
  | { kind: 'discussion' };

/** Signal `goalTurn` (session → goal). */
export type GoalTurnReport =
  | { event: 'started'; turn: number; source: GoalTurnSource }
  | {
      event: 'ended';
      turn: number;
      source: GoalTurnSource;
      outcome: TurnOutcome;
      /** Sum of the four PR11 buckets over the turn's requests; `unmeasured` counts requests without usage. */
      usage: { tokens: number; unmeasured: number };
      toolCalls: number;
      /** Successful calls of tools that are not ReadOnly (GL23: the turn changed something). */
      changes: number;
      /** Calls of the turn whose outcome is unknown (GL33: `Never` calls that lost their outcome or were forced). */
      uncertain: { callId: string; tool: string; cause: string }[];
      /** Background tasks still running when the turn ended, and which of them are remote observers (GL26). */
      background: { running: string[]; remoteObservers: string[] };
      /** Work-state fingerprint at the turn's end (GL23: Plan/Todo revisions and successful changes). */
      progress: string;
      /** Plan/Todo work remains unfinished (GL26 trigger). */
      workRemains: boolean;
      /** From a failed turn: what the provider asked for (GL6). */
      retryAfterMs?: number;
    }
  | { event: 'voided'; continuationId: string; revision: number; reason: string };

/** Signal `goalDirective` (goal → session). */
export interface GoalDirective {
  revision: number;
  status: GoalState['status'];
  /** Run one continuation turn (GL19): bound to `revision`, void if it moved before provider work starts. */
  continueWith?: { continuationId: string };
  /** A resumed Goal whose session has a new server (`zuno goal resume`). */
  route?: SessionRoute;
  provider?: ProviderConfig;
  model?: string;
  /** With `model`: its context window (null: unknown; issue 28). */
  context?: ContextWindow | null;
  /** GL36: turns run while the Goal is paused on an unknown outcome have every tool disabled. */
  toolsDisabled?: boolean;
  /** The Goal was resumed: a session paused with it (PR3 `provider_auth`) runs its paused turn again. */
  resumeSession?: boolean;
  /** GL39: the person's answer to the Goal's question, admitted to the session as their input. */
  answer?: { requestId: string; text: string };
}
