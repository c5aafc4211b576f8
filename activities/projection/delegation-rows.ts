/**
 * Delegation and Council rows (issue 12; prisma/models.prisma `Delegation`,
 * `Council`): database row ↔ {@link DelegationRow} / {@link CouncilRow}.
 * JSON columns are parsed fail-closed: unreadable JSON reads as null / [].
 */
import type { Council as DbCouncil, Delegation as DbDelegation } from '../../prisma/generated/sqlite/client/client.js';
import { ms } from './rows.js';
import type { CouncilRow, DelegationRow } from './types.js';

function parseJson<T>(text: string | null, fallback: T): T {
  if (text === null) return fallback;
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}

/** The columns of a delegation row (everything but the key). */
export function delegationColumns(d: DelegationRow) {
  return {
    callId: d.callId,
    jobId: d.jobId,
    childSessionId: d.childSessionId,
    rootSessionId: d.rootSessionId,
    agent: d.agent,
    depth: d.depth,
    mode: d.mode,
    objective: d.objective,
    status: d.status,
    errorCode: d.errorCode,
    error: d.error,
    report: d.report,
    metadata: d.metadata === null ? null : JSON.stringify(d.metadata),
    startedAtMs: ms(d.startedAtMs),
    settledAtMs: d.settledAtMs === null ? null : ms(d.settledAtMs),
  };
}

/** Database delegation → DelegationRow. */
export function toDelegation(r: DbDelegation): DelegationRow {
  return {
    parentSessionId: r.parentSessionId,
    rowId: r.rowId,
    callId: r.callId,
    jobId: r.jobId,
    childSessionId: r.childSessionId,
    rootSessionId: r.rootSessionId,
    agent: r.agent,
    depth: r.depth,
    mode: r.mode === 'background' ? 'background' : 'foreground',
    objective: r.objective,
    status: r.status,
    errorCode: r.errorCode,
    error: r.error,
    report: r.report,
    metadata: parseJson<Record<string, unknown> | null>(r.metadata, null),
    startedAtMs: Number(r.startedAtMs),
    settledAtMs: r.settledAtMs === null ? null : Number(r.settledAtMs),
  };
}

/** The columns of a Council row (everything but the key). */
export function councilColumns(c: CouncilRow) {
  return {
    workflowId: c.workflowId,
    workspace: c.workspace,
    question: c.question,
    preset: c.preset,
    diffRange: c.diffRange,
    status: c.status,
    errorCode: c.errorCode,
    seats: JSON.stringify(c.seats),
    synthesis: c.synthesis,
    parentSessionId: c.parentSessionId,
    startedAtMs: ms(c.startedAtMs),
    seatDeadlineMs: ms(c.seatDeadlineMs),
    deadlineMs: ms(c.deadlineMs),
    updatedAtMs: ms(c.updatedAtMs),
  };
}

/** Database Council → CouncilRow. */
export function toCouncil(r: DbCouncil): CouncilRow {
  return {
    id: r.id,
    workflowId: r.workflowId,
    workspace: r.workspace,
    question: r.question,
    preset: r.preset,
    diffRange: r.diffRange,
    status: r.status,
    errorCode: r.errorCode,
    seats: parseJson<unknown[]>(r.seats, []),
    synthesis: r.synthesis,
    parentSessionId: r.parentSessionId,
    startedAtMs: Number(r.startedAtMs),
    seatDeadlineMs: Number(r.seatDeadlineMs),
    deadlineMs: Number(r.deadlineMs),
    updatedAtMs: Number(r.updatedAtMs),
  };
}
