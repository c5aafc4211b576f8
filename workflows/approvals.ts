import { ApplicationFailure } from '@temporalio/workflow';
import {
  APPROVAL_ERRORS,
  APPROVAL_MESSAGE_MAX,
  APPROVAL_PATTERN_MAX,
  decisionFingerprint,
  type ApprovalDecisionKind,
  type ApprovalDecisionRequest,
  type ApprovalDecisionResult,
  type ApprovalsView,
  type PendingApproval,
} from '../core/approval-contract.js';
import { globMatch } from '../core/permission/glob.js';
import type { SessionGrant } from '../core/permission/types.js';
import { sha256Hex } from '../core/sha256.js';
import type { ErrorCode } from '../core/error-codes.js';

/** How an asked call ended: decided by a person, or not run (the turn was interrupted while it waited). */
export type ApprovalVerdict =
  | { kind: 'approved'; decision: 'approve_once' | 'approve_session'; commandId: string; grant?: SessionGrant }
  | { kind: 'denied'; commandId: string; message?: string }
  | { kind: 'not_run' };

interface Applied {
  request: string;
  result: ApprovalDecisionResult;
}

const DECISIONS: readonly ApprovalDecisionKind[] = ['approve_once', 'approve_session', 'deny'];

/**
 * The session's approvals (issue 11, PM6): the pending ones, the
 * session-wide grants, the revision, and every applied decision by
 * `commandId` so a retried command is one decision. Workflow state only —
 * the projection row is written by `recordApproval`. Deterministic.
 *
 * Nothing but {@link decide} settles an approval as approved or denied: no
 * timeout, cancel, empty input or skip (PM6). An interrupt settles it
 * `not_run` ({@link abandon}).
 */
export class ApprovalBook {
  revision = 0;
  private readonly pending = new Map<string, PendingApproval>();
  private readonly verdicts = new Map<string, ApprovalVerdict>();
  private readonly applied = new Map<string, Applied>();
  private readonly grantList: SessionGrant[];

  constructor(grants: SessionGrant[] = []) {
    this.grantList = [...grants];
  }

  /** Session-wide grants, oldest first. */
  grants(): SessionGrant[] {
    return [...this.grantList];
  }

  /** Pending approvals, oldest first. */
  list(): PendingApproval[] {
    return [...this.pending.values()];
  }

  /** Query result. */
  view(): ApprovalsView {
    return { revision: this.revision, pending: this.list(), grants: this.grants() };
  }

  /** Registers an asked call; returns it with the revision a decision must name. */
  ask(a: Omit<PendingApproval, 'revision'>): PendingApproval {
    this.revision += 1;
    const approval = { ...a, revision: this.revision };
    this.pending.set(a.approvalId, approval);
    return approval;
  }

  /** The verdict of an asked call once it has one. */
  verdict(approvalId: string): ApprovalVerdict | undefined {
    return this.verdicts.get(approvalId);
  }

  /**
   * Update validator: refuses, with a typed ApplicationFailure, what
   * {@link decide} would not apply. A command already applied with the
   * same content passes (the handler answers it again).
   * A decision carries the sha256 of the text the person was shown
   * (`subjectDigest`): it must be the approval's own, else
   * `approval_subject_mismatch` and nothing runs. An approval asked before
   * issue 26 has no digest of its own: a decision without one is taken, one
   * with a digest must be that of its text. A typed `pattern` (approve for
   * the session) must match the approval's own text.
   * @throws ApplicationFailure `approval_invalid`, `approval_command_conflict`,
   *   `approval_not_found`, `approval_already_decided`, `approval_stale_revision`,
   *   `approval_subject_mismatch`.
   */
  validate(req: ApprovalDecisionRequest): void {
    const fail = (type: ErrorCode, message: string) => {
      throw ApplicationFailure.create({ type, message, nonRetryable: true });
    };
    if (!req || typeof req.approvalId !== 'string' || typeof req.commandId !== 'string' || req.commandId === '')
      fail(APPROVAL_ERRORS.invalid, 'a decision needs approvalId and a non-empty commandId');
    if (!DECISIONS.includes(req.decision))
      fail(APPROVAL_ERRORS.invalid, `decision must be one of ${DECISIONS.join(', ')}`);
    if (!Number.isInteger(req.expectedRevision)) fail(APPROVAL_ERRORS.invalid, 'expectedRevision must be an integer');
    if (req.message !== undefined && (typeof req.message !== 'string' || req.message.length > APPROVAL_MESSAGE_MAX))
      fail(APPROVAL_ERRORS.invalid, `message must be a string of at most ${APPROVAL_MESSAGE_MAX} characters`);
    if (req.message !== undefined && req.decision !== 'deny')
      fail(APPROVAL_ERRORS.invalid, 'only a deny carries a message');
    if (req.subjectDigest !== undefined && !/^[0-9a-f]{64}$/.test(String(req.subjectDigest)))
      fail(APPROVAL_ERRORS.invalid, 'subjectDigest must be a sha256 in lowercase hex');
    if (
      req.pattern !== undefined &&
      (typeof req.pattern !== 'string' || req.pattern === '' || req.pattern.length > APPROVAL_PATTERN_MAX)
    )
      fail(APPROVAL_ERRORS.invalid, `pattern must be a non-empty string of at most ${APPROVAL_PATTERN_MAX} characters`);
    if (req.pattern !== undefined && req.decision !== 'approve_session')
      fail(APPROVAL_ERRORS.invalid, 'only an approval for the session carries a pattern');
    const before = this.applied.get(req.commandId);
    if (before) {
      if (before.request !== decisionFingerprint(req))
        fail(
          APPROVAL_ERRORS.commandConflict,
          `command ${req.commandId} was already used for a different decision (${before.result.decision} of ${before.result.approvalId})`,
        );
      return;
    }
    const approval = this.pending.get(req.approvalId);
    if (!approval) {
      if (this.verdicts.has(req.approvalId))
        fail(APPROVAL_ERRORS.alreadyDecided, `approval ${req.approvalId} is already decided`);
      fail(APPROVAL_ERRORS.notFound, `no pending approval ${req.approvalId} in this session`);
    }
    if (req.expectedRevision !== approval!.revision)
      fail(
        APPROVAL_ERRORS.staleRevision,
        `approval ${req.approvalId} is at revision ${approval!.revision}, not ${req.expectedRevision}`,
      );
    const own = approval!.subjectDigest ?? sha256Hex(approval!.subjectText);
    if ((approval!.subjectDigest !== undefined || req.subjectDigest !== undefined) && req.subjectDigest !== own)
      fail(
        APPROVAL_ERRORS.subjectMismatch,
        req.subjectDigest === undefined
          ? `approval ${req.approvalId} needs the digest of the text you were shown; nothing ran`
          : `the decision was made on another text than the call ${req.approvalId} waits with; nothing ran — list it again and decide on what it shows`,
      );
    if (req.decision === 'approve_session' && approval!.textInProjection)
      fail(
        APPROVAL_ERRORS.invalid,
        `approval ${req.approvalId} is a command too large to keep in the workflow: approve it once or deny it`,
      );
    if (req.pattern !== undefined && approval!.grantScope !== 'call')
      fail(
        APPROVAL_ERRORS.invalid,
        `approval ${req.approvalId} was asked before typed patterns existed: approve it without one`,
      );
    if (req.pattern !== undefined && !globMatch(req.pattern, approval!.subjectText))
      fail(
        APPROVAL_ERRORS.invalid,
        `the pattern ${JSON.stringify(req.pattern)} does not cover the command it would approve: nothing was decided`,
      );
  }

  /** Applies a validated decision (or answers a retried command with its first result). */
  decide(req: ApprovalDecisionRequest): ApprovalDecisionResult {
    const before = this.applied.get(req.commandId);
    if (before) return { ...before.result, duplicate: true };
    const approval = this.pending.get(req.approvalId)!;
    this.pending.delete(req.approvalId);
    this.revision += 1;
    let grant: SessionGrant | undefined;
    if (req.decision === 'approve_session') {
      const scope = approval.grantScope;
      const patterns = req.pattern !== undefined ? [req.pattern] : (approval.grantPatterns ?? ['*']);
      for (const pattern of patterns) {
        const g: SessionGrant = { tool: approval.tool, pattern, ...(scope ? { scope } : {}) };
        if (!this.grantList.some((x) => x.tool === g.tool && x.pattern === g.pattern && x.scope === g.scope))
          this.grantList.push(g);
        if (scope) grant = g;
      }
    }
    this.verdicts.set(
      req.approvalId,
      req.decision === 'deny'
        ? { kind: 'denied', commandId: req.commandId, ...(req.message ? { message: req.message } : {}) }
        : { kind: 'approved', decision: req.decision, commandId: req.commandId, ...(grant ? { grant } : {}) },
    );
    const result: ApprovalDecisionResult = {
      approvalId: req.approvalId,
      decision: req.decision,
      revision: this.revision,
      duplicate: false,
      ...(grant ? { grant } : {}),
    };
    this.applied.set(req.commandId, { request: decisionFingerprint(req), result });
    return result;
  }

  /** The turn was interrupted while this call waited: it is settled `not_run`, and no later decision applies. */
  abandon(approvalId: string): void {
    if (!this.pending.delete(approvalId)) return;
    this.revision += 1;
    this.verdicts.set(approvalId, { kind: 'not_run' });
  }
}
