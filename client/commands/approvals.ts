import type { ApprovalRow, ProjectionStore } from '../../activities/projection/types.js';
import { liveApprovals } from '../live-approvals.js';
import { temporalIfUp } from '../temporal-if-up.js';
import { APPROVAL_MESSAGE_MAX } from '../../core/approval-contract.js';
import { ZunoError } from '../../core/errors.js';
import { decideApproval, findApproval } from '../approvals.js';
import { connectTemporal, resolvePaths, type ZunoPaths } from '../context.js';
import { processSink, type Sink } from '../render.js';
import { checkSessionId } from '../session-start.js';
import { openExistingStore } from '../session-target.js';
import { cut, textTable } from '../text-table.js';
import { ago } from './session-list.js';
import { childOfWords, SessionAncestry, type SessionLink } from '../session-ancestry.js';

/**
 * `zuno approvals list [--session S] [--json]`: the approvals waiting for a
 * decision, oldest first, from the projection: id, session, tool, what it
 * would do, why it asks, how long it has waited. When Temporal is up (it is
 * never started here) only live ones are listed: their session's workflow is
 * open and its `approvals` query still lists them; those of a closed
 * workflow are settled `abandoned` (client/live-approvals.ts). With Temporal
 * down the projection's pending rows are listed as stored.
 * A child session's approvals (issue 12: a delegated session asks the same
 * person) are listed with its agent and whose child it is; `--session S`
 * lists S's and those of every session below S. `--json` prints an array of
 * the stored rows, each with `agent`, `parentSessionId`, `rootSessionId`.
 * @throws ZunoError `session_id_invalid` for a malformed `--session`.
 */
export async function approvalsListCommand(
  opts: { session?: string; json?: boolean },
  sink: Sink = processSink,
): Promise<number> {
  if (opts.session !== undefined) checkSessionId(opts.session);
  const paths = resolvePaths();
  const store = await openExistingStore(paths);
  try {
    const stored = store ? await store.listApprovals({ status: 'pending', limit: 1000 }) : [];
    const pending = store && stored.length > 0 ? await onlyLive(store, paths, stored) : stored;
    const tree = store ? new SessionAncestry(store) : null;
    const rows: ApprovalRow[] = [];
    const links = new Map<string, SessionLink>();
    for (const r of pending) {
      if (opts.session !== undefined && !(await tree!.within(r.sessionId, opts.session))) continue;
      rows.push(r);
      links.set(r.sessionId, await tree!.link(r.sessionId));
    }
    if (opts.json) {
      const json = rows.map((r) => {
        const l = links.get(r.sessionId)!;
        return { ...r, agent: l.agent, parentSessionId: l.parentSessionId, rootSessionId: l.rootSessionId };
      });
      sink.out(`${JSON.stringify(json, null, 2)}\n`);
    } else if (rows.length === 0) sink.out('no approvals are waiting\n');
    else sink.out(renderApprovals(rows, Date.now(), links));
  } finally {
    await store?.close();
  }
  return 0;
}

/** The rows of `stored` that are live, when Temporal is up (see {@link liveApprovals}); all of them otherwise. */
async function onlyLive(store: ProjectionStore, paths: ZunoPaths, stored: ApprovalRow[]): Promise<ApprovalRow[]> {
  const temporal = await temporalIfUp(paths);
  if (!temporal) return stored;
  try {
    return await liveApprovals(store, temporal.client, stored);
  } finally {
    await temporal.close();
  }
}

/**
 * The `approvals list` table. When a row belongs to a child session, two
 * columns say so: its `AGENT` and `CHILD OF` (the parent, and the root when
 * that is another session). Pure.
 */
export function renderApprovals(
  rows: ApprovalRow[],
  nowMs: number,
  links: ReadonlyMap<string, SessionLink> = new Map(),
): string {
  const delegated = rows.some((r) => links.get(r.sessionId)?.parentSessionId);
  const linkCells = (r: ApprovalRow): string[] => {
    if (!delegated) return [];
    const l = links.get(r.sessionId);
    return l?.parentSessionId ? [l.agent, childOfWords(l)] : ['', '—'];
  };
  return textTable(
    ['APPROVAL', 'SESSION', ...(delegated ? ['AGENT', 'CHILD OF'] : []), 'TOOL', 'WOULD RUN', 'WHY', 'WAITING'],
    rows.map((r) => [
      r.id,
      r.sessionId,
      ...linkCells(r),
      r.tool,
      cut(r.subjectText, 60),
      cut(r.reason, 40),
      ago(nowMs - r.requestedAtMs),
    ]),
  );
}

/** Options of `zuno approvals approve|deny`. */
export interface DecideOptions {
  session?: string;
  sessionWide?: boolean;
  message?: string;
  json?: boolean;
}

/**
 * `zuno approvals approve <id> [--session S] [--session-wide]` and
 * `zuno approvals deny <id> [--session S] [--message M]`: decides a pending
 * approval from any terminal (the session's workflow gets the decision by
 * Update; the call then runs, or is refused with the message the model sees).
 * @throws ZunoError `usage_error` (`--session-wide` on deny, `--message` on
 *   approve, a message too long), `approval_not_found`, `approval_ambiguous`,
 *   `approval_already_decided`, `approval_stale_revision`, `session_not_running`.
 */
export async function approvalsDecideCommand(
  verb: 'approve' | 'deny',
  id: string,
  opts: DecideOptions,
  sink: Sink = processSink,
): Promise<number> {
  if (opts.session !== undefined) checkSessionId(opts.session);
  if (verb === 'deny' && opts.sessionWide) throw new ZunoError('usage_error', '--session-wide applies to approve only');
  if (verb === 'approve' && opts.message !== undefined)
    throw new ZunoError('usage_error', '--message applies to deny only (the model sees it)');
  if (opts.message !== undefined && opts.message.length > APPROVAL_MESSAGE_MAX)
    throw new ZunoError('usage_error', `--message is longer than ${APPROVAL_MESSAGE_MAX} characters`);
  const paths = resolvePaths();
  const store = await openExistingStore(paths);
  if (!store) throw new ZunoError('approval_not_found', `no pending approval ${id}: Zuno's home has no sessions yet`);
  try {
    const row = await findApproval(store, id, opts.session);
    const temporal = await connectTemporal(paths, opts.json ? null : (line) => sink.err(`${line}\n`));
    try {
      const result = await decideApproval(
        temporal.client,
        row,
        {
          decision: verb === 'deny' ? 'deny' : opts.sessionWide ? 'approve_session' : 'approve_once',
          ...(opts.message !== undefined ? { message: opts.message } : {}),
        },
        opts.json ? {} : { notify: (line) => sink.err(`${line}\n`) },
      );
      if (opts.json) sink.out(`${JSON.stringify({ sessionId: row.sessionId, ...result })}\n`);
      else sink.out(`${describeDecision(row, result.decision)}\n`);
      return 0;
    } finally {
      await temporal.connection.close();
    }
  } finally {
    await store.close();
  }
}

/** The line a decision prints. Pure. */
export function describeDecision(
  row: Pick<ApprovalRow, 'id' | 'tool' | 'subjectText' | 'sessionId'>,
  decision: string,
) {
  const what = `${row.tool}: ${cut(row.subjectText, 80)}`;
  if (decision === 'deny') return `denied ${row.id} (${what}); the model is told`;
  if (decision === 'approve_session')
    return `approved ${row.id} (${what}); session ${row.sessionId} no longer asks for this exact ${row.tool} call (${cut(row.subjectText, 60)})`;
  return `approved ${row.id} (${what}) once`;
}
