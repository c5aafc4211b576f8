/**
 * Looking up the verification receipts a `goal_update` cites (GL32, issue
 * 26 items 5–6): in the session's stored tool-call rows only — never text
 * the model recalls — by receipt id alone, with the facts the Goal's audit
 * judges: authority, verdict, the command that ran, how many rows hold the
 * id (legacy ids could repeat) and the files later calls wrote (freshness).
 */
import type { GoalReceiptFacts } from '../../core/goal/contract.js';
import type { ProjectionStore, ToolCallRow } from '../projection/types.js';

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

/** Whether row `a` comes after row `b` in the session (turn, step, position: the order the model made them). */
function after(a: ToolCallRow, b: ToolCallRow): boolean {
  if (a.turn !== b.turn) return a.turn > b.turn;
  if (a.step !== b.step) return a.step > b.step;
  return a.position > b.position;
}

/**
 * The verification receipts of session `sessionId` with the given ids: for
 * each id whether a shell call of the session recorded it and — when exactly
 * one did — its call id, authority, verdict, command, and the paths calls
 * made after it wrote (at most 5 named). When more than one row holds the
 * id (ids given before issue 26 came from session + provider call id, which
 * providers repeat), `matches` says how many and nothing else is told: the
 * audit refuses it (`evidence_ambiguous`) rather than guess which one.
 */
export async function findReceipts(
  store: ProjectionStore,
  sessionId: string,
  ids: string[],
): Promise<Record<string, GoalReceiptFacts>> {
  const out: Record<string, GoalReceiptFacts> = Object.fromEntries(ids.map((id) => [id, { found: false }]));
  if (ids.length === 0) return out;
  const rows = (await store.loadTranscript(sessionId))?.toolCalls ?? [];
  const holders = new Map<string, ToolCallRow[]>();
  for (const c of rows) {
    const r = c.result?.receipt as { id?: unknown } | undefined;
    if (typeof r?.id !== 'string' || !(r.id in out)) continue;
    holders.set(r.id, [...(holders.get(r.id) ?? []), c]);
  }
  for (const [id, held] of holders) {
    if (held.length > 1) {
      out[id] = { found: true, matches: held.length };
      continue;
    }
    const c = held[0]!;
    const r = c.result!.receipt as { authority?: unknown; verdict?: unknown; command?: unknown };
    const written = rows.filter((w) => w.id !== c.id && after(w, c)).flatMap((w) => pathsWrittenBy(w));
    out[id] = {
      found: true,
      matches: 1,
      callId: c.callId,
      ...(typeof r.authority === 'string' ? { authority: r.authority } : {}),
      ...(typeof r.verdict === 'string' ? { verdict: r.verdict } : {}),
      ...(typeof r.command === 'string' ? { command: r.command } : {}),
      ...(written.length > 0 ? { writtenAfter: [...new Set(written)].slice(0, WRITTEN_NAMED) } : {}),
    };
  }
  return out;
}
