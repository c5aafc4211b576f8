/**
 * The one writer of tool-call records: every write of a tool-call row, its
 * parts and its `tool.*` events goes through here — planned or blocked
 * (modelStep, TD8), running and completed (the tool activity), settled by
 * the workflow (GP9, TD10), and a late result. Each record change is one
 * projection transaction, so a row never tells a different story than its
 * part and events (a crash leaves all of a change or none of it). Every
 * write is an upsert or insert-if-absent keyed by a deterministic id, so an
 * activity that runs twice leaves each record once.
 *
 * Outcomes are decided elsewhere: by the tool (its ToolResult) or by the
 * workflow (workflows/settle.ts). This module writes them and reconciles
 * the two when both arrive: a committed result always stands.
 */
import { EV } from '../../core/events.js';
import { partId } from '../../core/ids.js';
import type { SettledOutcome, SettlementReconciliation } from '../../core/session/tool-calls.js';
import type { BlockedCategory, ToolOutcome, ToolActivityFacts } from '../../core/tools/types.js';
import type { ProjectionStore, ProjectionWrite, ProjectionWrites, ToolCallRow } from '../projection/types.js';

/** The identity of one tool-call row: everything but its status and result. */
export type ToolCallIdentity = Pick<
  ToolCallRow,
  'id' | 'sessionId' | 'turn' | 'step' | 'position' | 'callId' | 'tool' | 'argsJson'
>;

/** Where a call's parts go: the assistant message of its step and when it was written. */
export interface CallPlace {
  messageId: string;
  atMs: number;
}

/**
 * The writes that record one call the model asked for (TD8): its row
 * (`pending`, or `completed` + `blocked` with the category when rejected),
 * its `tool_call` part, and for a rejected call `tool.dispatch.blocked` —
 * for the model step's one batch. Idempotent.
 */
export function plannedWrites(
  call: ToolCallIdentity,
  place: CallPlace,
  blocked?: { category: BlockedCategory; message: string },
): ProjectionWrite[] {
  return [
    {
      kind: 'toolCall',
      mode: 'plan',
      row: {
        ...call,
        status: blocked ? 'completed' : 'pending',
        outcome: blocked ? 'blocked' : null,
        blockedCategory: blocked?.category ?? null,
        output: blocked ? `Blocked (${blocked.category}): ${blocked.message}` : null,
        errorCode: blocked?.category ?? null,
      },
    },
    {
      kind: 'part',
      row: {
        id: partId(call.turn, call.step, call.position, 'tool_call'),
        sessionId: call.sessionId,
        messageId: place.messageId,
        turn: call.turn,
        step: call.step,
        position: call.position,
        kind: 'tool_call',
        toolCallId: call.id,
        createdAtMs: place.atMs,
      },
    },
    ...(blocked
      ? [
          {
            kind: 'event',
            event: {
              id: `${call.id}:blocked`,
              sessionId: call.sessionId,
              type: EV.toolBlocked,
              data: { rowId: call.id, callId: call.callId, tool: call.tool, ...blocked },
              atMs: place.atMs,
            },
          } satisfies ProjectionWrite,
        ]
      : []),
  ];
}

/** Records one call the model asked for: {@link plannedWrites} as one batch. */
export async function recordPlanned(
  store: ProjectionStore,
  call: ToolCallIdentity,
  place: CallPlace,
  blocked?: { category: BlockedCategory; message: string },
): Promise<void> {
  await store.writeBatch(call.sessionId, plannedWrites(call, place, blocked));
}

/**
 * Marks a call `running` for this activity attempt and appends `tool.started`:
 * one hot-path batch (issue 13: two prepared statements, one transaction).
 * A row already completed stays as it is (its record stands); the event
 * still says this attempt started. Idempotent per attempt.
 */
export async function recordStarted(
  store: ProjectionStore,
  call: ToolCallIdentity,
  attempt: number,
  startedAtMs: number,
  summary: string,
): Promise<void> {
  await store.writeBatch(call.sessionId, [
    { kind: 'toolCall', mode: 'running', row: { ...call, status: 'running', attempts: attempt, startedAtMs } },
    startedEvent(call, attempt, startedAtMs, summary),
  ]);
}

/** The `tool.started` event of one attempt. */
function startedEvent(call: ToolCallIdentity, attempt: number, atMs: number, summary: string): ProjectionWrite {
  return {
    kind: 'event',
    event: {
      id: `${call.id}:started:${attempt}`,
      sessionId: call.sessionId,
      type: EV.toolStarted,
      data: { rowId: call.id, callId: call.callId, tool: call.tool, attempt, summary },
      atMs,
    },
  };
}

/** A tool's own result, as the activity recorded it. */
export interface ToolCompletion {
  outcome: ToolOutcome;
  /** Model-visible text. */
  output: string;
  errorCode: string | null;
  /** Structured result data (receipt, credential, cancellation…). */
  data: Record<string, unknown> | null;
  attempt: number;
  startedAtMs: number;
  endedAtMs: number;
  /** The small facts that decide how the outcome reads (exit code, verdict, conflict), from the tool's declaration. */
  facts?: ToolActivityFacts;
}

/** What {@link recordCompleted} did. */
export type CompletionRecord =
  /**
   * The row, the `tool_result` part and `tool.completed` committed together
   * — by this call, or by an earlier run of the same activity, whose
   * committed result stands (`outcome` is the stored one).
   */
  | { kind: 'written'; outcome: ToolOutcome; outputBytes: number }
  /** The workflow had already settled the call: its record stands, `tool.late_result` logs this result. */
  | { kind: 'late'; stands: ToolOutcome }
  /** `abandon` was set and nobody had settled the call: nothing was written. */
  | { kind: 'abandoned' };

/**
 * Records a tool's own result, in ONE transaction: the row (`completed`
 * with outcome, output, error code and data), the `tool_result` part and
 * `tool.completed` all commit or none does. A result this activity already
 * committed (a second run of it) stands unchanged. When the workflow has already
 * settled the row (TD10 forced interrupt, a lost outcome), that record
 * stands: the result is kept beside it on the row (`result.lateResult`) and
 * logged as `tool.late_result`. With `abandon` (the attempt was stopped by
 * a worker shutdown, not by a cancel request) nothing is recorded unless it
 * is late. Idempotent.
 */
export async function recordCompleted(
  store: ProjectionStore,
  call: ToolCallIdentity,
  done: ToolCompletion,
  opts: { abandon: boolean; started?: { summary: string } },
): Promise<CompletionRecord> {
  const outputBytes = Buffer.byteLength(done.output);
  // The common case in one batch: the row is not completed yet, so this result is the record.
  if (
    !opts.abandon &&
    (await store.writeBatch(call.sessionId, completionWrites(call, done, outputBytes, opts.started)))
  )
    return { kind: 'written', outcome: done.outcome, outputBytes };
  // The row was completed before (or the attempt was abandoned): decide on the stored record.
  return store.transaction(call.sessionId, async (tx): Promise<CompletionRecord> => {
    const now = await tx.getToolCall(call.sessionId, call.id);
    if (now?.status === 'completed' && now.result?.settledBy !== 'workflow') {
      // Recorded before by this activity (it ran twice): insert-if-absent, the first record stands.
      return {
        kind: 'written',
        outcome: now.outcome ?? done.outcome,
        outputBytes: Buffer.byteLength(now.output ?? ''),
      };
    }
    if (now?.status === 'completed') {
      const late = { outcome: done.outcome, attempt: done.attempt, atMs: done.endedAtMs };
      await tx.upsertToolCall({ ...now, result: { ...(now.result ?? {}), lateResult: late } });
      await tx.appendEvent({
        id: `${call.id}:late:${done.attempt}`,
        sessionId: call.sessionId,
        type: EV.toolLateResult,
        data: { rowId: call.id, callId: call.callId, tool: call.tool, outcome: done.outcome, attempt: done.attempt },
        atMs: done.endedAtMs,
      });
      return { kind: 'late', stands: now.outcome ?? done.outcome };
    }
    if (opts.abandon) return { kind: 'abandoned' };
    // Not completed after all (never expected: the batch above would have written it): write it here.
    for (const w of completionWrites(call, done, outputBytes, opts.started)) await writeInTransaction(tx, w);
    return { kind: 'written', outcome: done.outcome, outputBytes };
  });
}

/**
 * The writes of a call's own result: the `started` event when the attempt
 * recorded no start of its own (a local activity), the completed row (only
 * while the stored one is not completed), the `tool_result` part and
 * `tool.completed`.
 */
function completionWrites(
  call: ToolCallIdentity,
  done: ToolCompletion,
  outputBytes: number,
  started: { summary: string } | undefined,
): ProjectionWrite[] {
  const facts = done.facts && Object.keys(done.facts).length > 0 ? done.facts : undefined;
  return [
    ...(started ? [startedEvent(call, done.attempt, done.startedAtMs, started.summary)] : []),
    {
      kind: 'toolCall',
      mode: 'complete',
      row: {
        ...call,
        status: 'completed',
        outcome: done.outcome,
        output: done.output,
        errorCode: done.errorCode,
        // The deciding facts ride on the stored result too, so `session show` reads the outcome as the activity did.
        result: facts ? { ...(done.data ?? {}), facts } : done.data,
        attempts: done.attempt,
        startedAtMs: done.startedAtMs,
        endedAtMs: done.endedAtMs,
      },
    },
    {
      kind: 'part',
      row: {
        id: partId(call.turn, call.step, call.position, 'tool_result'),
        sessionId: call.sessionId,
        messageId: `msg_${call.turn}_${call.step}_assistant`,
        turn: call.turn,
        step: call.step,
        position: call.position,
        kind: 'tool_result',
        text: done.output,
        toolCallId: call.id,
        createdAtMs: done.endedAtMs,
      },
    },
    {
      kind: 'event',
      event: {
        id: `${call.id}:completed`,
        sessionId: call.sessionId,
        type: EV.toolCompleted,
        data: {
          rowId: call.id,
          callId: call.callId,
          tool: call.tool,
          outcome: done.outcome,
          errorCode: done.errorCode,
          outputBytes,
          durationMs: done.endedAtMs - done.startedAtMs,
          attempt: done.attempt,
          ...(facts ? { facts } : {}),
        },
        atMs: done.endedAtMs,
      },
    },
  ];
}

/** One hot-path write made inside a Prisma transaction instead (the rare paths). */
async function writeInTransaction(tx: ProjectionWrites, w: ProjectionWrite): Promise<void> {
  switch (w.kind) {
    case 'toolCall':
      return tx.upsertToolCall(w.row);
    case 'part':
      return tx.upsertPart(w.row);
    case 'message':
      return tx.upsertMessage(w.row);
    case 'input':
      return tx.upsertInput(w.row);
    case 'event':
      await tx.appendEvent(w.event);
  }
}

/**
 * GP9, TD10: writes each outcome the workflow settled, exactly as decided,
 * with the uncertain record (or failure) and the notice the model will read
 * in the same write (`result.settledBy: 'workflow'`), and `tool.completed`
 * with `settledBy` and whether a worker had ever started the call. One
 * transaction per call.
 *
 * A row whose own result already committed keeps it — it is what happened —
 * and the meeting is recorded, not hidden: the row gains
 * `result.settlement {stands, workflowSaw}`, the log gains
 * `tool.settlement_superseded`, and the entry is returned so the persisting
 * activity's result (Temporal history) says it too. Missing rows (a rolled
 * back step) and blocked rows are left alone. Idempotent: a repeat returns
 * the same reconciliations and writes nothing new.
 */
export async function recordSettled(
  store: ProjectionStore,
  sessionId: string,
  settled: readonly SettledOutcome[],
  atMs: number,
): Promise<SettlementReconciliation[]> {
  const reconciled: SettlementReconciliation[] = [];
  for (const s of settled) {
    const r = await store.transaction(sessionId, (tx) => settleOne(tx, sessionId, s, atMs));
    if (r) reconciled.push(r);
  }
  return reconciled;
}

/** A settlement of a call that ran, or may have: everything but a permission denial. */
type RunSettlement = SettledOutcome & {
  outcome: 'uncertain' | 'error';
  cause: Exclude<SettledOutcome['cause'], 'denied'>;
};

function isDenial(s: SettledOutcome): s is SettledOutcome & { outcome: 'blocked'; cause: 'denied' } {
  return s.outcome === 'blocked';
}

async function settleOne(
  tx: ProjectionWrites,
  sessionId: string,
  settled: SettledOutcome,
  atMs: number,
): Promise<SettlementReconciliation | undefined> {
  const row = await tx.getToolCall(sessionId, settled.rowId);
  if (!row || row.outcome === 'blocked' || row.result?.settledBy === 'workflow') return undefined;
  if (isDenial(settled))
    return row.status === 'completed' ? undefined : settleBlocked(tx, sessionId, row, settled, atMs);
  const s = settled as RunSettlement;
  const workflowSaw = {
    outcome: s.outcome,
    cause: s.cause,
    failureType: s.failureType,
    message: s.message,
    observedAtMs: s.observedAtMs,
  };
  const ids = { rowId: s.rowId, callId: s.callId, tool: s.tool };
  if (row.status === 'completed') {
    const stands = row.outcome ?? 'ok';
    await tx.upsertToolCall({ ...row, result: { ...(row.result ?? {}), settlement: { stands, workflowSaw } } });
    await tx.appendEvent({
      id: `${s.rowId}:superseded`,
      sessionId,
      type: EV.toolSettlementSuperseded,
      data: { ...ids, stands, workflowSaw },
      atMs,
    });
    const { observedAtMs: _when, ...saw } = workflowSaw;
    return { ...ids, stands, workflowSaw: saw };
  }
  await tx.upsertToolCall({
    ...row,
    status: 'completed',
    outcome: s.outcome,
    errorCode: s.failureType,
    output: settledNotice(s),
    result: {
      ...(s.outcome === 'uncertain'
        ? {
            uncertain: { tool: s.tool, callId: s.callId, paths: s.paths, cause: s.cause, observedAtMs: s.observedAtMs },
          }
        : { failure: { type: s.failureType, message: s.message } }),
      settledBy: 'workflow',
    },
    endedAtMs: s.observedAtMs,
  });
  await tx.appendEvent({
    id: `${s.rowId}:settled`,
    sessionId,
    type: EV.toolCompleted,
    data: { ...ids, outcome: s.outcome, cause: s.cause, settledBy: 'workflow', started: row.status !== 'pending' },
    atMs,
  });
  return undefined;
}

/**
 * TD8: a call the workflow's permission gate refused: the row becomes
 * `blocked` with category `denied` (nothing ran), as modelStep records a
 * call rejected before dispatch, with `tool.dispatch.blocked`.
 */
async function settleBlocked(
  tx: ProjectionWrites,
  sessionId: string,
  row: ToolCallRow,
  s: SettledOutcome,
  atMs: number,
): Promise<undefined> {
  await tx.upsertToolCall({
    ...row,
    status: 'completed',
    outcome: 'blocked',
    blockedCategory: 'denied',
    // The workflow's failure type: `denied` for a permission refusal, `delegation_depth` / `arguments_too_large`
    // for a delegation it refused (workflows/delegation.ts).
    errorCode: s.failureType,
    output: `Blocked (denied): ${s.message}`,
    result: { settledBy: 'workflow' },
    endedAtMs: s.observedAtMs,
  });
  await tx.appendEvent({
    id: `${s.rowId}:blocked`,
    sessionId,
    type: EV.toolBlocked,
    data: { rowId: s.rowId, callId: s.callId, tool: s.tool, category: 'denied', message: s.message },
    atMs,
  });
  return undefined;
}

/** The model-visible text of a settled outcome (TD4 uncertain notice, TD10 not-run). */
function settledNotice(s: SettledOutcome): string {
  if (s.outcome === 'uncertain') {
    return (
      `Outcome uncertain: the ${s.tool} call ${s.callId} may or may not have taken effect` +
      `${s.paths.length ? ` on ${s.paths.join(', ')}` : ''} (${s.cause}: ${s.message}). ` +
      'It was not re-run. Inspect the authoritative state before doing anything that depends on it.'
    );
  }
  if (s.cause === 'not_run') return `The ${s.tool} call ${s.callId} did not run: ${s.message}.`;
  return `The ${s.tool} call ${s.callId} failed (${s.failureType}): ${s.message}`;
}
