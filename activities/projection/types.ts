import type { QuestionDeliveryState, QuestionView } from '../../core/question-contract.js';
import type { GoalSnapshot } from '../../core/goal/contract.js';
import type { EventData, EventType } from '../../core/events.js';
import type { PartKind } from '../../core/ids.js';
import type { BlockedCategory, ToolOutcome } from '../../core/tools/types.js';
import type { SqlStats } from './sql/runner.js';

export type { SqlStats } from './sql/runner.js';

/**
 * One write of a hot-path batch (ProjectionStore.writeBatch).
 *
 * - `toolCall` `plan`: a call the model asked for — identity, status, outcome,
 *   blocked category, output and error code are written (on conflict too);
 *   result, attempts and times are kept when the row exists.
 * - `toolCall` `running`: an attempt started — status `running`, attempts and
 *   start time; a completed row is left as it is.
 * - `toolCall` `complete`: the call's own result — written only while the row
 *   is not completed; otherwise the WHOLE batch is rolled back and
 *   writeBatch resolves false (the first record stands; the caller decides
 *   what the existing record means).
 * - `part`, `message`, `input`: upserts keyed by (sessionId, id), creation
 *   times set on insert only.
 * - `event`: insert-if-absent by (sessionId, id).
 * - `sessionTurn`: the session row at a turn's first step — inserted, or its
 *   route, provider, model, status and updatedAtMs updated; a stored title,
 *   the creation time, final text and error are kept.
 * - `sessionStatus`: a turn's end on an existing session row (`finalText`
 *   and `error` absent: the stored ones are kept).
 * - `inputState`: an existing input's SE2 state and updatedAtMs.
 */
export type ProjectionWrite =
  | { kind: 'toolCall'; mode: 'plan' | 'running' | 'complete'; row: ToolCallRow }
  | { kind: 'part'; row: PartRow }
  | { kind: 'message'; row: MessageRow }
  | { kind: 'input'; row: InputRow }
  | { kind: 'event'; event: NewEvent }
  | { kind: 'sessionTurn'; row: SessionRow }
  | {
      kind: 'sessionStatus';
      sessionId: string;
      status: SessionStatus;
      finalText?: string;
      error?: string;
      atMs: number;
    }
  | { kind: 'inputState'; sessionId: string; inputId: string; state: InputState; atMs: number };

/** A model step's place in a session: (turn, step), ordered by turn then step. */
export interface StepKey {
  turn: number;
  step: number;
}

/** The transcript rows of a range of steps (parts and tool calls by (turn, step, position); messages unordered). */
export interface TranscriptRows {
  messages: MessageRow[];
  parts: PartRow[];
  toolCalls: ToolCallRow[];
}

/**
 * The projection's hot path (issue 13): what a tool call and a model step
 * do on every call, as prepared statements — writes batched into one
 * transaction, reads of only what is new. Not available inside
 * {@link ProjectionStore.transaction}.
 */
export interface ProjectionHotPath {
  /**
   * Writes `writes` in order as ONE transaction of session `sessionId`
   * (see {@link ProjectionWrite} for what each does). Resolves true when it
   * committed; false when a `toolCall` `complete` write met a row already
   * completed — then nothing of the batch was written. Idempotent: a batch
   * that committed, run again, leaves the same rows.
   * @throws the driver's error (nothing written).
   */
  writeBatch(sessionId: string, writes: readonly ProjectionWrite[]): Promise<boolean>;
  /** How many parts the session has in the steps up to and including `through` (a cache's watermark). */
  partsThrough(sessionId: string, through: StepKey): Promise<number>;
  /** The transcript rows of the steps after `after` (every step when null). */
  transcriptAfter(sessionId: string, after: StepKey | null): Promise<TranscriptRows>;
  /** The parts of one step, by position. */
  stepParts(sessionId: string, at: StepKey): Promise<PartRow[]>;
  /** The session's tool calls whose outcome is `ok`, in call order (FT1: the read credentials are rebuilt from them). */
  okToolCalls(sessionId: string): Promise<ToolCallRow[]>;
  /** Statements and hot-path transactions run since the store opened (see SqlStats). */
  sqlStats(): SqlStats;
}

/**
 * The projection store: user-facing rows kept in Prisma (DESIGN.md §3 "Where
 * data lives"). Every write is an idempotent upsert keyed by a deterministic
 * id, because an activity may run twice: calling any write twice with the same
 * arguments leaves exactly the same rows as calling it once.
 *
 * All ids are unique per session (the primary key is `(sessionId, id)`), except
 * session ids, which are global. Times are epoch milliseconds. JSON-valued
 * fields are plain JS values here; the store serializes them.
 */
export interface ProjectionStore extends ProjectionHotPath {
  /** Which backend this is. */
  readonly backend: 'sqlite' | 'postgresql';

  /** Create or update a session row (status: see {@link SessionStatus}). */
  upsertSession(s: SessionRow): Promise<void>;
  /** Update only status (+ optional final text / error) of an existing session. */
  setSessionStatus(
    sessionId: string,
    status: SessionStatus,
    extra?: { finalText?: string; error?: string; updatedAtMs: number },
  ): Promise<void>;
  getSession(sessionId: string): Promise<SessionRow | null>;
  /** The binding of a host id (issue 33), or null when no machine claimed it. */
  getHostBinding(host: string): Promise<HostBindingRow | null>;
  /**
   * Claims a host id for a machine and home (issue 33): binds it on first use,
   * moves it only with `takeOver`; a conflict is `refused`, never an exception.
   */
  claimHost(claim: HostClaim, takeOver: boolean): Promise<HostClaimResult>;
  /**
   * Sessions, newest activity first (`updatedAtMs` descending), at most
   * `limit` (default 50, at most 1000); `workspace` and `status` filter exactly.
   */
  listSessions(filter?: { workspace?: string; status?: SessionStatus; limit?: number }): Promise<SessionRow[]>;
  /**
   * Where a session's history stands, for reopening it in a new workflow run:
   * the next turn number (1 + the highest turn with a message, 0 when none)
   * and the next input sequence number (1 + the highest `in_<n>`, 0 when none).
   */
  sessionCursor(sessionId: string): Promise<{ nextTurn: number; nextInputSeq: number }>;

  /** Create or replace a Goal's row (written by the `goal` workflow's `recordGoal` activity at every transition). */
  upsertGoal(g: GoalRow): Promise<void>;
  getGoal(goalId: string): Promise<GoalRow | null>;
  /** The newest Goal of a session (by creation), or null. */
  goalOfSession(sessionId: string): Promise<GoalRow | null>;
  /** Goals, newest activity first, at most `limit` (default 50, at most 1000); `status` filters exactly. */
  listGoals(filter?: { status?: string; limit?: number }): Promise<GoalRow[]>;

  /** Inbox input with its admission receipt (SE1/SE2). */
  upsertInput(i: InputRow): Promise<void>;
  /** Update the lifecycle state of an input (admitted → applied → completed/failed/cancelled). */
  setInputState(sessionId: string, inputId: string, state: InputState, atMs: number): Promise<void>;
  listInputs(sessionId: string): Promise<InputRow[]>;

  /** A transcript message (user or assistant). */
  upsertMessage(m: MessageRow): Promise<void>;
  /** A part of a message (PR9 ids). */
  upsertPart(p: PartRow): Promise<void>;
  /**
   * Remove every part (and tool-call row) of one model step: used to roll
   * back what an earlier attempt of the step stored (PR4). Says how much of
   * it was the step's model output.
   */
  deleteStep(sessionId: string, turn: number, step: number): Promise<StepDeletion>;

  /** A tool call: arguments, status, outcome and result. */
  upsertToolCall(t: ToolCallRow): Promise<void>;
  getToolCall(sessionId: string, id: string): Promise<ToolCallRow | null>;

  /**
   * Append one event to the append-only event log. Idempotent by `id`: a
   * second append with the same (sessionId, id) is ignored and returns the
   * original sequence number. Returns the event's global sequence number.
   */
  appendEvent(e: NewEvent): Promise<number>;
  /** Every event of a session with this type, ascending. */
  eventsOfType(sessionId: string, type: EventType): Promise<EventRow[]>;
  /** The newest event of a session with this type, or null. */
  lastEvent(sessionId: string, type: EventType): Promise<EventRow | null>;
  /** The `seq` of the session's newest event, 0 when it has none (a follower starts after it). */
  lastEventSeq(sessionId: string): Promise<number>;
  /** Events of a session with seq > afterSeq, ascending, at most `limit` (default 500). */
  listEvents(sessionId: string, afterSeq: number, limit?: number): Promise<EventRow[]>;
  /** Events of every session with seq > afterSeq, ascending, at most `limit` (default 500): the home's stream (SF3). */
  listEventsAfter(afterSeq: number, limit?: number): Promise<EventRow[]>;
  /** The newest event's `seq` in the whole projection, 0 when there is none. */
  lastSeq(): Promise<number>;

  /** The session's work state (Plan + Todo, GP15–GP32), or null before its first update. */
  getWorkState(sessionId: string): Promise<WorkStateRow | null>;
  /** Creates or replaces the session's work state row (every column is written). */
  upsertWorkState(w: WorkStateRow): Promise<void>;
  /** The recorded decision of one work-state update call (see {@link WorkUpdateRow}), or null. */
  getWorkUpdate(sessionId: string, id: string): Promise<WorkUpdateRow | null>;
  /** Records one decided work-state update; insert-if-absent by (sessionId, id): a second record keeps the first. */
  recordWorkUpdate(u: WorkUpdateRow): Promise<void>;

  /** Creates or replaces an approval's row (issue 11; written by `recordApproval`). */
  upsertApproval(a: ApprovalRow): Promise<void>;
  /** One approval of a session, or null. */
  getApproval(sessionId: string, id: string): Promise<ApprovalRow | null>;
  /** Approvals, oldest asked first, at most `limit` (default 100, at most 1000); `sessionId` and `status` filter exactly. */
  listApprovals(filter?: {
    sessionId?: string;
    status?: ApprovalRow['status'];
    limit?: number;
  }): Promise<ApprovalRow[]>;

  /** Creates or replaces a question's row (issue 11 item 5; written by `recordQuestion`). */
  upsertQuestion(q: QuestionRow): Promise<void>;
  /** One question of a session with its derived delivery state, or null. */
  getQuestion(sessionId: string, id: string): Promise<QuestionRow | null>;
  /**
   * Questions, oldest asked first, at most `limit` (default 100, at most
   * 1000), each with its derived QU12 delivery state; `sessionId` and
   * `status` filter exactly.
   */
  listQuestions(filter?: {
    sessionId?: string;
    status?: QuestionRow['status'];
    limit?: number;
  }): Promise<QuestionRow[]>;

  /** Creates or replaces a delegation's row (issue 12; written by `openDelegation` / `settleDelegation`). */
  upsertDelegation(d: DelegationRow): Promise<void>;
  /** The delegation of a parent's tool-call row, or null. */
  getDelegation(parentSessionId: string, rowId: string): Promise<DelegationRow | null>;
  /** The delegation that started child session `childSessionId`, or null. */
  getDelegationOfChild(childSessionId: string): Promise<DelegationRow | null>;
  /** A session's delegations, oldest first (at most 1000). */
  listDelegations(parentSessionId: string): Promise<DelegationRow[]>;
  /** Creates or replaces a Council's row (issue 12; written by `recordCouncil`). */
  upsertCouncil(c: CouncilRow): Promise<void>;
  /** One Council, or null. */
  getCouncil(id: string): Promise<CouncilRow | null>;
  /** Councils, newest first, at most `limit` (default 50, at most 1000). */
  listCouncils(filter?: { limit?: number }): Promise<CouncilRow[]>;

  /** The whole stored transcript, ordered: messages by (turn, step, role order), parts by (turn, step, position), tool calls likewise. */
  loadTranscript(sessionId: string): Promise<Transcript | null>;

  /**
   * Runs `fn` as one transaction on the rows of `sessionId`: every write made
   * through `tx` commits together or not at all (a crash or a thrown error
   * inside `fn` leaves none of them), and reads through `tx` see the
   * transaction's own writes. Two transactions of one session never
   * interleave, so a read-then-write inside `fn` decides on current rows.
   * Use `tx`, never the store itself, inside `fn`. Returns what `fn`
   * returns; rethrows what it throws (after rolling back). A transaction
   * may take at most 30 s.
   */
  transaction<T>(sessionId: string, fn: (tx: ProjectionWrites) => Promise<T>): Promise<T>;

  close(): Promise<void>;
}

/** What a transaction may do: every read and write of the store, on the transaction's connection. */
/** What {@link ProjectionStore.deleteStep} removed. */
export interface StepDeletion {
  /** Parts of the step's assistant message (text, reasoning, tool calls): model output. */
  assistantParts: number;
  /** Every other part of the step (the user inputs it carried, which the retry writes again). */
  otherParts: number;
  toolCalls: number;
}

export type ProjectionWrites = Omit<ProjectionStore, 'transaction' | 'close' | keyof ProjectionHotPath>;

/**
 * A session row's status. `terminated` is written only by a reader that found
 * the row open while Temporal says its workflow was terminated or timed out
 * (client/session-reconcile.ts): the workflow could record nothing itself.
 */
export type SessionStatus =
  | 'running'
  | 'completed'
  | 'waiting_background'
  | 'failed'
  | 'paused'
  | 'blocked'
  | 'interrupted'
  | 'cancelled'
  | 'terminated';

/** A Goal's projection row: the {@link GoalSnapshot} the workflow last recorded, with its key fields as columns. */
/**
 * A question as stored (prisma/models.prisma `Question`): the workflow's
 * {@link QuestionView} plus its QU12 delivery state, derived on read —
 * `waiting_answer` while pending; once answered, `applied` when its input
 * was carried into a turn (input state applied/completed/failed), else
 * `answered_pending_delivery`. Writes ignore `delivery`.
 */
export interface QuestionRow {
  sessionId: string;
  id: string;
  status: 'pending' | 'answered';
  revision: number;
  view: QuestionView;
  inputId: string | null;
  askedAtMs: number;
  updatedAtMs: number;
  delivery?: QuestionDeliveryState;
}

/**
 * An approval as stored (see prisma/models.prisma `Approval`). `abandoned`:
 * no decision will ever come — its session's workflow closed while the row
 * still said pending (client/stale-approvals.ts writes it, never the workflow).
 */
export interface ApprovalRow {
  sessionId: string;
  id: string;
  rowId: string;
  callId: string;
  tool: string;
  /** The full text shown to a person (issue 26); before it, the asking simple commands joined by `; `. */
  subjectText: string;
  /** `command` | `paths` | `none`: what `subjectText` is; null on rows asked before issue 26. */
  subjectKind: 'command' | 'paths' | 'url' | 'none' | null;
  /** The parsed parts the rules decided on; null on rows asked before issue 26. */
  subjectParts: string[] | null;
  /** sha256 (hex) of `subjectText`, which a decision carries; null on rows asked before issue 26. */
  subjectDigest: string | null;
  reason: string;
  /** One per line; with `grantScope` `call` the one pattern is the whole text (it may hold line feeds). */
  grantPattern: string | null;
  /** `call`: the grant matches the call's whole text; null: each simple command or path (before issue 26). */
  grantScope: 'call' | null;
  revision: number;
  status: 'pending' | 'approved' | 'denied' | 'not_run' | 'abandoned';
  decision: 'approve_once' | 'approve_session' | 'deny' | 'not_run' | null;
  commandId: string | null;
  message: string | null;
  turn: number;
  step: number;
  requestedAtMs: number;
  decidedAtMs: number | null;
}

export interface GoalRow {
  id: string;
  sessionId: string;
  workflowId: string;
  snapshot: GoalSnapshot;
}

/** A delegation as stored (prisma/models.prisma `Delegation`; docs/delegation.md). */
export interface DelegationRow {
  parentSessionId: string;
  rowId: string;
  callId: string;
  jobId: string | null;
  childSessionId: string;
  rootSessionId: string;
  agent: string;
  depth: number;
  mode: 'foreground' | 'background';
  objective: string;
  status: string;
  errorCode: string | null;
  error: string | null;
  report: string | null;
  /** Metadata schema 3 (DC17), parsed. */
  metadata: Record<string, unknown> | null;
  startedAtMs: number;
  settledAtMs: number | null;
}

/** A Council as stored (prisma/models.prisma `Council`; docs/council.md). */
export interface CouncilRow {
  id: string;
  workflowId: string;
  workspace: string;
  question: string;
  preset: string;
  diffRange: string | null;
  status: string;
  errorCode: string | null;
  /** The seats, parsed (core/council contract's seat records). */
  seats: unknown[];
  synthesis: string | null;
  parentSessionId: string | null;
  startedAtMs: number;
  seatDeadlineMs: number;
  deadlineMs: number;
  updatedAtMs: number;
}

/** A host id's binding to the machine and home that claimed it (issue 33; `HostBinding`). Times: epoch ms. */
export interface HostBindingRow {
  host: string;
  /** sha256 (first 16 hex) of the machine id. */
  machine: string;
  /** The machine's hostname when it bound (for people). */
  machineName: string;
  /** The Zuno home's absolute path on that machine. */
  home: string;
  boundAtMs: number;
  lastSeenAtMs: number;
  /** `<machineName>:<home>` of the binding a take-over replaced. */
  takenOverFrom?: string;
  takenOverAtMs?: number;
}

/** A worker's claim of a host id: who claims it and when. */
export interface HostClaim {
  host: string;
  machine: string;
  machineName: string;
  home: string;
  atMs: number;
}

/** What {@link ProjectionStore.claimHost} did: bound a new id, found it already ours, took it over, or refused. */
export type HostClaimResult =
  | { outcome: 'bound' | 'same'; binding: HostBindingRow }
  | { outcome: 'taken_over'; binding: HostBindingRow; previous: HostBindingRow }
  | { outcome: 'refused'; binding: HostBindingRow };

export interface SessionRow {
  id: string;
  workflowId: string;
  workspace: string;
  provider: string;
  model: string;
  status: SessionStatus;
  title?: string | null;
  finalText?: string | null;
  error?: string | null;
  /** Host that owns the workspace (SessionRoute.host); null before routing existed. */
  host?: string | null;
  /** Task queue of the session's activities; null before routing existed. */
  taskQueue?: string | null;
  /** The agent role (null/absent: build). */
  agent?: string | null;
  /** A child session (issue 12): its parent, the root of its tree and its depth. */
  parentSessionId?: string | null;
  rootSessionId?: string | null;
  depth?: number | null;
  createdAtMs: number;
  updatedAtMs: number;
}

/** SE1 admission outcome reported to the caller. */
export type AdmissionStatus = 'driven' | 'steered' | 'pending';
/** SE2 lifecycle. */
export type InputState = 'admitted' | 'applied' | 'completed' | 'failed' | 'cancelled';

export interface InputRow {
  id: string;
  sessionId: string;
  text: string;
  clientMessageId?: string | null;
  admission: AdmissionStatus;
  state: InputState;
  admittedAtMs: number;
  updatedAtMs: number;
}

export interface MessageRow {
  id: string;
  sessionId: string;
  role: 'user' | 'assistant';
  turn: number;
  step: number;
  /** For user messages: the inbox input they came from. */
  inputId?: string | null;
  createdAtMs: number;
}

export interface PartRow {
  /** `prt_{turn}_{step}_{position}_{kind}` */
  id: string;
  sessionId: string;
  messageId: string;
  turn: number;
  step: number;
  position: number;
  kind: PartKind;
  /** text / reasoning content; tool result text for tool_result. */
  text?: string | null;
  /** For tool_call / tool_result parts: the tool call row id. */
  toolCallId?: string | null;
  /** Small structured metadata (provider ids, withheld-output facts…). */
  metadata?: Record<string, unknown> | null;
  createdAtMs: number;
}

export type ToolCallStatus = 'pending' | 'running' | 'completed';

export interface ToolCallRow {
  /** `tc_{turn}_{step}_{position}` */
  id: string;
  sessionId: string;
  turn: number;
  step: number;
  position: number;
  /** The provider's call id. */
  callId: string;
  tool: string;
  /** Raw argument text as the model sent it. */
  argsJson: string;
  status: ToolCallStatus;
  outcome?: ToolOutcome | null;
  blockedCategory?: BlockedCategory | null;
  /** Model-visible result text. */
  output?: string | null;
  errorCode?: string | null;
  /** Structured result data: read credential, receipt, truncation, uncertain record… */
  result?: Record<string, unknown> | null;
  /** Activity attempts observed (1 = first try). */
  attempts?: number | null;
  startedAtMs?: number | null;
  endedAtMs?: number | null;
}

/**
 * An event to append: `type` is one of the catalogue's (core/events.ts) and
 * `data` is type-checked against that type's schema.
 */
export type NewEvent = {
  [T in EventType]: {
    /** Deterministic id, unique per session (idempotency key). */
    id: string;
    sessionId: string;
    type: T;
    data: EventData<T>;
    atMs: number;
  };
}[EventType];

/** A stored event as read back: parse `type` + `data` with core/events.ts `parseEvent` before use. */
export interface EventRow {
  seq: number;
  id: string;
  sessionId: string;
  /** Dotted type; a catalogued one unless the row predates or postdates this build. */
  type: string;
  data: Record<string, unknown>;
  atMs: number;
}

/**
 * A session's work state as stored (one row per session): each part's
 * revision beside the JSON text of the rest of its reducer state
 * (core/work/codec.ts encodes and decodes it; the store never parses it).
 */
export interface WorkStateRow {
  sessionId: string;
  /** Revision of the Plan; null when no Plan exists (then `planJson` is null too). */
  planRevision: number | null;
  /** `{ levels, nextStep, goalId? }` as JSON text. */
  planJson: string | null;
  /** Revision of the Todo list; 0 before its first batch. */
  todoRevision: number;
  /** `{ items, nextItem }` as JSON text; null before the first batch. */
  todoJson: string | null;
  updatedAtMs: number;
}

/**
 * The decision of one work-state update call, recorded in the transaction
 * that applied it: a second run of the same call returns `result` instead
 * of applying again. `id` is `<tool-call row id>/<provider call id>`.
 */
export interface WorkUpdateRow {
  sessionId: string;
  id: string;
  tool: string;
  /** The tool result as it was returned the first time. */
  result: Record<string, unknown>;
  atMs: number;
}

export interface Transcript {
  session: SessionRow;
  inputs: InputRow[];
  messages: MessageRow[];
  parts: PartRow[];
  toolCalls: ToolCallRow[];
}
