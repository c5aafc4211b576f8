/**
 * Which pending approval rows are live (issue 25 item 7.4): an approval is
 * pending only while its session's workflow is open and actually waiting on
 * it. The projection row alone can be stale — its session's workflow was
 * terminated, or it ended before `recordApproval` recorded the decision.
 */
import type { Client } from '@temporalio/client';
import { APPROVALS_QUERY, type ApprovalsView } from '../core/approval-contract.js';
import { sessionWorkflowId } from '../core/ids.js';
import type { ApprovalRow, ProjectionStore } from '../activities/projection/index.js';
import { endedWords } from './session-reconcile.js';
import { describeSessionRun } from './session-start.js';
import { abandonPendingApprovals } from './stale-approvals.js';

/** How long the `approvals` query may take before the rows of that session are kept as stored, in ms. */
export const APPROVALS_QUERY_TIMEOUT_MS = 5_000;

/**
 * The rows of `pending` that are live, in the same order, asking Temporal
 * once per session: a session whose workflow's latest run is closed has its
 * pending rows settled `abandoned` (with how it ended) and none listed; an
 * open one keeps only the rows its `approvals` query still lists as pending
 * (a row it no longer lists is left for `recordApproval`, which may be about
 * to write the decision). When the query gets no answer within
 * {@link APPROVALS_QUERY_TIMEOUT_MS} (no worker serves the session), or
 * Temporal does not know the workflow, the rows are kept: the workflow may
 * still be waiting on them.
 * @throws what the store or Temporal throws, except a missing workflow and a query that goes unanswered.
 */
export async function liveApprovals(
  store: ProjectionStore,
  client: Client,
  pending: ApprovalRow[],
  nowMs: number = Date.now(),
): Promise<ApprovalRow[]> {
  const live = new Map<string, Set<string> | 'all'>();
  for (const sessionId of new Set(pending.map((r) => r.sessionId))) {
    const handle = client.workflow.getHandle(sessionWorkflowId(sessionId));
    const described = await describeSessionRun(client, sessionId);
    if (!described) {
      live.set(sessionId, 'all');
      continue;
    }
    const { status, zunoStatus } = described;
    if (status !== 'RUNNING') {
      const why = `its session ${endedWords(status, zunoStatus)} before a decision`;
      await store.transaction(sessionId, (tx) => abandonPendingApprovals(tx, sessionId, why, nowMs));
      live.set(sessionId, new Set());
      continue;
    }
    const view = await client.connection
      .withAbortSignal(AbortSignal.timeout(APPROVALS_QUERY_TIMEOUT_MS), () =>
        handle.query<ApprovalsView>(APPROVALS_QUERY),
      )
      .catch(() => null);
    live.set(sessionId, view ? new Set(view.pending.map((p) => p.approvalId)) : 'all');
  }
  return pending.filter((r) => {
    const ids = live.get(r.sessionId);
    return ids === 'all' || ids?.has(r.id) === true;
  });
}
