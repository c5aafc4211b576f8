import type pg from 'pg';
import type { SqlOp, SqlRunner, SqlStats, SqlValue } from './runner.js';
import { STATEMENTS, type StatementName } from './statements.js';

/** Namespace (first key) of the per-session advisory locks (the same as the Prisma store's). */
const SESSION_LOCK_NAMESPACE = 0x7a756e6f; // 'zuno'

/**
 * The hot-path runner on PostgreSQL (issue 13 item 2): named prepared
 * statements (parsed once per pooled connection, then reused) on the pool
 * Prisma's pg adapter also uses. A batch is one transaction holding the
 * session's advisory lock — as every event write of the Prisma store does —
 * so within a session event seqs follow commit order. Tables are qualified
 * with `schema`.
 */
export class PgRunner implements SqlRunner {
  private readonly texts = new Map<StatementName, string>();

  constructor(
    private readonly pool: pg.Pool,
    private readonly schema: string,
    readonly stats: SqlStats,
  ) {}

  async batch(sessionId: string, ops: readonly SqlOp[]): Promise<boolean> {
    return this.inTransaction(sessionId, async (client) => {
      for (const op of ops) {
        const r = await this.run(client, op.stmt, op.params);
        if (op.mustChange && (r.rowCount ?? 0) === 0) return false;
      }
      this.stats.transactions += 1;
      return true;
    });
  }

  async appendEvent(sessionId: string, params: readonly SqlValue[]): Promise<number> {
    const seq = await this.inTransaction(sessionId, async (client) => {
      const inserted = await this.run(client, 'event', params);
      const row = inserted.rows[0] ?? (await this.run(client, 'eventSeq', [params[0]!, params[1]!])).rows[0];
      return row ? Number(row.seq) : -1;
    });
    if (seq === false || seq < 0) throw new Error(`event ${String(params[1])} was neither inserted nor found`);
    return seq;
  }

  async read<T>(stmt: StatementName, params: readonly SqlValue[]): Promise<T[]> {
    const client = await this.pool.connect();
    try {
      return (await this.run(client, stmt, params)).rows as T[];
    } finally {
      client.release();
    }
  }

  /**
   * Runs `fn` in a transaction under the session's advisory lock; commits
   * when it resolves to anything but `false`, rolls back on `false` or a
   * throw (rethrown).
   */
  private async inTransaction<R>(sessionId: string, fn: (client: pg.PoolClient) => Promise<R | false>) {
    const client = await this.pool.connect();
    let destroy: Error | undefined;
    try {
      await client.query('BEGIN');
      this.stats.statements += 1;
      await client.query({
        name: 'zuno_session_lock',
        text: 'SELECT pg_advisory_xact_lock($1::int4, hashtext($2))',
        values: [SESSION_LOCK_NAMESPACE, sessionId],
      });
      const out = await fn(client);
      await client.query(out === false ? 'ROLLBACK' : 'COMMIT');
      return out;
    } catch (err) {
      await client.query('ROLLBACK').catch((e: unknown) => {
        destroy = e instanceof Error ? e : new Error(String(e));
      });
      throw err;
    } finally {
      // A connection whose rollback failed is destroyed, not given back to the pool.
      client.release(destroy);
    }
  }

  private run(client: pg.PoolClient, stmt: StatementName, params: readonly SqlValue[]) {
    this.stats.statements += 1;
    let text = this.texts.get(stmt);
    if (text === undefined) {
      text = STATEMENTS[stmt].text('postgresql', (t) => `"${this.schema}"."${t}"`);
      this.texts.set(stmt, text);
    }
    return client.query<Record<string, unknown>>({ name: STATEMENTS[stmt].name, text, values: [...params] });
  }
}
