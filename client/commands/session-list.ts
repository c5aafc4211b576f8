import { textTable } from '../text-table.js';
import { inertLine } from '../../core/terminal-text.js';
import { realpathSync } from 'node:fs';
import { ZunoError } from '../../core/errors.js';
import type { SessionRow, SessionStatus } from '../../activities/projection/index.js';
import { openStore, resolvePaths } from '../context.js';
import { processSink } from '../render.js';
import type { Sink } from '../sink.js';
import { idCell, nestChildren } from './session-list-tree.js';
import { withTemporalTruth } from '../session-reconcile.js';

/** The statuses `--status` accepts (the projection's session statuses). */
export const SESSION_STATUSES: readonly SessionStatus[] = [
  'running',
  'waiting_background',
  'completed',
  'failed',
  'paused',
  'blocked',
  'interrupted',
  'cancelled',
  'terminated',
];

/** Options of `zuno session list`. */
export interface SessionListOptions {
  status?: string;
  dir?: string;
  json?: boolean;
  limit?: number;
}

/**
 * `zuno session list [--status S] [--dir D] [--limit N] [--json]`: the
 * sessions of Zuno's home, newest activity first — id, title (the first
 * prompt, shortened), status, workspace, model and last activity — from the
 * projection (no Temporal server needed). When Temporal is up, a row that
 * says its session is open while its workflow closed (terminated, timed out,
 * cancelled in Temporal) is settled first and listed as it ended
 * (client/session-reconcile.ts). `--json` prints an array of
 * `{id, title, status, workspace, model, host, agent, parentSessionId,
 * rootSessionId, depth, lastActivityAtMs, createdAtMs}`; the human table
 * lists a child session under its parent (session-list-tree.ts).
 * @throws ZunoError `input_rejected` for an unknown status, `workspace_invalid` for a `--dir` that does not exist.
 */
export async function sessionListCommand(opts: SessionListOptions, sink: Sink = processSink): Promise<number> {
  if (opts.status !== undefined && !SESSION_STATUSES.includes(opts.status as SessionStatus)) {
    throw new ZunoError(
      'input_rejected',
      `--status ${JSON.stringify(opts.status.slice(0, 40))} is not a session status (${SESSION_STATUSES.join(', ')})`,
    );
  }
  let workspace: string | undefined;
  if (opts.dir !== undefined) {
    try {
      workspace = realpathSync(opts.dir);
    } catch (err) {
      throw new ZunoError(
        'workspace_invalid',
        `--dir ${opts.dir} is not a usable directory: ${(err as Error).message}`,
      );
    }
  }
  const paths = resolvePaths();
  const store = await openStore(paths);
  try {
    const stored = await store.listSessions({
      ...(workspace !== undefined ? { workspace } : {}),
      ...(opts.status !== undefined ? { status: opts.status as SessionStatus } : {}),
      limit: opts.limit ?? 50,
    });
    // Rows that say their session is open are checked against Temporal (session-reconcile.ts); a settled
    // row that no longer matches --status is left out.
    const rows = (await withTemporalTruth(paths, store, stored)).filter(
      (r) => opts.status === undefined || r.status === opts.status,
    );
    if (opts.json) {
      sink.out(`${JSON.stringify(rows.map(sessionJson), null, 2)}\n`);
    } else if (rows.length === 0) {
      sink.out(opts.dir || opts.status ? 'no sessions match\n' : 'no sessions yet: start one with zuno run "…"\n');
    } else {
      sink.out(renderSessionList(rows, Date.now()));
    }
  } finally {
    await store.close();
  }
  return 0;
}

/** One session as `--json` prints it (and `zuno serve` answers `GET /sessions`). Pure. */
export function sessionJson(r: SessionRow) {
  return {
    id: r.id,
    title: r.title ?? null,
    status: r.status,
    workspace: r.workspace,
    model: `${r.provider}/${r.model}`,
    host: r.host ?? null,
    agent: r.agent ?? null,
    parentSessionId: r.parentSessionId ?? null,
    rootSessionId: r.rootSessionId ?? null,
    depth: r.depth ?? null,
    lastActivityAtMs: r.updatedAtMs,
    createdAtMs: r.createdAtMs,
  };
}

/**
 * The human table: one session per line, aligned columns `ID STATUS LAST
 * ACTIVITY MODEL HOST WORKSPACE TITLE` — HOST is the host that owns the
 * workspace (the session's route; `-` for a session recorded before
 * routing), beside the workspace it qualifies (issue 33); the title is cut
 * to 50 characters. A paused or blocked session's status names its code
 * (`paused (workspace_unavailable)`). A child session is listed under its
 * parent (`↳ ses_…`), or, when its parent is not listed, says whose child
 * it is before its title. Pure.
 */
export function renderSessionList(rows: SessionRow[], nowMs: number): string {
  const cells = nestChildren(rows).map((s) => {
    const r = s.row;
    const title = inertLine(r.title ?? '', 50);
    return [
      idCell(s),
      statusCell(r),
      ago(nowMs - r.updatedAtMs),
      `${r.provider}/${r.model}`,
      r.host ? inertLine(r.host, 100) : '-',
      r.workspace,
      s.parentNotListed ? `(child of ${s.parentNotListed}) ${title}` : title,
    ];
  });
  const head = ['ID', 'STATUS', 'LAST ACTIVITY', 'MODEL', 'HOST', 'WORKSPACE', 'TITLE'];
  return textTable(head, cells);
}

/** `waiting background`; a paused or blocked row with its code from the stored `code: message` error, `paused (provider_auth)`. */
function statusCell(r: SessionRow): string {
  const status = r.status.replace('_', ' ');
  if (r.status !== 'paused' && r.status !== 'blocked') return status;
  const code = /^([a-z][a-z0-9_]*): /.exec(r.error ?? '')?.[1];
  return code ? `${status} (${code})` : status;
}

/** A duration in ms as people say it: `just now`, `4 min ago`, `3 h ago`, `2 days ago`. */
export function ago(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 45) return 'just now';
  if (s < 3600) return `${Math.max(1, Math.round(s / 60))} min ago`;
  if (s < 86_400) return `${Math.round(s / 3600)} h ago`;
  const d = Math.round(s / 86_400);
  return `${d} day${d === 1 ? '' : 's'} ago`;
}
