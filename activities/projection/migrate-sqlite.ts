import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import { allApplied, type LocalMigration, prismaTimestamp } from './migrations.js';

// Prisma Migrate's bookkeeping table, as its SQLite connector creates it.
const CREATE_MIGRATIONS_TABLE = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id"                    TEXT PRIMARY KEY NOT NULL,
    "checksum"              TEXT NOT NULL,
    "finished_at"           DATETIME,
    "migration_name"        TEXT NOT NULL,
    "logs"                  TEXT,
    "rolled_back_at"        DATETIME,
    "started_at"            DATETIME NOT NULL DEFAULT current_timestamp,
    "applied_steps_count"   INTEGER UNSIGNED NOT NULL DEFAULT 0
)`;

/**
 * Brings the SQLite file at `file` up to date with `migrations` (see
 * migrations.ts for why this runner exists). Creates the file if missing,
 * switches it to WAL (persistent: other processes read while the worker
 * writes) and applies pending migrations in one `BEGIN IMMEDIATE`
 * transaction, so concurrent openers serialize and the later ones find
 * nothing to do. Already migrated: two small reads, a few ms.
 *
 * @param busyTimeoutMs how long to wait (ms) for another process's write lock.
 * @throws the better-sqlite3 error when the file cannot be opened or a
 *   migration fails (the transaction is rolled back); the caller wraps it.
 */
export function migrateSqlite(file: string, migrations: readonly LocalMigration[], busyTimeoutMs: number): void {
  const db = new Database(file, { timeout: busyTimeoutMs });
  try {
    setWal(db, busyTimeoutMs);
    if (allApplied(migrations, appliedNames(db))) return;
    db.exec('BEGIN IMMEDIATE');
    try {
      db.exec(CREATE_MIGRATIONS_TABLE);
      const applied = appliedNames(db);
      const record = db.prepare(
        `INSERT INTO "_prisma_migrations"
           ("id", "checksum", "finished_at", "migration_name", "logs", "rolled_back_at", "started_at", "applied_steps_count")
         VALUES (?, ?, ?, ?, NULL, NULL, ?, 1)`,
      );
      for (const m of migrations) {
        if (applied.has(m.name)) continue;
        const started = prismaTimestamp();
        db.exec(m.sql);
        record.run(randomUUID(), m.checksum, prismaTimestamp(), m.name, started);
      }
      db.exec('COMMIT');
    } catch (err) {
      if (db.inTransaction) db.exec('ROLLBACK');
      throw err;
    }
  } finally {
    db.close();
  }
}

function appliedNames(db: Database.Database): Set<string> {
  const table = db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '_prisma_migrations'`).get();
  if (table === undefined) return new Set();
  const rows = db
    .prepare(
      `SELECT "migration_name" AS name FROM "_prisma_migrations"
       WHERE "finished_at" IS NOT NULL AND "rolled_back_at" IS NULL`,
    )
    .all() as { name: string }[];
  return new Set(rows.map((r) => r.name));
}

// Switching to WAL needs a moment of exclusive access; when another process
// holds the file SQLite may answer SQLITE_BUSY without calling the busy
// handler, so retry until the busy timeout. Already WAL: a header read.
function setWal(db: Database.Database, busyTimeoutMs: number): void {
  const deadline = Date.now() + busyTimeoutMs;
  for (;;) {
    try {
      db.pragma('journal_mode = WAL');
      return;
    } catch (err) {
      if ((err as { code?: string }).code?.startsWith('SQLITE_BUSY') !== true || Date.now() > deadline) throw err;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);
    }
  }
}
