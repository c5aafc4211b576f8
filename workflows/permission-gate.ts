import { PROJECTION_RECORD_OPTIONS } from '../core/activity-policy.js';
import { CancellationScope, condition, proxyActivities } from '@temporalio/workflow';
import type { PendingApproval, RecordApprovalInput } from '../core/approval-contract.js';
import { callEffect } from '../core/permission/effect.js';
import { evaluatePermission } from '../core/permission/evaluate.js';
import type { PermissionDecision } from '../core/permission/types.js';
import type { PlannedToolCall, SessionActivities, SettledOutcome } from '../core/session-contract.js';
import type { ApprovalBook, ApprovalVerdict } from './approvals.js';
import { onRoute, type RouteHost } from './route.js';
import { markdownLiteral as md } from '../core/ui-text.js';
import { settleDenied, settleNotRun } from './settle.js';

/** What the permission gate needs from the session workflow. */
export interface GateHost extends RouteHost {
  readonly approvals: ApprovalBook;
  /** Called when the set of pending approvals changed (ZunoStatus, current details). */
  approvalsChanged(): void;
}

/** What the gate lets happen to one call. */
export type GateResult = { run: true } | { run: false; settled: SettledOutcome };

/**
 * The permission gate in the workflow path (TD2, TD7, TD8, PM1–PM6): decides
 * a planned call on the session's policy before anything is scheduled.
 * - no policy (sessions started before permissions existed) or `allow` → run;
 * - `deny` → a `blocked` result with category `denied`; nothing is scheduled;
 * - `ask` → an approval: recorded in the projection (`approval.requested`),
 *   shown in ZunoStatus and the current details, and waited for — as long as
 *   it takes, across worker and server restarts — until a person decides by
 *   Update. Approved → run; denied → `blocked` `denied` with the person's
 *   message; a hard interrupt meanwhile → `not_run`.
 * Only this call waits: the other calls of its batch go on.
 *
 * @param interrupted true once the turn was interrupted (TD10).
 */
export async function admitCall(
  host: GateHost,
  call: PlannedToolCall,
  where: { turn: number; step: number },
  interrupted: () => boolean,
): Promise<GateResult> {
  const decided = decide(host, call);
  if (decided.kind === 'result') return decided.result;
  const verdict = await waitForDecision(host, call, where, decided.decision, interrupted);
  if (verdict.kind === 'approved') return { run: true };
  if (verdict.kind === 'not_run') return { run: false, settled: settleNotRun(call, Date.now()) };
  const said = verdict.message ? `: ${verdict.message}` : '';
  return { run: false, settled: settleDenied(call, `the user denied this call${said}`, Date.now()) };
}

/**
 * The gate's decision when no person needs to be asked (no policy, `allow`,
 * `deny`), else null: then {@link admitCall} asks and waits. Synchronous, so a
 * fast turn (issue 13) awaits nothing for the calls the policy decides. Pure
 * but for `Date.now()` (workflow time) in a denial.
 */
export function decideCall(host: GateHost, call: PlannedToolCall): GateResult | null {
  const decided = decide(host, call);
  return decided.kind === 'result' ? decided.result : null;
}

function decide(
  host: GateHost,
  call: PlannedToolCall,
): { kind: 'result'; result: GateResult } | { kind: 'ask'; decision: PermissionDecision } {
  const policy = host.meta.permission;
  if (!policy) return { kind: 'result', result: { run: true } };
  const effect = callEffect(call.name, call.args);
  const decision = evaluatePermission(
    policy,
    { tool: call.name, effect, subject: call.subject ?? { kind: 'none' } },
    host.approvals.grants(),
  );
  if (decision.action === 'allow') return { kind: 'result', result: { run: true } };
  if (decision.action === 'deny') {
    const settled = settleDenied(call, `permission denied (${decision.reason})`, Date.now());
    return { kind: 'result', result: { run: false, settled } };
  }
  return { kind: 'ask', decision };
}

async function waitForDecision(
  host: GateHost,
  call: PlannedToolCall,
  where: { turn: number; step: number },
  decision: PermissionDecision,
  interrupted: () => boolean,
): Promise<ApprovalVerdict> {
  const book = host.approvals;
  const approval = book.ask({
    approvalId: `ap_${call.rowId.replace(/^tc_/, '')}`,
    rowId: call.rowId,
    callId: call.callId,
    tool: call.name,
    subjectText: decision.subjectText,
    reason: decision.reason,
    ...(decision.grantPatterns?.length ? { grantPatterns: decision.grantPatterns } : {}),
    turn: where.turn,
    step: where.step,
    requestedAtMs: Date.now(),
  });
  // Recording, waiting and settling run to their end: an interrupt only ends the wait.
  return CancellationScope.nonCancellable(async () => {
    await record(host, { sessionId: host.meta.sessionId, approval });
    host.approvalsChanged();
    await condition(() => book.verdict(approval.approvalId) !== undefined || interrupted());
    if (book.verdict(approval.approvalId) === undefined) book.abandon(approval.approvalId);
    const verdict = book.verdict(approval.approvalId)!;
    host.approvalsChanged();
    await record(host, {
      sessionId: host.meta.sessionId,
      approval,
      decided: decidedOf(verdict),
    });
    return verdict;
  });
}

function decidedOf(v: ApprovalVerdict): NonNullable<RecordApprovalInput['decided']> {
  const atMs = Date.now();
  if (v.kind === 'not_run') return { decision: 'not_run', atMs };
  if (v.kind === 'denied')
    return { decision: 'deny', commandId: v.commandId, ...(v.message ? { message: v.message } : {}), atMs };
  return { decision: v.decision, commandId: v.commandId, atMs };
}

function record(host: RouteHost, input: RecordApprovalInput): Promise<void> {
  return onRoute(host, (o) =>
    proxyActivities<SessionActivities>({
      ...PROJECTION_RECORD_OPTIONS,
      ...o,
      summary: `approval ${input.approval.approvalId}: ${input.approval.tool}`,
    }).recordApproval(input),
  );
}

/**
 * The Temporal current-details line of the oldest pending approval, e.g.
 * `turn 1 · waiting for approval ap_0_0_1: shell: rm -rf build · since 16:32:31 UTC · zuno approvals approve|deny ap_0_0_1`.
 */
export function approvalLine(pending: PendingApproval[]): string | null {
  const first = pending[0];
  if (!first) return null;
  const more = pending.length > 1 ? ` (+${pending.length - 1} more)` : '';
  const since = new Date(first.requestedAtMs).toISOString().slice(11, 19);
  return (
    `turn ${first.turn + 1} · waiting for approval ${first.approvalId}: ${first.tool}: ${md(first.subjectText.slice(0, 160))}${more}` +
    ` · since ${since} UTC · zuno approvals approve|deny ${first.approvalId}`
  );
}
