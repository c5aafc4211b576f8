/**
 * The approval contract (issue 11; TD2, PM6): a call the permission policy
 * answers `ask` for waits in the session workflow until a person decides.
 * Shapes shared by the workflow, the activities that record approvals and
 * the CLI. Deterministic, no I/O.
 */

/** Update that decides a pending approval. */
export const DECIDE_APPROVAL_UPDATE = 'decideApproval';
/** Query that lists the pending approvals and the session-wide grants. */
export const APPROVALS_QUERY = 'approvals';

/** What a person decides. `approve_session`: approve, and stop asking for the same tool + subject pattern in this session. */
export type ApprovalDecisionKind = 'approve_once' | 'approve_session' | 'deny';

/** An approval waiting for a decision (one per asked call). */
export interface PendingApproval {
  /** `ap_<turn>_<step>_<position>`: derived from the call's row id, stable across replays. */
  approvalId: string;
  rowId: string;
  callId: string;
  tool: string;
  /** The subject as a person reads it (`rm -rf build`, `src/a.ts`). */
  subjectText: string;
  /** Why it asks (the rule or mode that decided). */
  reason: string;
  /** The patterns an `approve_session` decision grants (one per asking subject; absent: the tool as a whole). */
  grantPatterns?: string[];
  /** The session's approval revision when this was asked: a decision must name it (`expectedRevision`). */
  revision: number;
  turn: number;
  step: number;
  requestedAtMs: number;
}

/** Input of {@link DECIDE_APPROVAL_UPDATE}. */
export interface ApprovalDecisionRequest {
  approvalId: string;
  /** Idempotency key: the same command sent twice is one decision. */
  commandId: string;
  /** The approval's `revision` as the person saw it; any other is refused `approval_stale_revision`. */
  expectedRevision: number;
  decision: ApprovalDecisionKind;
  /** With `deny`: a message the model sees with the refusal (≤ 2000 characters). */
  message?: string;
}

/** Result of {@link DECIDE_APPROVAL_UPDATE}. */
export interface ApprovalDecisionResult {
  approvalId: string;
  decision: ApprovalDecisionKind;
  /** The session's approval revision after the decision. */
  revision: number;
  /** true when this command had already been applied (a retry): nothing changed. */
  duplicate: boolean;
}

/** Result of {@link APPROVALS_QUERY}. */
export interface ApprovalsView {
  revision: number;
  pending: PendingApproval[];
  /** Session-wide grants (`approve_session`): the tool and subject pattern that no longer ask. */
  grants: { tool: string; pattern: string }[];
}

/** Typed refusals of a decision (ApplicationFailure types). */
export const APPROVAL_ERRORS = {
  notFound: 'approval_not_found',
  staleRevision: 'approval_stale_revision',
  alreadyDecided: 'approval_already_decided',
  commandConflict: 'approval_command_conflict',
  invalid: 'approval_invalid',
} as const;

/** Longest deny message kept, in characters. */
export const APPROVAL_MESSAGE_MAX = 2000;

/** Input of the `recordApproval` activity: the projection row and its event. */
export interface RecordApprovalInput {
  sessionId: string;
  approval: PendingApproval;
  /** Absent: the approval was just asked (`approval.requested`); present: how it ended (`approval.decided`). */
  decided?: {
    decision: ApprovalDecisionKind | 'not_run';
    commandId?: string;
    message?: string;
    atMs: number;
  };
}
