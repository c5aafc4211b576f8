import type { ApprovalRow, ProjectionWrites } from '../activities/projection/index.js';

/**
 * Settles a session's approval rows that still say `pending` although no
 * decision can come any more (its workflow closed before `recordApproval`
 * recorded how they ended): each becomes `abandoned`, with `why` as its
 * message and `atMs` (epoch ms) as its decision time. Runs inside the
 * caller's transaction of that session, so it never overwrites a decision
 * `recordApproval` wrote meanwhile (that writer takes the same lock).
 * Returns the rows it settled.
 */
export async function abandonPendingApprovals(
  tx: ProjectionWrites,
  sessionId: string,
  why: string,
  atMs: number,
): Promise<ApprovalRow[]> {
  const settled: ApprovalRow[] = [];
  for (const r of await tx.listApprovals({ sessionId, status: 'pending', limit: 1000 })) {
    const row: ApprovalRow = { ...r, status: 'abandoned', message: why, decidedAtMs: atMs };
    await tx.upsertApproval(row);
    settled.push(row);
  }
  return settled;
}
