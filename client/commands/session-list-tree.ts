/**
 * The order of `zuno session list` once child sessions exist (issue 12): a
 * session a `task` delegated to is listed right under its parent, indented
 * one step per level and marked `↳`, oldest child first; a child whose
 * parent is not in the listing (filtered out, or past `--limit`) stays at
 * its own place and names its parent instead. Top-level sessions keep the
 * newest-activity-first order, a tree counting as active as its newest
 * session. Pure.
 */
import type { SessionRow } from '../../activities/projection/index.js';

/** One line of the list: the row, how deep it is indented, and the parent it names when that is not listed. */
export interface ListedSession {
  row: SessionRow;
  level: number;
  /** Set for a child whose parent is not in the listing. */
  parentNotListed?: string;
}

/** `rows` (newest activity first) with each child moved under its listed parent. */
export function nestChildren(rows: readonly SessionRow[]): ListedSession[] {
  const listed = new Set(rows.map((r) => r.id));
  const children = new Map<string, SessionRow[]>();
  for (const r of rows) {
    if (!r.parentSessionId || !listed.has(r.parentSessionId) || r.parentSessionId === r.id) continue;
    const list = children.get(r.parentSessionId) ?? [];
    list.push(r);
    children.set(r.parentSessionId, list);
  }
  const out: ListedSession[] = [];
  const placed = new Set<string>();
  const place = (r: SessionRow, level: number) => {
    if (placed.has(r.id)) return; // a cycle in damaged rows: each session once
    placed.add(r.id);
    out.push({
      row: r,
      level,
      ...(level === 0 && r.parentSessionId ? { parentNotListed: r.parentSessionId } : {}),
    });
    const kids = [...(children.get(r.id) ?? [])].sort(
      (a, b) => a.createdAtMs - b.createdAtMs || a.id.localeCompare(b.id),
    );
    for (const k of kids) place(k, level + 1);
  };
  // A tree is as recent as its newest session: a parent whose child is busy is listed where the child would be.
  const latest = (r: SessionRow, seen = new Set<string>()): number => {
    if (seen.has(r.id)) return r.updatedAtMs;
    seen.add(r.id);
    return Math.max(r.updatedAtMs, ...(children.get(r.id) ?? []).map((k) => latest(k, seen)));
  };
  const heads = rows.filter((r) => !r.parentSessionId || !listed.has(r.parentSessionId));
  const newest = new Map(heads.map((r) => [r.id, latest(r)]));
  heads.sort((a, b) => newest.get(b.id)! - newest.get(a.id)!); // stable: ties keep the listing's order
  for (const r of heads) place(r, 0);
  for (const r of rows) place(r, 0); // only rows of a parent cycle are left
  return out;
}

/** The ID cell: `ses_…` for a top-level session, `  ↳ ses_…` (two spaces per extra level) for a listed child. */
export function idCell(s: ListedSession): string {
  return s.level === 0 ? s.row.id : `${'  '.repeat(s.level - 1)}↳ ${s.row.id}`;
}
