import type { RecordApprovalInput } from '../../core/approval-contract.js';
import { EV } from '../../core/events.js';
import type { ApprovalRow, ProjectionStore } from '../projection/types.js';

const STATUS_OF = {
  approve_once: 'approved',
  approve_session: 'approved',
  deny: 'denied',
  not_run: 'not_run',
} as const;

/**
 * Builds the `recordApproval` activity (issue 11, PM6): the one writer of
 * approval rows and their events. Asked: the row as `pending` and
 * `approval.requested`; ended: the row with its decision and
 * `approval.decided`. One transaction each, keyed by the approval id — a
 * retry writes the same row and no second event. The decision itself is
 * the session workflow's; this only records it.
 */
export function createRecordApproval(store: ProjectionStore) {
  return async function recordApproval(input: RecordApprovalInput): Promise<void> {
    const { sessionId, approval: a, decided } = input;
    const row: ApprovalRow = {
      sessionId,
      id: a.approvalId,
      rowId: a.rowId,
      callId: a.callId,
      tool: a.tool,
      subjectText: a.subjectText,
      subjectKind: a.subjectKind ?? null,
      subjectParts: a.subjectParts ?? null,
      subjectDigest: a.subjectDigest ?? null,
      reason: a.reason,
      // The grant a decision stored (a typed pattern included), else the one an approval for the session would store.
      grantPattern: decided?.grant?.pattern ?? a.grantPatterns?.join('\n') ?? null,
      grantScope: decided?.grant?.scope ?? a.grantScope ?? null,
      revision: a.revision,
      status: decided ? STATUS_OF[decided.decision] : 'pending',
      decision: decided?.decision ?? null,
      commandId: decided?.commandId ?? null,
      message: decided?.message ?? null,
      turn: a.turn,
      step: a.step,
      requestedAtMs: a.requestedAtMs,
      decidedAtMs: decided?.atMs ?? null,
    };
    const ids = { approvalId: a.approvalId, rowId: a.rowId, callId: a.callId, tool: a.tool };
    await store.transaction(sessionId, async (tx) => {
      await tx.upsertApproval(row);
      await tx.appendEvent(
        decided
          ? {
              id: `${a.approvalId}:decided`,
              sessionId,
              type: EV.approvalDecided,
              data: {
                ...ids,
                decision: decided.decision,
                ...(decided.commandId ? { commandId: decided.commandId } : {}),
                ...(decided.message ? { message: decided.message } : {}),
                ...(decided.grant ? { grant: decided.grant } : {}),
              },
              atMs: decided.atMs,
            }
          : {
              id: `${a.approvalId}:requested`,
              sessionId,
              type: EV.approvalRequested,
              data: {
                ...ids,
                subjectText: a.subjectText,
                ...(a.subjectKind ? { subjectKind: a.subjectKind } : {}),
                ...(a.subjectParts ? { subjectParts: a.subjectParts } : {}),
                ...(a.subjectDigest ? { subjectDigest: a.subjectDigest } : {}),
                reason: a.reason,
                ...(a.grantPatterns ? { grantPatterns: a.grantPatterns } : {}),
                ...(a.grantScope ? { grantScope: a.grantScope } : {}),
                revision: a.revision,
                turn: a.turn,
                step: a.step,
              },
              atMs: a.requestedAtMs,
            },
      );
    });
  };
}
