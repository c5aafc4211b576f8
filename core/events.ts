/**
 * The event catalogue: every event type Zuno appends to the append-only
 * event log, with the zod schema of its `data` (DESIGN.md §3 "persistent
 * events"; SF1: surfaces read these). Writers are type-checked against it
 * (activities/projection/types.ts `NewEvent`), readers parse with
 * {@link parseEvent} instead of casting. Deterministic: zod + pure code only.
 *
 * Adding an event: add its name to {@link EV} and its schema to
 * {@link eventSchemas}; nothing else may spell an event type.
 */
import { z } from 'zod';

/** Event type names. The only place an event type is spelled. */
export const EV = {
  /** SE7: a turn started, before its first provider request. */
  turnStarted: 'session.turn.started.1',
  /** SE9: one provider request (per attempt) with its PR8 replay counts. */
  providerRequest: 'session.provider.request',
  /** PR11: usage of one provider request and the session's cumulative buckets. */
  usage: 'session.usage',
  /** How a turn ended (one per turn). */
  completed: 'session.completed',
  failed: 'session.failed',
  paused: 'session.paused',
  blocked: 'session.blocked',
  interrupted: 'session.interrupted',
  /** Coalesced assistant text as it streams. */
  partDelta: 'message.part.delta',
  /**
   * PR4: a model step is retried (attempt > 1); whatever the earlier attempt
   * had stored of the step was rolled back first (`discardedParts`, often 0:
   * a failed stream stores nothing).
   */
  stepRollback: 'message.step.rollback',
  /** The assistant message of one step is complete. */
  messageCompleted: 'message.completed',
  /** PR8: a reasoning capsule was stored on its part. */
  reasoningItem: 'provider.reasoning.item',
  /** PR1/PR2: a retryable provider failure and what happens next. */
  providerRetry: 'provider.retry',
  /** PR1: the step's recovery window started (first retryable failure). */
  retryWindow: 'provider.retry.window',
  /** TD8: a call was rejected; nothing ran. */
  toolBlocked: 'tool.dispatch.blocked',
  /** A tool activity attempt started. */
  toolStarted: 'tool.started',
  /** A tool call's record is final: the tool's own result, or an outcome the workflow settled (`settledBy`). */
  toolCompleted: 'tool.completed',
  /** SF13: how an interrupted turn's call ended (its verdict), published with the turn's end. */
  toolDispatchInterrupted: 'tool.dispatch.interrupted',
  /** A tool reported after the workflow had settled the call (TD10 forced); logged, not applied. */
  toolLateResult: 'tool.late_result',
  /** The workflow settled a call whose own result had already committed; the committed result stands. */
  toolSettlementSuperseded: 'tool.settlement_superseded',
  /** MC2/MC3: a `tool_search` call exposed MCP tools from the next step (the durable exposure ledger). */
  mcpToolsExposed: 'mcp.tools.exposed',
  /** Issue 30: an MCP server of the session connected, failed, or changed its tool list (a new catalog revision). */
  mcpServerState: 'mcp.server.state',
  /** BG6: a background command ended. */
  bgCompleted: 'bg.completed',
  /** TD2/PM6: a call waits for a person's decision (the permission gate answered `ask`). */
  approvalRequested: 'approval.requested',
  /** PM6: how an approval ended: approved once or for the session, denied, or not run (the turn was interrupted). */
  approvalDecided: 'approval.decided',
  /** QU1/QU8: a question tool published a question (deferred: the tool returned a receipt at once). */
  questionAsked: 'question.asked',
  /** QU1/QU3: a person answered items of a question (`complete`: every item; its input is then in the inbox). */
  questionAnswered: 'question.answered',
  /** QU11: a deferred question's 120 s deadline passed: no answer, no input, the question stays open. */
  questionAutoDeferred: 'question.auto_deferred',
  /** Issue 12: a `task` call started a child session (foreground, or a background job). */
  delegationStarted: 'delegation.started',
  /** Issue 12: the parent's workflow saw the child session end; its report is recorded (DC4, DC17). */
  delegationSettled: 'delegation.settled',
  /** SE10/SE27: the rule files in force for a turn (whole), read once at the turn's first model request. */
  instructionInForce: 'instruction.in_force',
  /** SE27: a warning-level notice: a rule file was skipped whole because it did not fit the remaining budget. */
  instructionNotInForce: 'instruction.not_in_force',
  /** SE28: the exact text of a stable prompt segment, stored once per content digest, so later steps send the same bytes. */
  promptSegment: 'prompt.segment',
  /** SE28 (issue 32): the system segments one model request carries — ids, sources, sizes, digests — stored before it is sent. */
  promptAssembled: 'session.prompt',
  /** A Goal's status, revision or criteria changed (written by the `goal` workflow's `recordGoal`; one per revision). */
  goalStatus: 'goal.status',
  /** GL17: a typed notice, e.g. a Goal's budget stop `budget.<kind>`. */
  notice: 'notice',
  /** CP6/CP13: a compaction starts (the marker; its own atomic write, before the summary request). */
  contextCompact: 'context.compact',
  /** CP12/CP13: a compaction's summary, published once in its own atomic write; the newest is the valid one. */
  compactionSummary: 'session.compaction.summary',
  /** CP11: the summary request as sent: segment ids, sources, hash and limits (beside its summary). */
  compactionPrompt: 'session.compaction.prompt',
  /** CP12: a compaction attempt that published nothing (the earlier valid summary stays valid). */
  compactionFailed: 'session.compaction.failed',
} as const;

/** Every catalogued event type. */
export type EventType = (typeof EV)[keyof typeof EV];

const toolOutcome = z.enum(['ok', 'error', 'blocked', 'uncertain']);
const ids = { rowId: z.string(), callId: z.string(), tool: z.string() };
const tokens = z.number();
const stepKey = z.object({ turn: z.number(), step: z.number() });

/** PR11 non-overlapping buckets (absent = unknown). */
const buckets = z.object({
  uncachedInput: tokens.optional(),
  cacheRead: tokens.optional(),
  cacheWrite: tokens.optional(),
  output: tokens.optional(),
});

/** Normalized provider usage (core/messages.ts Usage); absent = not reported. */
const usage = z.object({
  inputTokens: tokens.optional(),
  outputTokens: tokens.optional(),
  cachedInputTokens: tokens.optional(),
  cacheWriteInputTokens: tokens.optional(),
  reasoningTokens: tokens.optional(),
  totalTokens: tokens.optional(),
});

/** What the workflow saw when it settled a call (SettledOutcome, minus ids). */
export const workflowSawSchema = z.object({
  outcome: z.enum(['uncertain', 'error']),
  cause: z.enum(['lost_outcome', 'interrupted', 'failed', 'not_run']),
  failureType: z.string(),
  message: z.string(),
  observedAtMs: z.number(),
});

/** How a turn ended: shared by the five `session.<status>` events. */
const turnEnded = z.object({
  sessionId: z.string(),
  turn: z.number(),
  workflowId: z.string().nullable(),
  text: z.string().nullable(),
  error: z.object({ code: z.string(), message: z.string() }).nullable(),
  background: z.array(z.string()),
  /** Issue 29 (SF10): the inputs this turn answered — a surface's prompt ends at the event naming its input; absent before. */
  inputIds: z.array(z.string()).optional(),
});

/** Where a rule file comes from (core/rule-budget.ts RuleScope). */
const ruleScope = z.enum(['user', 'workspace']);

/** Payload schema of each event type. */
export const eventSchemas = {
  [EV.turnStarted]: z.object({
    turn: z.number(),
    trigger: z.enum(['user_input', 'background_report', 'goal_continuation']),
    anchorMessageId: z.string().nullable(),
    agent: z.string(),
    provider: z.string(),
    model: z.string(),
  }),
  [EV.providerRequest]: z.object({
    turn: z.number(),
    step: z.number(),
    attempt: z.number(),
    provider: z.string(),
    model: z.string(),
    surface: z.string(),
    messages: z.number(),
    reasoningReplay: z.enum(['off', 'encrypted']),
    replayedReasoningCapsules: z.number(),
    withheldReasoningCapsules: z.number(),
    restoredReasoningReplayBoundaries: z.number(),
    withheldAmbiguousReasoningCapsules: z.number(),
    /** Issue 28: the tokenizer estimate of the request and its estimator (absent before it). */
    estimatedTokens: z.number().optional(),
    estimator: z.string().optional(),
  }),
  [EV.usage]: z.object({
    eventId: z.string(),
    turn: z.number(),
    step: z.number(),
    attempt: z.number(),
    usage: usage.nullable(),
    buckets,
    cumulative: z.object({
      requests: z.number(),
      tokens: buckets,
      unknownRequests: z.object({
        uncachedInput: z.number().optional(),
        cacheRead: z.number().optional(),
        cacheWrite: z.number().optional(),
        output: z.number().optional(),
      }),
      reasoning: z.number().optional(),
    }),
    snapshot: z.object({
      confirmedTokens: z.number().optional(),
      estimatedTokens: z.number(),
      totalTokens: z.number(),
      // Issue 28 (CP6): absent in events recorded before it (their estimate was chars/4).
      estimator: z.string().optional(),
      requestEstimate: z.number().optional(),
      windowTokens: z.number().optional(),
      usableTokens: z.number().optional(),
    }),
  }),
  [EV.completed]: turnEnded,
  [EV.failed]: turnEnded,
  [EV.paused]: turnEnded,
  [EV.blocked]: turnEnded,
  [EV.interrupted]: turnEnded,
  [EV.partDelta]: z.object({ messageId: z.string(), text: z.string() }),
  [EV.stepRollback]: z.object({
    turn: z.number(),
    step: z.number(),
    attempt: z.number(),
    /** Attempts the step may take, the first included (the provider's retry.maxAttempts); absent in older rows. */
    maxAttempts: z.number().optional(),
    /** Stored model-output parts of the earlier attempt that were deleted (0: nothing had been stored); absent in older rows. */
    discardedParts: z.number().optional(),
  }),
  [EV.messageCompleted]: z.object({
    messageId: z.string(),
    turn: z.number(),
    step: z.number(),
    finishReason: z.string(),
    toolCalls: z.number(),
    usage: usage.nullable(),
  }),
  [EV.reasoningItem]: z.object({
    messageId: z.string(),
    position: z.number(),
    provider: z.string(),
    model: z.string(),
    surface: z.string(),
    itemId: z.string().optional(),
    encryptedContent: z.string().optional(),
    signature: z.string().optional(),
    redactedData: z.string().optional(),
    summary: z.array(z.string()).optional(),
    producedAtMs: z.number(),
  }),
  [EV.providerRetry]: z.object({
    turn: z.number(),
    step: z.number(),
    attempt: z.number(),
    code: z.string(),
    diagnostic: z.object({
      status: z.number().optional(),
      code: z.string().optional(),
      requestId: z.string().optional(),
      reason: z.string(),
    }),
    delayMs: z.number(),
    /** Attempts the step may take, the first included; absent in older rows. */
    maxAttempts: z.number().optional(),
    remainingWindowMs: z.number(),
    lastAttempt: z.boolean(),
    willRetry: z.boolean(),
  }),
  [EV.retryWindow]: z.object({
    turn: z.number(),
    step: z.number(),
    firstFailureAtMs: z.number(),
    windowMs: z.number(),
  }),
  [EV.toolBlocked]: z.object({
    ...ids,
    category: z.enum(['invalid_arguments', 'unavailable', 'denied']),
    message: z.string(),
  }),
  [EV.toolStarted]: z.object({ ...ids, attempt: z.number(), summary: z.string() }),
  [EV.toolCompleted]: z.object({
    ...ids,
    outcome: toolOutcome,
    /** Set when the workflow settled the outcome (the tool never reported): why. */
    cause: z.enum(['lost_outcome', 'interrupted', 'failed', 'not_run']).optional(),
    settledBy: z.literal('workflow').optional(),
    /** With `settledBy`: whether a worker had started the call (its row had left `pending`). */
    started: z.boolean().optional(),
    errorCode: z.string().nullable().optional(),
    outputBytes: z.number().optional(),
    durationMs: z.number().optional(),
    attempt: z.number().optional(),
    /** What decides how the outcome reads (ToolActivityFacts): exit code, verdict, conflict kind, `failed`. */
    facts: z
      .object({
        failed: z.boolean().optional(),
        exitCode: z.number().optional(),
        signal: z.string().optional(),
        /** Shell: the time limit the command hit, in ms (ToolActivityFacts.timeLimitMs). */
        timeLimitMs: z.number().optional(),
        verdict: z.string().optional(),
        conflict: z.string().optional(),
        withheld: z.boolean().optional(),
        /** A delegated call's child (ToolActivityFacts.child). */
        child: z
          .object({ sessionId: z.string(), agent: z.string(), status: z.string(), jobId: z.string().optional() })
          .optional(),
        /** A `council_run` call's Council (ToolActivityFacts.council). */
        council: z.object({ runId: z.string(), status: z.string(), valid: z.number(), needed: z.number() }).optional(),
      })
      .optional(),
  }),
  [EV.toolDispatchInterrupted]: z.object({
    ...ids,
    /** The call's stored outcome after the interrupt (uncertain, error for not run, or ok/error when it finished first). */
    outcome: toolOutcome,
    /** Why: `interrupted` (stopped before it reported), `not_run`, `cancelled` (stopped cooperatively), … */
    cause: z.string(),
    /** The verdict in plain words, as `zuno session show` prints it (core/session/interrupt-verdict.ts). */
    verdict: z.string(),
  }),
  [EV.mcpToolsExposed]: z.object({
    ...ids,
    /** The query that found them. */
    query: z.string(),
    /** Wire names exposed, with their original server and tool names (MC7). */
    tools: z.array(z.object({ name: z.string(), server: z.string(), tool: z.string() })),
    /** Monotonic revision of the session's exposure ledger (one more per call that exposed something). */
    revision: z.number(),
  }),
  [EV.mcpServerState]: z.object({
    server: z.string(),
    status: z.enum(['connected', 'failed', 'closed']),
    /** Monotonic revision of the server's tool catalog in this session (one more per list change). */
    revision: z.number(),
    tools: z.number(),
    /** The server's own error, when it failed. */
    error: z.string().optional(),
    /** What changed since the session's last record of the server (absent in records written before it existed). */
    change: z.enum(['connected', 'reconnected', 'tools_changed', 'failed', 'closed']).optional(),
    /** sha256 (hex, 16 chars) of the server's sorted tool names: a record is written when it or the status changes. */
    digest: z.string().optional(),
  }),
  [EV.toolLateResult]: z.object({ ...ids, outcome: toolOutcome, attempt: z.number() }),
  [EV.toolSettlementSuperseded]: z.object({
    ...ids,
    /** The committed outcome, which stands. */
    stands: toolOutcome,
    workflowSaw: workflowSawSchema,
  }),
  [EV.goalStatus]: z.object({
    goalId: z.string(),
    revision: z.number(),
    status: z.string(),
    reason: z.string().nullable(),
    message: z.string().nullable(),
    turns: z.number(),
  }),
  [EV.notice]: z.object({ code: z.string(), message: z.string(), goalId: z.string().optional() }),
  [EV.contextCompact]: z.object({
    compactionId: z.string(),
    trigger: z.enum(['threshold', 'context_limit', 'manual']),
    /** 1..5 for an automatic recovery of the drive, 0 for a manual compaction. */
    recovery: z.number(),
    turn: z.number(),
    step: z.number(),
    usedTokens: z.number().optional(),
    limitTokens: z.number().optional(),
    attempt: z.number(),
  }),
  [EV.compactionSummary]: z.object({
    compactionId: z.string(),
    trigger: z.enum(['threshold', 'context_limit', 'manual']),
    boundary: stepKey,
    /** The summary text (≤ compaction.maxSummaryBytes). */
    summary: z.string(),
    summaryHash: z.string(),
    /** The valid summary it inherited and corrected (CP3, CP13), if any. */
    previous: z.string().nullable(),
    /** Steps and user messages the summary stands for, from the session's start (the scripted server's position). */
    summarizedSteps: z.number(),
    summarizedUserMessages: z.number(),
    /** The session's first user message (CP10), kept verbatim in every later request: its step and part position. */
    anchor: z.object({ turn: z.number(), step: z.number(), position: z.number() }).nullable().optional(),
    beforeTokens: z.number(),
    afterTokens: z.number(),
    estimator: z.string(),
    usage: usage.nullable(),
  }),
  [EV.compactionPrompt]: z.object({
    compactionId: z.string(),
    segments: z.array(z.object({ id: z.string(), source: z.string(), chars: z.number() })),
    requestHash: z.string(),
    timeoutSeconds: z.number(),
    maxSummaryBytes: z.number(),
    provider: z.string(),
    model: z.string(),
  }),
  [EV.compactionFailed]: z.object({
    compactionId: z.string(),
    attempt: z.number(),
    code: z.string(),
    message: z.string(),
  }),
  [EV.bgCompleted]: z.object({
    taskID: z.string(),
    rowId: z.string(),
    state: z.string(),
    outcome: z.enum(['ok', 'uncertain', 'error']),
    exitCode: z.number().nullable(),
    totalWritten: z.number(),
    durationMs: z.number(),
  }),
  [EV.delegationStarted]: z.object({
    rowId: z.string(),
    callId: z.string(),
    childSessionId: z.string(),
    agent: z.string(),
    mode: z.enum(['foreground', 'background']),
    jobId: z.string().optional(),
    depth: z.number(),
    objective: z.string(),
  }),
  [EV.delegationSettled]: z.object({
    rowId: z.string(),
    callId: z.string(),
    childSessionId: z.string(),
    agent: z.string(),
    mode: z.enum(['foreground', 'background']),
    jobId: z.string().optional(),
    status: z.string(),
    errorCode: z.string().optional(),
  }),
  [EV.approvalRequested]: z.object({
    approvalId: z.string(),
    ...ids,
    /** The full text shown (issue 26; before it, the asking simple commands joined by `; `). */
    subjectText: z.string(),
    subjectKind: z.enum(['command', 'paths', 'url', 'none']).optional(),
    subjectParts: z.array(z.string()).optional(),
    /** sha256 (hex) of subjectText: what a decision must carry. */
    subjectDigest: z.string().optional(),
    reason: z.string(),
    grantPatterns: z.array(z.string()).optional(),
    grantScope: z.literal('call').optional(),
    revision: z.number(),
    turn: z.number(),
    step: z.number(),
  }),
  [EV.approvalDecided]: z.object({
    approvalId: z.string(),
    ...ids,
    decision: z.enum(['approve_once', 'approve_session', 'deny', 'not_run']),
    commandId: z.string().optional(),
    message: z.string().optional(),
    /** With approve_session: the grant stored (issue 26: scope `call`, the exact text or a typed pattern). */
    grant: z.object({ tool: z.string(), pattern: z.string(), scope: z.literal('call').optional() }).optional(),
  }),
  [EV.questionAsked]: z.object({
    questionId: z.string(),
    ...ids,
    header: z.string().optional(),
    items: z.array(z.object({ itemId: z.string(), question: z.string(), options: z.array(z.string()).optional() })),
    revision: z.number(),
    delivery: z.enum(['deferred', 'blocking']),
    deadlineAtMs: z.number().optional(),
    turn: z.number(),
    step: z.number(),
  }),
  [EV.questionAnswered]: z.object({
    questionId: z.string(),
    commandId: z.string(),
    items: z.array(z.string()),
    revision: z.number(),
    complete: z.boolean(),
    inputId: z.string().optional(),
  }),
  [EV.questionAutoDeferred]: z.object({
    questionId: z.string(),
    revision: z.number(),
    deadlineAtMs: z.number(),
  }),
  [EV.instructionInForce]: z.object({
    turn: z.number(),
    /** Stable segment id (SE28), `instructions.rules`. */
    segment: z.string(),
    /** sha256 (hex) of the segment text sent, null when no file had text (the segment is absent). */
    sha256: z.string().nullable(),
    /** The whole rule budget, bytes. */
    budget: z.number(),
    /** The files in force, in order; each whole: exact path, UTF-8 bytes, sha256 (hex) of the file's bytes. */
    sources: z.array(z.object({ path: z.string(), scope: ruleScope, bytes: z.number(), sha256: z.string() })),
  }),
  [EV.instructionNotInForce]: z.object({
    turn: z.number(),
    level: z.literal('warning'),
    reason: z.literal('over_budget'),
    /** The rule file's exact path. */
    source: z.string(),
    scope: ruleScope,
    /** The file's size, bytes. */
    bytes: z.number(),
    /** The whole budget, bytes. */
    budget: z.number(),
    /** What was left of the budget when this file came up, bytes. */
    remaining: z.number(),
  }),
  [EV.promptSegment]: z.object({ segment: z.string(), sha256: z.string(), text: z.string() }),
  [EV.promptAssembled]: z.object({
    turn: z.number(),
    step: z.number(),
    attempt: z.number(),
    /** SHA-256 of the ordered segment digests: equal receipts mean equal system prompts. */
    sha256: z.string(),
    segments: z.array(z.object({ id: z.string(), source: z.string(), chars: z.number(), sha256: z.string() })),
    /** The tools the request offered, in order (RT8: `runtime.execution` names only these). */
    tools: z.array(z.string()),
  }),
} as const satisfies Record<EventType, z.ZodType>;

/** The `data` a writer passes for event type `T`. */
export type EventData<T extends EventType> = z.input<(typeof eventSchemas)[T]>;

/** A parsed event: `type` narrows `data`. */
export type TypedEvent = { [T in EventType]: { type: T; data: z.output<(typeof eventSchemas)[T]> } }[EventType];

/** The `session.<status>` event a turn's end appends. */
export const TURN_END_EVENT = {
  completed: EV.completed,
  failed: EV.failed,
  paused: EV.paused,
  blocked: EV.blocked,
  interrupted: EV.interrupted,
} as const;

/** The events that end a `zuno run` (one per turn end). */
export const TURN_END_EVENTS: ReadonlySet<string> = new Set(Object.values(TURN_END_EVENT));

function isEventType(type: string): type is EventType {
  return Object.prototype.hasOwnProperty.call(eventSchemas, type);
}

/**
 * Parses one stored event against the catalogue.
 * @returns the typed event, or null for a type the catalogue does not know
 *   or a payload that does not match its schema (an older or foreign row;
 *   surfaces skip it rather than guess). Pure; never throws.
 */
export function parseEvent(e: { type: string; data: unknown }): TypedEvent | null {
  if (!isEventType(e.type)) return null;
  const parsed = eventSchemas[e.type].safeParse(e.data);
  return parsed.success ? ({ type: e.type, data: parsed.data } as TypedEvent) : null;
}

/**
 * Parses the data of a stored event known to be of type `type`.
 * @returns the typed data, or null when the payload does not match. Pure.
 */
export function parseEventData<T extends EventType>(type: T, data: unknown): z.output<(typeof eventSchemas)[T]> | null {
  const parsed = eventSchemas[type].safeParse(data);
  return parsed.success ? (parsed.data as z.output<(typeof eventSchemas)[T]>) : null;
}
