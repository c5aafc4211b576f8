import { ApplicationFailure } from '@temporalio/workflow';
import {
  APPROVAL_ERRORS,
  APPROVAL_MESSAGE_MAX,
  type ApprovalDecisionKind,
  type ApprovalDecisionRequest,
  type ApprovalDecisionResult,
  type ApprovalsView,
  type PendingApproval,
} from '../core/approval-contract.js';
import type { SessionGrant } from '../core/permission/types.js';

/** How an asked call ended: decided by a person, or not run (the turn was interrupted while it waited). */
export type ApprovalVerdict =
  | { kind: 'approved'; decision: 'approve_once' | 'approve_session'; commandId: string }
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
   * @throws ApplicationFailure `approval_invalid`, `approval_command_conflict`,
   *   `approval_not_found`, `approval_already_decided`, `approval_stale_revision`.
   */
  validate(req: ApprovalDecisionRequest): void {
    const fail = (type: string, message: string) => {
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
    const before = this.applied.get(req.commandId);
    if (before) {
      if (before.request !== fingerprint(req))
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
  }

  /** Applies a validated decision (or answers a retried command with its first result). */
  decide(req: ApprovalDecisionRequest): ApprovalDecisionResult {
    const before = this.applied.get(req.commandId);
    if (before) return { ...before.result, duplicate: true };
    const approval = this.pending.get(req.approvalId)!;
    this.pending.delete(req.approvalId);
    this.revision += 1;
    if (req.decision === 'approve_session') {
      for (const pattern of approval.grantPatterns ?? ['*'])
        if (!this.grantList.some((g) => g.tool === approval.tool && g.pattern === pattern))
          this.grantList.push({ tool: approval.tool, pattern });
    }
    this.verdicts.set(
      req.approvalId,
      req.decision === 'deny'
        ? { kind: 'denied', commandId: req.commandId, ...(req.message ? { message: req.message } : {}) }
        : { kind: 'approved', decision: req.decision, commandId: req.commandId },
    );
    const result = { approvalId: req.approvalId, decision: req.decision, revision: this.revision, duplicate: false };
    this.applied.set(req.commandId, { request: fingerprint(req), result });
    return result;
  }

  /** The turn was interrupted while this call waited: it is settled `not_run`, and no later decision applies. */
  abandon(approvalId: string): void {
    if (!this.pending.delete(approvalId)) return;
    this.revision += 1;
    this.verdicts.set(approvalId, { kind: 'not_run' });
  }
}

function fingerprint(req: ApprovalDecisionRequest): string {
  return JSON.stringify([req.approvalId, req.expectedRevision, req.decision, req.message ?? null]);
}
