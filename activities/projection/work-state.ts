/**
 * Work-state store functions (GP15–GP32; docs/goals.md "Storage"): the
 * session's Plan/Todo row and the ledger of update calls already decided.
 * The store keeps the state as text; deciding what an update does is the
 * caller's (the reducers in core/work/, through the tools).
 */
import type { ProjectionStore, WorkStateRow } from './types.js';

/** The state columns an update may write. */
export type WorkStateColumns = Pick<WorkStateRow, 'planRevision' | 'planJson' | 'todoRevision' | 'todoJson'>;

/** A row with no Plan and no Todo yet (what a session has before its first update). */
export const EMPTY_WORK_STATE: WorkStateColumns = {
  planRevision: null,
  planJson: null,
  todoRevision: 0,
  todoJson: null,
};

/** What one update call decided, given the committed state. */
export interface WorkDecision<R> {
  /** What the call returns (and, with `record`, what a second run of it returns). */
  result: R;
  /** Columns to change (absent: the state stays as it is). */
  write?: Partial<WorkStateColumns>;
  /**
   * Record `result` as this call's decision. false only when nothing may be
   * written at all (the stored state is corrupt: fail closed, and a later
   * run decides again on whatever is stored then).
   */
  record: boolean;
}

/** Which call an update is: the session, the ledger key (`<row id>/<provider call id>`) and the tool. */
export interface WorkUpdateKey {
  sessionId: string;
  id: string;
  tool: string;
}

/** The session's work state columns as committed now ({@link EMPTY_WORK_STATE} before its first update). */
export async function readWorkState(store: ProjectionStore, sessionId: string): Promise<WorkStateColumns> {
  return (await store.getWorkState(sessionId)) ?? EMPTY_WORK_STATE;
}

/**
 * Decides and applies one update call exactly once, in one transaction of
 * the session (so no other update interleaves between the read and the
 * write): when the ledger already holds a decision for `key`, that result
 * is returned (`replayed: true`) and `decide` is not called; otherwise
 * `decide` sees the committed columns, its `write` and the ledger record
 * commit together, and its result is returned. A throw from `decide`
 * rolls everything back and is rethrown.
 * @param atMs when the update is applied (the row's `updatedAtMs`, the record's `atMs`).
 */
export async function applyWorkUpdateOnce<R extends object>(
  store: ProjectionStore,
  key: WorkUpdateKey,
  decide: (current: WorkStateColumns) => WorkDecision<R>,
  atMs: number,
): Promise<{ result: R; replayed: boolean }> {
  return store.transaction(key.sessionId, async (tx) => {
    const prior = await tx.getWorkUpdate(key.sessionId, key.id);
    if (prior) return { result: prior.result as R, replayed: true };
    const current = (await tx.getWorkState(key.sessionId)) ?? EMPTY_WORK_STATE;
    const d = decide(current);
    if (d.write) {
      const next = { ...current, ...d.write };
      await tx.upsertWorkState({
        sessionId: key.sessionId,
        planRevision: next.planRevision,
        planJson: next.planJson,
        todoRevision: next.todoRevision,
        todoJson: next.todoJson,
        updatedAtMs: atMs,
      });
    }
    if (d.record) {
      await tx.recordWorkUpdate({
        sessionId: key.sessionId,
        id: key.id,
        tool: key.tool,
        result: d.result as Record<string, unknown>,
        atMs,
      });
    }
    return { result: d.result, replayed: false };
  });
}
