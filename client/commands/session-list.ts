import { cut, textTable } from '../text-table.js';
import { realpathSync } from 'node:fs';
import { ZunoError } from '../../core/errors.js';
import type { SessionRow, SessionStatus } from '../../activities/projection/types.js';
import { openStore, resolvePaths } from '../context.js';
import { processSink, type Sink } from '../render.js';

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
 * projection (no Temporal server needed). `--json` prints an array of
 * `{id, title, status, workspace, model, host, lastActivityAtMs, createdAtMs}`.
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
  const store = await openStore(resolvePaths());
  try {
    const rows = await store.listSessions({
      ...(workspace !== undefined ? { workspace } : {}),
      ...(opts.status !== undefined ? { status: opts.status as SessionStatus } : {}),
      limit: opts.limit ?? 50,
    });
    if (opts.json) {
      sink.out(`${JSON.stringify(rows.map(jsonRow), null, 2)}\n`);
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

function jsonRow(r: SessionRow) {
  return {
    id: r.id,
    title: r.title ?? null,
    status: r.status,
    workspace: r.workspace,
    model: `${r.provider}/${r.model}`,
    host: r.host ?? null,
    lastActivityAtMs: r.updatedAtMs,
    createdAtMs: r.createdAtMs,
  };
}

/**
 * The human table: one session per line, aligned columns `ID STATUS LAST
 * ACTIVITY MODEL WORKSPACE TITLE`; the title is cut to 50 characters. Pure.
 */
export function renderSessionList(rows: SessionRow[], nowMs: number): string {
  const cells = rows.map((r) => [
    r.id,
    r.status.replace('_', ' '),
    ago(nowMs - r.updatedAtMs),
    `${r.provider}/${r.model}`,
    r.workspace,
    cut((r.title ?? '').replace(/\s+/g, ' '), 50),
  ]);
  const head = ['ID', 'STATUS', 'LAST ACTIVITY', 'MODEL', 'WORKSPACE', 'TITLE'];
  return textTable(head, cells);
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
