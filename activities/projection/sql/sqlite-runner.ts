import Database from 'better-sqlite3';
import type { ConnectionGate } from '../gate.js';
import type { SqlOp, SqlRunner, SqlStats, SqlValue } from './runner.js';
import { STATEMENTS, type StatementName } from './statements.js';

/** Thrown inside a batch's transaction to roll it back when a `mustChange` op changed nothing. */
class Unchanged extends Error {}

/**
 * The hot-path runner on SQLite (issue 13 item 2): better-sqlite3 prepared
 * statements on the one connection Prisma's driver adapter also uses,
 * prepared once per connection and reused. A batch is one synchronous
 * `BEGIN IMMEDIATE … COMMIT` run through the connection gate's `sync`, so
 * it never lands inside a Prisma interactive transaction and nothing else
 * runs on the connection meanwhile. `connection()` returns the current
 * connection (a reconnect of the adapter gives a new one; statements are
 * prepared again for it).
 */
export class SqliteRunner implements SqlRunner {
  readonly stats: SqlStats;
  private db: Database.Database | undefined;
  private prepared = new Map<StatementName, Database.Statement>();
  private tx: ((ops: readonly SqlOp[]) => void) | undefined;

  constructor(
    private readonly connection: () => Database.Database,
    private readonly gate: ConnectionGate,
    stats: SqlStats,
  ) {
    this.stats = stats;
  }

  batch(_sessionId: string, ops: readonly SqlOp[]): Promise<boolean> {
    return this.gate.sync(() => {
      const run = this.transaction();
      try {
        run(ops);
        this.stats.transactions += 1;
        return true;
      } catch (err) {
        if (err instanceof Unchanged) return false;
        throw err;
      }
    });
  }

  appendEvent(_sessionId: string, params: readonly SqlValue[]): Promise<number> {
    return this.gate.sync(() => {
      this.stats.statements += 1;
      const row = this.statement('event').get(...params) as { seq: number } | undefined;
      if (row) return row.seq;
      this.stats.statements += 1;
      const found = this.statement('eventSeq').get(params[0], params[1]) as { seq: number } | undefined;
      if (!found) throw new Error(`event ${String(params[1])} was neither inserted nor found`);
      return found.seq;
    });
  }

  read<T>(stmt: StatementName, params: readonly SqlValue[]): Promise<T[]> {
    return this.gate.sync(() => {
      this.stats.statements += 1;
      return this.statement(stmt).all(...params) as T[];
    });
  }

  /** The batch transaction of the current connection (BEGIN IMMEDIATE: the write lock is taken up front). */
  private transaction(): (ops: readonly SqlOp[]) => void {
    const db = this.current();
    if (db.inTransaction) throw new Error('projection: a hot-path batch would run inside an open transaction');
    this.tx ??= db.transaction((ops: readonly SqlOp[]) => {
      for (const op of ops) {
        this.stats.statements += 1;
        const stmt = this.statement(op.stmt);
        const changes = stmt.reader ? stmt.all(...op.params).length : stmt.run(...op.params).changes;
        if (op.mustChange && changes === 0) throw new Unchanged();
      }
    }).immediate;
    return this.tx;
  }

  private current(): Database.Database {
    const db = this.connection();
    if (db !== this.db) {
      this.db = db;
      this.prepared = new Map();
      this.tx = undefined;
    }
    return db;
  }

  private statement(name: StatementName): Database.Statement {
    const db = this.current();
    let stmt = this.prepared.get(name);
    if (!stmt) {
      const def = STATEMENTS[name];
      // The prototype's prepare: the connection's own may be wrapped to count Prisma's statements (client.ts).
      stmt = Database.prototype.prepare.call(
        db,
        def.text('sqlite', (t) => `"${t}"`),
      ) as Database.Statement;
      // The adapter turns safe integers on for the whole connection; these rows carry ms times and counts.
      if (def.reader) stmt.safeIntegers(false);
      this.prepared.set(name, stmt);
    }
    return stmt;
  }
}
