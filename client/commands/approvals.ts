import type { ApprovalRow, ProjectionStore } from '../../activities/projection/index.js';
import { liveApprovals } from '../live-approvals.js';
import { temporalIfUp } from '../temporal-if-up.js';
import { createInterface } from 'node:readline/promises';
import { APPROVAL_MESSAGE_MAX, APPROVAL_PATTERN_MAX } from '../../core/approval-contract.js';
import { globMatch } from '../../core/permission/glob.js';
import type { SessionGrant } from '../../core/permission/types.js';
import { inertLine } from '../../core/terminal-text.js';
import { canGrantSession, grantWords, partsLine, subjectCell } from '../approval-words.js';
import { ZunoError } from '../../core/errors.js';
import { decideApproval, findApproval } from '../approvals.js';
import { connectTemporal, resolvePaths, type ZunoPaths } from '../context.js';
import { processSink } from '../render.js';
import type { Sink } from '../sink.js';
import { checkSessionId } from '../session-start.js';
import { openExistingStore } from '../session-target.js';
import { textTable } from '../text-table.js';
import { ago } from './session-list.js';
import { childOfWords, SessionAncestry, type SessionLink } from '../session-ancestry.js';

/**
 * `zuno approvals list [--session S] [--json]`: the approvals waiting for a
 * decision, oldest first, from the projection: id, session, tool, what it
 * would do — the full text as the model sent it, on one line with line
 * feeds escaped, its parsed parts on a line below (issue 26) —, why it
 * asks, how long it has waited. When Temporal is up (it is
 * never started here) only live ones are listed: their session's workflow is
 * open and its `approvals` query still lists them; those of a closed
 * workflow are settled `abandoned` (client/live-approvals.ts). With Temporal
 * down the projection's pending rows are listed as stored.
 * A child session's approvals (issue 12: a delegated session asks the same
 * person) are listed with its agent and whose child it is; `--session S`
 * lists S's and those of every session below S. `--json` prints an array of
 * the stored rows (`subjectText` the full text, `subjectParts`,
 * `subjectDigest`: docs/permissions.md), each with `agent`,
 * `parentSessionId`, `rootSessionId`.
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
 * The `approvals list` table. `WOULD RUN` is the whole subject text, escaped
 * onto one line (never cut: it is what the approval runs); a row whose text
 * has parsed parts is followed by an indented `parts: …` line. When a row
 * belongs to a child session, two columns say so: its `AGENT` and `CHILD OF`
 * (the parent, and the root when that is another session). Pure.
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
  const table = textTable(
    ['APPROVAL', 'SESSION', ...(delegated ? ['AGENT', 'CHILD OF'] : []), 'TOOL', 'WOULD RUN', 'WHY', 'WAITING'],
    rows.map((r) => [
      r.id,
      r.sessionId,
      ...linkCells(r),
      r.tool,
      subjectCell(r),
      inertLine(r.reason, 40),
      ago(nowMs - r.requestedAtMs),
    ]),
  );
  const [head, ...lines] = table.trimEnd().split('\n');
  const out = [head!];
  lines.forEach((line, i) => {
    out.push(line);
    const parts = partsLine(rows[i]!);
    if (parts) out.push(`    ↳ ${parts}`);
  });
  return `${out.join('\n')}\n`;
}

/** Options of `zuno approvals approve|deny`. */
export interface DecideOptions {
  session?: string;
  sessionWide?: boolean;
  /** With `sessionWide`: the pattern the grant covers instead of the exact text (shown back before it is stored). */
  pattern?: string;
  /** With `pattern`: store it without asking (needed when stdin is not a terminal). */
  yes?: boolean;
  message?: string;
  json?: boolean;
}

/**
 * `zuno approvals approve <id> [--session S] [--session-wide [--pattern P [--yes]]]`
 * and `zuno approvals deny <id> [--session S] [--message M]`: decides a
 * pending approval from any terminal (the session's workflow gets the
 * decision by Update, with the digest of the text the row shows; the call
 * then runs, or is refused with the message the model sees). A session-wide
 * approval covers exactly the text shown, or the typed `--pattern`, which is
 * shown back — and, on a terminal, confirmed — before it is sent; the
 * confirmation says what the grant covers in words.
 * @throws ZunoError `usage_error` (`--session-wide` on deny, `--message` on
 *   approve, a message too long, `--pattern` without `--session-wide`, a
 *   pattern that does not cover the approval's own text, `--pattern` not
 *   confirmed), `approval_not_found`, `approval_ambiguous`,
 *   `approval_already_decided`, `approval_stale_revision`,
 *   `approval_subject_mismatch`, `session_not_running`.
 */
export async function approvalsDecideCommand(
  verb: 'approve' | 'deny',
  id: string,
  opts: DecideOptions,
  sink: Sink = processSink,
  input: NodeJS.ReadableStream & { isTTY?: boolean } = process.stdin,
): Promise<number> {
  if (opts.session !== undefined) checkSessionId(opts.session);
  if (verb === 'deny' && opts.sessionWide) throw new ZunoError('usage_error', '--session-wide applies to approve only');
  if (opts.pattern !== undefined && !(verb === 'approve' && opts.sessionWide))
    throw new ZunoError('usage_error', '--pattern applies to approve --session-wide only');
  if (opts.pattern !== undefined && (opts.pattern === '' || opts.pattern.length > APPROVAL_PATTERN_MAX))
    throw new ZunoError('usage_error', `--pattern must be 1 to ${APPROVAL_PATTERN_MAX} characters`);
  if (verb === 'approve' && opts.message !== undefined)
    throw new ZunoError('usage_error', '--message applies to deny only (the model sees it)');
  if (opts.message !== undefined && opts.message.length > APPROVAL_MESSAGE_MAX)
    throw new ZunoError('usage_error', `--message is longer than ${APPROVAL_MESSAGE_MAX} characters`);
  const paths = resolvePaths();
  const store = await openExistingStore(paths);
  if (!store) throw new ZunoError('approval_not_found', `no pending approval ${id}: Zuno's home has no sessions yet`);
  try {
    const row = await findApproval(store, id, opts.session);
    if (opts.sessionWide && !canGrantSession(row))
      throw new ZunoError(
        'usage_error',
        `${row.id} is a command too large to keep in the session's workflow: approve it once (without --session-wide) or deny it`,
      );
    if (opts.pattern !== undefined) await confirmPattern(row, opts.pattern, opts, sink, input);
    const temporal = await connectTemporal(paths, opts.json ? null : (line) => sink.err(`${line}\n`));
    try {
      const result = await decideApproval(
        temporal.client,
        row,
        {
          decision: verb === 'deny' ? 'deny' : opts.sessionWide ? 'approve_session' : 'approve_once',
          ...(opts.message !== undefined ? { message: opts.message } : {}),
          ...(opts.pattern !== undefined ? { pattern: opts.pattern } : {}),
        },
        opts.json ? {} : { notify: (line) => sink.err(`${line}\n`) },
      );
      if (opts.json) sink.out(`${JSON.stringify({ sessionId: row.sessionId, ...result })}\n`);
      else sink.out(`${describeDecision(row, result.decision, result.grant)}\n`);
      return 0;
    } finally {
      await temporal.connection.close();
    }
  } finally {
    await store.close();
  }
}

/**
 * Shows a typed pattern back — what the grant would cover, in words, next to
 * the command being approved — and gets it confirmed: `--yes`, or `y` on a
 * terminal. Nothing is sent otherwise.
 * @throws ZunoError `usage_error`: the approval was asked before typed
 *   patterns existed, the pattern does not cover its own text, or it was not
 *   confirmed (not a terminal and no `--yes`, or an answer other than `y`).
 */
async function confirmPattern(
  row: ApprovalRow,
  pattern: string,
  opts: DecideOptions,
  sink: Sink,
  input: NodeJS.ReadableStream & { isTTY?: boolean },
): Promise<void> {
  if (row.grantScope !== 'call')
    throw new ZunoError(
      'usage_error',
      `${row.id} was asked before typed patterns existed: approve it without --pattern`,
    );
  if (!globMatch(pattern, row.subjectText))
    throw new ZunoError(
      'usage_error',
      `the pattern ${JSON.stringify(inertLine(pattern))} does not cover the command it would approve (${subjectCell(row)}): nothing was decided`,
    );
  const grant: SessionGrant = { tool: row.tool, pattern, scope: 'call' };
  sink.err(
    `approving ${row.id} (${row.tool}: ${subjectCell(row)}) for the rest of session ${row.sessionId} would stop asking for ${grantWords(row, grant)}\n`,
  );
  if (opts.yes) return;
  if (!input.isTTY)
    throw new ZunoError(
      'usage_error',
      'a typed pattern is stored only once confirmed: add --yes (nothing was decided)',
    );
  const rl = createInterface({ input, output: process.stderr });
  try {
    const answer = (await rl.question('Store this grant? [y/N] ')).trim().toLowerCase();
    if (answer !== 'y' && answer !== 'yes') throw new ZunoError('usage_error', 'not confirmed: nothing was decided');
  } finally {
    rl.close();
  }
}

/**
 * The line a decision prints. An approval for the session says what the
 * stored grant covers, in words (`this exact command: echo hello > note.txt`,
 * `shell commands matching the pattern: …`). Pure.
 */
export function describeDecision(
  row: Pick<
    ApprovalRow,
    'id' | 'tool' | 'subjectText' | 'sessionId' | 'subjectKind' | 'subjectParts' | 'grantScope' | 'grantPattern'
  >,
  decision: string,
  grant?: SessionGrant,
) {
  const what = `${row.tool}: ${subjectCell(row)}`;
  if (decision === 'deny') return `denied ${row.id} (${what}); the model is told`;
  if (decision === 'approve_session')
    return `approved ${row.id} (${what}); session ${row.sessionId} no longer asks for ${grantWords(row, grant)}`;
  return `approved ${row.id} (${what}) once`;
}
