/**
 * The approval contract (issue 11; TD2, PM6): a call the permission policy
 * answers `ask` for waits in the session workflow until a person decides.
 * Shapes shared by the workflow, the activities that record approvals and
 * the CLI. Deterministic, no I/O.
 */
import type { ShownKind } from './permission/shown.js';
import type { SessionGrant } from './permission/types.js';
import type { ErrorCode } from './error-codes.js';

/** Update that decides a pending approval. */
export const DECIDE_APPROVAL_UPDATE = 'decideApproval';
/** Query that lists the pending approvals and the session-wide grants. */
export const APPROVALS_QUERY = 'approvals';

/**
 * What a person decides. `approve_session`: approve, and stop asking in this
 * session for the same tool and exactly the text that was shown (or the
 * pattern the person typed, {@link ApprovalDecisionRequest.pattern}).
 */
export type ApprovalDecisionKind = 'approve_once' | 'approve_session' | 'deny';

/** An approval waiting for a decision (one per asked call). */
export interface PendingApproval {
  /** `ap_<turn>_<step>_<position>`: derived from the call's row id, stable across replays. */
  approvalId: string;
  rowId: string;
  callId: string;
  tool: string;
  /**
   * What the call does, as a person reads it: since issue 26 the full text as
   * the model sent it (`echo hello > note.txt && ls`, a heredoc with its
   * lines; for file tools their paths joined by `; `). Approvals asked
   * before (no {@link subjectDigest}) hold the asking simple commands joined
   * by `; ` (`echo hello; ls`).
   */
  subjectText: string;
  /** What `subjectText` is: `command` (as sent), `paths`, `url` (no query), `none` (the tool's name). Absent on approvals asked before issue 26. */
  subjectKind?: ShownKind;
  /** The parsed parts the rules decided on (simple commands, paths), shown as a secondary line. Absent on approvals asked before issue 26. */
  subjectParts?: string[];
  /**
   * sha256 (lowercase hex) of `subjectText`'s UTF-8 bytes: a decision must
   * carry it ({@link ApprovalDecisionRequest.subjectDigest}). Absent on
   * approvals asked before issue 26, which accept a decision without one.
   */
  subjectDigest?: string;
  /** Why it asks (the rule or mode that decided). */
  reason: string;
  /**
   * The patterns an `approve_session` decision grants: since issue 26 one,
   * the exact `subjectText` (glob characters escaped) with `grantScope`
   * `call`; before, one per asking subject and no scope. Absent: the tool as a whole.
   */
  grantPatterns?: string[];
  /** The scope of the grants `grantPatterns` make ({@link SessionGrant.scope}). */
  grantScope?: 'call';
  /**
   * true for a command whose arguments were too large for the history
   * (`argsInProjection`): `subjectText` here is a stand-in naming its length,
   * the full text is read from the stored call and written to the approval's
   * row by `recordApproval` (`subjectDigest` is that text's); it can be
   * approved once or denied, never for the session.
   */
  textInProjection?: true;
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
  /**
   * sha256 (lowercase hex) of the exact subject text the person was shown.
   * Must equal the approval's `subjectDigest`, else `approval_subject_mismatch`
   * and nothing runs; optional only for approvals asked before issue 26.
   */
  subjectDigest?: string;
  /**
   * With `approve_session` only: a pattern the person typed (glob, as rule
   * patterns; ≤ {@link APPROVAL_PATTERN_MAX} characters) that the grant
   * covers instead of the exact text; it must match the approval's own text.
   */
  pattern?: string;
}

/** Result of {@link DECIDE_APPROVAL_UPDATE}. */
export interface ApprovalDecisionResult {
  approvalId: string;
  decision: ApprovalDecisionKind;
  /** The session's approval revision after the decision. */
  revision: number;
  /** true when this command had already been applied (a retry): nothing changed. */
  duplicate: boolean;
  /** With `approve_session`: the grant stored (or already there), in the words of {@link SessionGrant}. */
  grant?: SessionGrant;
}

/** Result of {@link APPROVALS_QUERY}. */
export interface ApprovalsView {
  revision: number;
  pending: PendingApproval[];
  /** Session-wide grants (`approve_session`): the tool and pattern that no longer ask, and what the pattern is matched against. */
  grants: SessionGrant[];
}

/** Typed refusals of a decision (ApplicationFailure types). */
export const APPROVAL_ERRORS = {
  notFound: 'approval_not_found',
  staleRevision: 'approval_stale_revision',
  alreadyDecided: 'approval_already_decided',
  commandConflict: 'approval_command_conflict',
  invalid: 'approval_invalid',
  /** The decision's digest is not that of the pending call's subject text: it was made on another text. */
  subjectMismatch: 'approval_subject_mismatch',
} as const satisfies Record<string, ErrorCode>;

/** Longest deny message kept, in characters. */
export const APPROVAL_MESSAGE_MAX = 2000;

/** Longest pattern a person may type for a session-wide grant, in characters. */
export const APPROVAL_PATTERN_MAX = 4000;

/** Input of the `recordApproval` activity: the projection row and its event. */
export interface RecordApprovalInput {
  sessionId: string;
  approval: PendingApproval;
  /** Absent: the approval was just asked (`approval.requested`); present: how it ended (`approval.decided`). */
  decided?: {
    decision: ApprovalDecisionKind | 'not_run';
    commandId?: string;
    message?: string;
    /** With `approve_session`: the grant the decision stored (absent on decisions recorded before issue 26). */
    grant?: SessionGrant;
    atMs: number;
  };
}

/**
 * What identifies one decision's content (issue 11, PM6): the same
 * `commandId` sent again with this same text is a retry; with another it is
 * `approval_command_conflict`. The workflow compares it as is; the CLI
 * hashes it into the Update id. Pure.
 */
export function decisionFingerprint(req: ApprovalDecisionRequest): string {
  return JSON.stringify([
    req.approvalId,
    req.expectedRevision,
    req.decision,
    req.message ?? null,
    req.subjectDigest ?? null,
    req.pattern ?? null,
  ]);
}
