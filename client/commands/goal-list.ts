import { textTable } from '../text-table.js';
import { inertLine } from '../../core/terminal-text.js';
import { ZunoError } from '../../core/errors.js';
import { GOAL_STATUSES, type GoalStatus } from '../../core/goal/status.js';
import type { GoalRow } from '../../activities/projection/index.js';
import { goalReason } from '../../core/goal/transitions.js';
import { resolvePaths } from '../context.js';
import { processSink } from '../render.js';
import type { Sink } from '../sink.js';
import { openExistingStore } from '../session-target.js';
import { ago } from './session-list.js';

/** Options of `zuno goal list`. */
export interface GoalListOptions {
  status?: string;
  json?: boolean;
  limit?: number;
}

/**
 * `zuno goal list [--status S] [--limit N] [--json]`: the Goals of Zuno's
 * home, newest activity first, from the projection (no Temporal server
 * needed) — id, status with its reason, turns, last activity, objective
 * (one line, cut). `--json` prints an array of `{id, sessionId, status,
 * reason, revision, turns, objective, spent, budgets, createdAtMs,
 * updatedAtMs}`.
 * @throws ZunoError `usage_error` for a `--status` that is not a Goal status (naming the valid ones).
 */
export async function goalListCommand(opts: GoalListOptions, sink: Sink = processSink): Promise<number> {
  if (opts.status !== undefined && !(GOAL_STATUSES as readonly string[]).includes(opts.status)) {
    throw new ZunoError(
      'usage_error',
      `--status ${JSON.stringify(opts.status.slice(0, 40))} is not a goal status (${GOAL_STATUSES.join(', ')})`,
    );
  }
  const store = await openExistingStore(resolvePaths());
  try {
    const rows = store
      ? await store.listGoals({
          ...(opts.status !== undefined ? { status: opts.status as GoalStatus } : {}),
          limit: opts.limit ?? 50,
        })
      : [];
    if (opts.json) sink.out(`${JSON.stringify(rows.map(jsonRow), null, 2)}\n`);
    else if (rows.length === 0)
      sink.out(opts.status ? 'no goals match\n' : 'no goals yet: start one with zuno goal start "…"\n');
    else sink.out(renderGoalList(rows, Date.now()));
  } finally {
    await store?.close();
  }
  return 0;
}

function jsonRow(r: GoalRow) {
  const s = r.snapshot;
  return {
    id: r.id,
    sessionId: r.sessionId,
    status: s.state.status,
    reason: goalReason(s),
    revision: s.revision,
    turns: s.spent.turns,
    objective: s.objective,
    spent: s.spent,
    budgets: s.budgets,
    createdAtMs: s.createdAtMs,
    updatedAtMs: s.updatedAtMs,
  };
}

/** `paused (no_progress)`, `active`, `cancelled` — the status with its typed reason, as the list and show print it. */
export function statusWithReason(r: GoalRow['snapshot']): string {
  const reason = goalReason(r);
  // Who cancelled is said by `goal show`; the list keeps the column short.
  return reason && r.state.status !== 'cancelled' ? `${r.state.status} (${reason})` : r.state.status;
}

/**
 * The human table: one Goal per line, aligned columns `ID STATUS TURNS LAST
 * ACTIVITY OBJECTIVE`; the objective on one line, cut to 60 characters. Pure.
 */
export function renderGoalList(rows: GoalRow[], nowMs: number): string {
  const cells = rows.map((r) => [
    r.id,
    statusWithReason(r.snapshot),
    String(r.snapshot.spent.turns),
    ago(nowMs - r.snapshot.updatedAtMs),
    inertLine(r.snapshot.objective, 60),
  ]);
  const head = ['ID', 'STATUS', 'TURNS', 'LAST ACTIVITY', 'OBJECTIVE'];
  return textTable(head, cells);
}
