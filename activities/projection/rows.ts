import type {
  Approval as DbApproval,
  Event as DbEvent,
  Goal as DbGoal,
  Input as DbInput,
  Message as DbMessage,
  Part as DbPart,
  Session as DbSession,
  ToolCall as DbToolCall,
  WorkState as DbWorkState,
  WorkUpdate as DbWorkUpdate,
} from '../../prisma/generated/sqlite/client/client.js';
import type { GoalSnapshot } from '../../core/goal/contract.js';
import type {
  AdmissionStatus,
  ApprovalRow,
  EventRow,
  GoalRow,
  InputRow,
  InputState,
  MessageRow,
  PartRow,
  SessionRow,
  SessionStatus,
  ToolCallRow,
  ToolCallStatus,
  WorkStateRow,
  WorkUpdateRow,
} from './types.js';

// Conversions between the contract's rows (types.ts) and database rows:
// epoch ms <-> BigInt columns, JSON values <-> TEXT columns, string unions
// <-> plain strings (the store writes only values of the unions).

/** Epoch ms (a JS number) as a BigInt column value. */
export function ms(n: number): bigint {
  return BigInt(Math.trunc(n));
}

/** An optional epoch ms: `undefined` stays undefined (keep on update), `null` clears. */
export function optMs(n: number | null | undefined): bigint | null | undefined {
  return n == null ? n : ms(n);
}

/** A JSON-valued field as TEXT; `undefined` stays undefined, `null` stays null. */
export function optJson(v: Record<string, unknown> | null | undefined): string | null | undefined {
  return v == null ? v : JSON.stringify(v);
}

function parseObject(text: string | null): Record<string, unknown> | null {
  return text === null ? null : (JSON.parse(text) as Record<string, unknown>);
}

/** Database approval → ApprovalRow. */
export function toApproval(r: DbApproval): ApprovalRow {
  return {
    ...r,
    status: r.status as ApprovalRow['status'],
    decision: r.decision as ApprovalRow['decision'],
    subjectParts: r.subjectParts === null ? null : (JSON.parse(r.subjectParts) as string[]),
    grantScope: r.grantScope === 'call' ? 'call' : null,
    subjectKind: r.subjectKind as ApprovalRow['subjectKind'],
    requestedAtMs: Number(r.requestedAtMs),
    decidedAtMs: r.decidedAtMs === null ? null : Number(r.decidedAtMs),
  };
}

/** Database goal → GoalRow (the snapshot JSON is the row; the columns are its indexable copy). */
export function toGoal(r: DbGoal): GoalRow {
  return {
    id: r.id,
    sessionId: r.sessionId,
    workflowId: r.workflowId,
    snapshot: JSON.parse(r.snapshot) as GoalSnapshot,
  };
}

/** Database session → SessionRow. */
export function toSession(r: DbSession): SessionRow {
  return {
    id: r.id,
    workflowId: r.workflowId,
    workspace: r.workspace,
    provider: r.provider,
    model: r.model,
    status: r.status as SessionStatus,
    title: r.title,
    finalText: r.finalText,
    error: r.error,
    host: r.host,
    taskQueue: r.taskQueue,
    agent: r.agent,
    parentSessionId: r.parentSessionId,
    rootSessionId: r.rootSessionId,
    depth: r.depth,
    createdAtMs: Number(r.createdAtMs),
    updatedAtMs: Number(r.updatedAtMs),
  };
}

/** Database input → InputRow. */
export function toInput(r: DbInput): InputRow {
  return {
    id: r.id,
    sessionId: r.sessionId,
    text: r.text,
    clientMessageId: r.clientMessageId,
    admission: r.admission as AdmissionStatus,
    state: r.state as InputState,
    admittedAtMs: Number(r.admittedAtMs),
    updatedAtMs: Number(r.updatedAtMs),
  };
}

/** Database message → MessageRow. */
export function toMessage(r: DbMessage): MessageRow {
  return {
    id: r.id,
    sessionId: r.sessionId,
    role: r.role as MessageRow['role'],
    turn: r.turn,
    step: r.step,
    inputId: r.inputId,
    createdAtMs: Number(r.createdAtMs),
  };
}

/** Database part → PartRow (metadata parsed). */
export function toPart(r: DbPart): PartRow {
  return {
    id: r.id,
    sessionId: r.sessionId,
    messageId: r.messageId,
    turn: r.turn,
    step: r.step,
    position: r.position,
    kind: r.kind as PartRow['kind'],
    text: r.text,
    toolCallId: r.toolCallId,
    metadata: parseObject(r.metadataJson),
    createdAtMs: Number(r.createdAtMs),
  };
}

/** Database tool call → ToolCallRow (result parsed). */
export function toToolCall(r: DbToolCall): ToolCallRow {
  return {
    id: r.id,
    sessionId: r.sessionId,
    turn: r.turn,
    step: r.step,
    position: r.position,
    callId: r.callId,
    tool: r.tool,
    argsJson: r.argsJson,
    status: r.status as ToolCallStatus,
    outcome: r.outcome as ToolCallRow['outcome'],
    blockedCategory: r.blockedCategory as ToolCallRow['blockedCategory'],
    output: r.output,
    errorCode: r.errorCode,
    result: parseObject(r.resultJson),
    attempts: r.attempts,
    startedAtMs: r.startedAtMs === null ? null : Number(r.startedAtMs),
    endedAtMs: r.endedAtMs === null ? null : Number(r.endedAtMs),
  };
}

/** Database event → EventRow (data parsed). */
export function toEvent(r: DbEvent): EventRow {
  return {
    seq: r.seq,
    id: r.id,
    sessionId: r.sessionId,
    type: r.type,
    data: JSON.parse(r.dataJson) as Record<string, unknown>,
    atMs: Number(r.atMs),
  };
}

/** Database work state → WorkStateRow (JSON text kept as text: core/work/codec.ts decodes it). */
export function toWorkState(r: DbWorkState): WorkStateRow {
  return {
    sessionId: r.sessionId,
    planRevision: r.planRevision,
    planJson: r.planJson,
    todoRevision: r.todoRevision,
    todoJson: r.todoJson,
    updatedAtMs: Number(r.updatedAtMs),
  };
}

/** Database work update → WorkUpdateRow (result parsed). */
export function toWorkUpdate(r: DbWorkUpdate): WorkUpdateRow {
  return {
    sessionId: r.sessionId,
    id: r.id,
    tool: r.tool,
    result: JSON.parse(r.resultJson) as Record<string, unknown>,
    atMs: Number(r.atMs),
  };
}

const ROLE_ORDER: Record<string, number> = { user: 0, assistant: 1 };

/** Transcript order of messages: turn, step, user before assistant, then createdAtMs, then id. */
export function compareMessages(a: MessageRow, b: MessageRow): number {
  return (
    a.turn - b.turn ||
    a.step - b.step ||
    (ROLE_ORDER[a.role] ?? 2) - (ROLE_ORDER[b.role] ?? 2) ||
    a.createdAtMs - b.createdAtMs ||
    (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
  );
}
