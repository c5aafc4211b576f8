/**
 * Looking up the verification receipts a `goal_update` cites (GL32, issue
 * 26 items 5–6): in the session's stored tool-call rows only — never text
 * the model recalls — by receipt id alone, with the facts the Goal's audit
 * judges: authority, verdict, the command that ran, how many runs hold the
 * id (legacy ids could repeat) and the files later calls wrote (freshness).
 *
 * A receipt is one run's: a foreground shell call's, or a background task's
 * (a remote observer's, issue 26 item 6). A task's receipt is copied into
 * every `bg` read of it and is kept in its settled status file, so a task
 * read three times is still one run; only two different runs holding one id
 * make it ambiguous.
 */
import type { GoalReceiptFacts } from '../../core/goal/contract.js';
import { isAbsolute, relative, resolve } from 'node:path';
import type { ProjectionStore, ToolCallRow } from '../projection/types.js';
import { listStatuses } from '../tools/bg/store.js';

/** Written paths named per stale receipt (enough to say why; the count is not needed). */
const WRITTEN_NAMED = 5;

const strings = (v: unknown): string[] =>
  Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string' && x !== '') : [];

/**
 * The workspace paths a stored call says it wrote (GL32 freshness marks):
 * `writtenPaths` (shell SH7, `write`), `changedPaths`, the `changes` of an
 * applied patch (`path`, and `from` of a move) and the `changedPaths` of an
 * uncertain write or patch. A call that recorded none wrote nothing Zuno
 * knows of. Pure.
 */
export function pathsWrittenBy(row: Pick<ToolCallRow, 'result'>): string[] {
  const r = row.result;
  if (!r) return [];
  const uncertain = r.uncertain as { changedPaths?: unknown } | boolean | undefined;
  const changes = Array.isArray(r.changes)
    ? (r.changes as { path?: unknown; from?: unknown }[]).flatMap((c) => strings([c?.path, c?.from]))
    : [];
  return [
    ...new Set([
      ...strings(r.writtenPaths),
      ...strings(r.changedPaths),
      ...changes,
      ...(typeof uncertain === 'object' && uncertain !== null ? strings(uncertain.changedPaths) : []),
    ]),
  ];
}

/** A place in the session's order: turn, step, position (the order the model made its calls). */
interface Place {
  turn: number;
  step: number;
  position: number;
}

/** Whether `a` comes after `b` in the session. */
function after(a: Place, b: Place): boolean {
  if (a.turn !== b.turn) return a.turn > b.turn;
  if (a.step !== b.step) return a.step > b.step;
  return a.position > b.position;
}

/** Where background task `taskID` (`bg_<turn>_<step>_<index>`, core/ids.ts) was started, or null for another shape. */
function taskPlace(taskID: string): Place | null {
  const m = /^bg_(\d+)_(\d+)_(\d+)$/.exec(taskID);
  return m ? { turn: Number(m[1]), step: Number(m[2]), position: Number(m[3]) } : null;
}

/** One run that recorded a receipt: where it started, its receipt, the row holding it (foreground) or its task. */
interface Run {
  key: string;
  place: Place;
  receipt: { authority?: unknown; verdict?: unknown; command?: unknown };
  callId?: string;
  rowId?: string;
}

/**
 * Where a stored shell call ran, relative to the workspace: undefined for
 * the workspace root (no `workdir`, `.`, or the workspace itself), else the
 * `/`-separated relative path (an absolute one outside the workspace stays
 * absolute). Unparseable arguments read as the root's. Pure but for path math.
 */
export function workdirOf(argsJson: string, workspace?: string): string | undefined {
  let workdir: unknown;
  try {
    workdir = (JSON.parse(argsJson) as { workdir?: unknown } | null)?.workdir;
  } catch {
    return undefined;
  }
  if (typeof workdir !== 'string' || workdir.trim() === '') return undefined;
  const base = workspace ?? '/';
  const abs = isAbsolute(workdir) ? resolve(workdir) : resolve(base, workdir);
  const rel = relative(base, abs).split('\\').join('/');
  if (rel === '') return undefined;
  return rel.startsWith('..') || isAbsolute(rel) ? abs : rel;
}

/** The runs in the session's rows: a shell call's own receipt, or a `bg` read's copy of its task's (keyed by the task). */
function runsInRows(rows: ToolCallRow[], wanted: Set<string>): Map<string, Map<string, Run>> {
  const out = new Map<string, Map<string, Run>>();
  for (const c of rows) {
    const r = c.result?.receipt as Run['receipt'] & { id?: unknown };
    if (typeof r?.id !== 'string' || !wanted.has(r.id)) continue;
    const taskID = c.result?.taskID;
    const place = typeof taskID === 'string' ? taskPlace(taskID) : null;
    const run: Run =
      typeof taskID === 'string' && place
        ? { key: `task:${taskID}`, place, receipt: r }
        : { key: `row:${c.id}`, place: c, receipt: r, callId: c.callId, rowId: c.id };
    const held = out.get(r.id) ?? new Map<string, Run>();
    if (!held.has(run.key)) held.set(run.key, run);
    out.set(r.id, held);
  }
  return out;
}

/**
 * The receipts of session `sessionId` with the given ids: for each id
 * whether a run of the session recorded it — a foreground shell call's row,
 * or a background task (a remote observer) whose settled receipt a `bg`
 * read copied or whose status file in `workspace` holds it — and, when
 * exactly one run did, its call id, authority, verdict, command, and the
 * paths calls made after it started wrote (at most 5 named). When more
 * than one run holds the id (ids given before issue 26 came from session +
 * provider call id, which providers repeat), `matches` says how many and
 * nothing else is told: the audit refuses it (`evidence_ambiguous`) rather
 * than guess which one.
 *
 * @param workspace the session's workspace, where background task statuses
 *   are kept (activities/tools/bg/store.ts); absent: rows only.
 */
export async function findReceipts(
  store: ProjectionStore,
  sessionId: string,
  ids: string[],
  workspace?: string,
): Promise<Record<string, GoalReceiptFacts>> {
  const out: Record<string, GoalReceiptFacts> = Object.fromEntries(ids.map((id) => [id, { found: false }]));
  if (ids.length === 0) return out;
  const wanted = new Set(ids);
  const rows = (await store.loadTranscript(sessionId))?.toolCalls ?? [];
  const holders = runsInRows(rows, wanted);
  for (const s of workspace ? await listStatuses(workspace, sessionId) : []) {
    const place = taskPlace(s.taskID);
    if (s.state === 'running' || !place || !wanted.has(s.receipt.id)) continue;
    const held = holders.get(s.receipt.id) ?? new Map<string, Run>();
    const key = `task:${s.taskID}`;
    // The status file is the task's own settled record: it wins over a copy a read made.
    held.set(key, { key, place, receipt: s.receipt, callId: s.callId });
    holders.set(s.receipt.id, held);
  }
  for (const [id, held] of holders) {
    if (held.size > 1) {
      out[id] = { found: true, matches: held.size };
      continue;
    }
    const run = [...held.values()][0]!;
    const r = run.receipt;
    // Where it ran: the row's own arguments, or those of the shell call that started the task.
    const launcher = run.rowId
      ? rows.find((w) => w.id === run.rowId)
      : rows.find(
          (w) =>
            w.tool === 'shell' && w.callId === run.callId && w.turn === run.place.turn && w.step === run.place.step,
        );
    const workdir = launcher ? workdirOf(launcher.argsJson, workspace) : undefined;
    const written = rows.filter((w) => w.id !== run.rowId && after(w, run.place)).flatMap((w) => pathsWrittenBy(w));
    out[id] = {
      found: true,
      matches: 1,
      ...(run.callId !== undefined ? { callId: run.callId } : {}),
      ...(typeof r.authority === 'string' ? { authority: r.authority } : {}),
      ...(typeof r.verdict === 'string' ? { verdict: r.verdict } : {}),
      ...(typeof r.command === 'string' ? { command: r.command } : {}),
      ...(workdir !== undefined ? { workdir } : {}),
      ...(written.length > 0 ? { writtenAfter: [...new Set(written)].slice(0, WRITTEN_NAMED) } : {}),
    };
  }
  return out;
}
