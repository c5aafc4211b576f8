/**
 * What a session row says against what Temporal says (issue 25 item 7.1).
 *
 * The decision: a closed workflow cannot upsert its `ZunoStatus` search
 * attribute nor write its projection row, so a session whose workflow was
 * terminated (`temporal workflow terminate`, a scripted `zuno run` ended by
 * Ctrl-C) or timed out keeps `ZunoStatus=running` in Temporal for good —
 * there, the workflow's execution status is the truth. The projection row is
 * settled by whoever reads it next with Temporal reachable (`zuno session
 * list|show`): a row that still says the session is open (`running`,
 * `waiting_background`, `paused`) while its workflow's latest run is closed
 * becomes `terminated` (terminated or timed out in Temporal), `cancelled`
 * (cancelled in Temporal) or, for a run that completed or failed without
 * its last record, the final `ZunoStatus` it upserted; its `error` says so
 * in plain words; inputs it admitted and never answered are recorded
 * `cancelled` (never dropped); approvals still pending become `abandoned`.
 */
import { type Client, WorkflowNotFoundError, type WorkflowExecutionDescription } from '@temporalio/client';
import type { SessionRow, SessionStatus, ProjectionStore } from '../activities/projection/index.js';
import { ZunoStatus } from '../core/search-attributes.js';
import { abandonPendingApprovals } from './stale-approvals.js';
import type { ZunoPaths } from './context.js';
import { temporalIfUp } from './temporal-if-up.js';

/** Row statuses that claim the workflow is still open. */
export const OPEN_SESSION_STATUSES: readonly SessionStatus[] = ['running', 'waiting_background', 'paused'];

/**
 * A row written this long after its workflow closed is not settled from that
 * close (ms): it belongs to a newer run being started (`zuno run --session`
 * writes the row before it starts the run).
 */
export const RECONCILE_GRACE_MS = 60_000;

/** How a closed workflow settles an open row: the status and the words for it. */
export interface ClosedSession {
  status: SessionStatus;
  /** Plain words, e.g. `terminated in Temporal`. */
  words: string;
}

/** Final `ZunoStatus` values and the row status each stands for. */
const FINAL_ZUNO_STATUS: Record<string, SessionStatus> = {
  completed: 'completed',
  failed: 'failed',
  blocked: 'blocked',
  interrupted: 'interrupted',
};

/**
 * How a workflow's execution status (Temporal's name, e.g. `TERMINATED`)
 * and its last `ZunoStatus` settle a row that says the session is open;
 * null when they do not (the run is open, or nothing final is known). Pure.
 */
export function closedSession(executionStatus: string, zunoStatus: string | undefined): ClosedSession | null {
  switch (executionStatus) {
    case 'TERMINATED':
      return { status: 'terminated', words: 'terminated in Temporal' };
    case 'TIMED_OUT':
      return { status: 'terminated', words: 'timed out in Temporal' };
    case 'CANCELLED':
      return { status: 'cancelled', words: 'cancelled in Temporal' };
    case 'COMPLETED':
    case 'FAILED': {
      const status = zunoStatus !== undefined ? FINAL_ZUNO_STATUS[zunoStatus] : undefined;
      return status ? { status, words: `${zunoStatus} in Temporal` } : null;
    }
    default:
      return null;
  }
}

/** The settlement a workflow description implies for `row`, or null (open run, newer row, nothing final). Pure. */
export function settlementOf(row: SessionRow, d: WorkflowExecutionDescription): ClosedSession | null {
  if (!OPEN_SESSION_STATUSES.includes(row.status)) return null;
  const closedAtMs = d.closeTime?.getTime();
  if (closedAtMs === undefined || row.updatedAtMs > closedAtMs + RECONCILE_GRACE_MS) return null;
  return closedSession(d.status.name, d.typedSearchAttributes.get(ZunoStatus));
}

/**
 * Settles one row as {@link closedSession} said, in one transaction of the
 * session: only while the row still says the session is open (a worker's
 * later write wins). Returns the row as it stands afterwards.
 */
export async function settleClosedSession(
  store: ProjectionStore,
  row: SessionRow,
  closed: ClosedSession,
  nowMs: number = Date.now(),
): Promise<SessionRow> {
  return store.transaction(row.id, async (tx) => {
    const current = await tx.getSession(row.id);
    if (!current || !OPEN_SESSION_STATUSES.includes(current.status)) return current ?? row;
    const error = `${closed.words}: the workflow ended without recording it (the row said ${current.status.replace('_', ' ')})`;
    await tx.setSessionStatus(row.id, closed.status, { error, updatedAtMs: nowMs });
    for (const i of await tx.listInputs(row.id))
      if (i.state === 'admitted' || i.state === 'applied') await tx.setInputState(row.id, i.id, 'cancelled', nowMs);
    await abandonPendingApprovals(tx, row.id, `its session was ${closed.words} before a decision`, nowMs);
    return { ...current, status: closed.status, error, updatedAtMs: nowMs };
  });
}

/**
 * Checks every row that says its session is open against Temporal and
 * settles those whose workflow closed (see the module comment). Rows
 * Temporal does not know (another server, history deleted) stay as stored.
 * Returns `rows` in the same order, settled ones replaced.
 * @throws what the store or Temporal throws, except WorkflowNotFoundError.
 */
export async function reconcileSessions(
  store: ProjectionStore,
  client: Client,
  rows: SessionRow[],
): Promise<SessionRow[]> {
  const out: SessionRow[] = [];
  for (const row of rows) {
    if (!OPEN_SESSION_STATUSES.includes(row.status)) {
      out.push(row);
      continue;
    }
    let d: WorkflowExecutionDescription;
    try {
      d = await client.workflow.getHandle(row.workflowId).describe();
    } catch (err) {
      if (!(err instanceof WorkflowNotFoundError)) throw err;
      out.push(row);
      continue;
    }
    const closed = settlementOf(row, d);
    out.push(closed ? await settleClosedSession(store, row, closed) : row);
  }
  return out;
}

/**
 * {@link reconcileSessions} when Temporal is up (never starting the dev
 * server); the rows as stored otherwise, or when no row says it is open.
 */
export async function withTemporalTruth(
  paths: ZunoPaths,
  store: ProjectionStore,
  rows: SessionRow[],
): Promise<SessionRow[]> {
  if (!rows.some((r) => OPEN_SESSION_STATUSES.includes(r.status))) return rows;
  const temporal = await temporalIfUp(paths);
  if (!temporal) return rows;
  try {
    return await reconcileSessions(store, temporal.client, rows);
  } finally {
    await temporal.close();
  }
}

/** How an ended session reads after `it …`, by its final `ZunoStatus`. */
const ENDED_AS: Record<string, string> = {
  completed: 'completed',
  failed: 'failed',
  blocked: 'ended blocked',
  interrupted: 'was interrupted',
};

/**
 * How a session whose workflow's latest run is closed ended, in words after
 * `it` (`was interrupted`, `completed`, `was terminated in Temporal`), from
 * Temporal's execution status and the last `ZunoStatus` the run upserted. Pure.
 */
export function endedWords(executionStatus: string, zunoStatus: string | undefined): string {
  if (executionStatus === 'TERMINATED') return 'was terminated in Temporal';
  if (executionStatus === 'TIMED_OUT') return 'timed out in Temporal';
  if (executionStatus === 'CANCELLED') return 'was cancelled';
  const as = zunoStatus !== undefined ? ENDED_AS[zunoStatus] : undefined;
  return as ?? `ended (${executionStatus.toLowerCase().replace('_', ' ')} in Temporal)`;
}
