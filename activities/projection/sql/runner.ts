/**
 * What runs the hot-path statements (statements.ts) on a backend: prepared
 * once per connection, a batch of writes in one transaction, reads outside
 * any transaction. One implementation per backend: sqlite-runner.ts,
 * pg-runner.ts (issue 13 item 2).
 */
import type { StatementName } from './statements.js';

/** A bound parameter: text, a number (ms times, turn/step/position), or NULL. */
export type SqlValue = string | number | null;

/** One statement of a batch. */
export interface SqlOp {
  stmt: StatementName;
  params: readonly SqlValue[];
  /**
   * The batch stands only if this statement changed a row (a conditional
   * upsert whose condition held): otherwise the whole batch is rolled back.
   */
  mustChange?: boolean;
}

/**
 * Statements run on the projection since the store opened: `statements`
 * counts every SQL statement but BEGIN/COMMIT/ROLLBACK — the hot path's own
 * and, on SQLite, every statement Prisma runs on the shared connection;
 * `transactions` counts hot-path batches. The benchmark divides them by the
 * tool calls it ran.
 */
export interface SqlStats {
  statements: number;
  transactions: number;
}

/** A backend's runner of hot-path statements. */
export interface SqlRunner {
  /**
   * Runs `ops` in order as ONE transaction of session `sessionId` (on
   * PostgreSQL under the session's advisory lock, so event seqs follow
   * commit order within a session). Resolves true when it committed, false
   * when an op marked `mustChange` changed nothing (then nothing of the
   * batch was written). Rejects with the driver's error (nothing written).
   */
  batch(sessionId: string, ops: readonly SqlOp[]): Promise<boolean>;
  /**
   * Appends one event, insert-if-absent by (sessionId, id), in a
   * transaction of its own; returns its seq (the stored one when it existed).
   * `params` are statements.ts EVENT_COLUMNS in order.
   */
  appendEvent(sessionId: string, params: readonly SqlValue[]): Promise<number>;
  /** Rows of one reader statement, columns by name; integers as JS numbers (64-bit values as text on PostgreSQL). */
  read<T = Record<string, unknown>>(stmt: StatementName, params: readonly SqlValue[]): Promise<T[]>;
  readonly stats: SqlStats;
}
