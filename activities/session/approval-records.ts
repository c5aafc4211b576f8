import type { RecordApprovalInput } from '../../core/approval-contract.js';
import { EV } from '../../core/events.js';
import { shownSubject } from '../../core/permission/shown.js';
import { sha256Hex } from '../../core/sha256.js';
import { validateToolCall } from '../../core/tools/registry.js';
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
 * the session workflow's; this only records it. A command too large for the
 * history (`textInProjection`) is written with its full text, read from its
 * stored call row, when that text's sha256 is the approval's digest (else
 * with the workflow's stand-in, which no decision's digest can match).
 */
export function createRecordApproval(store: ProjectionStore) {
  return async function recordApproval(input: RecordApprovalInput): Promise<void> {
    const { sessionId, decided } = input;
    const a = input.approval.textInProjection ? await withStoredText(store, input) : input.approval;
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

/** The approval with the full text of its command as stored with the call, when that text is the one its digest names. */
async function withStoredText(
  store: ProjectionStore,
  input: RecordApprovalInput,
): Promise<RecordApprovalInput['approval']> {
  const a = input.approval;
  const row = await store.getToolCall(input.sessionId, a.rowId);
  const verdict = row ? validateToolCall(a.tool, row.argsJson) : null;
  if (!verdict?.ok) return a;
  const shown = shownSubject(a.tool, verdict.args, { kind: 'none' });
  return sha256Hex(shown.text) === a.subjectDigest ? { ...a, subjectText: shown.text } : a;
}
