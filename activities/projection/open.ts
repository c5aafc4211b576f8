import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { ZunoError } from '../../core/errors.js';
import { type PostgresTarget, resolveBackend, scrub, type SqliteTarget } from './backend.js';
import { createPostgresDb, createSqliteDb } from './client.js';
import { migratePostgres } from './migrate-postgres.js';
import { migrateSqlite } from './migrate-sqlite.js';
import { localMigrations } from './migrations.js';
import { PrismaProjectionStore } from './store.js';
import { PgRunner } from './sql/pg-runner.js';
import type { SqlStats } from './sql/runner.js';
import { SqliteRunner } from './sql/sqlite-runner.js';
import { ConnectionGate } from './gate.js';
import type { ProjectionStore } from './types.js';

/** How long (ms) SQLite waits for another process's lock before SQLITE_BUSY. */
const SQLITE_BUSY_TIMEOUT_MS = 10_000;
/** How long (ms) a PostgreSQL connection attempt may take. */
const PG_CONNECT_TIMEOUT_MS = 5_000;

/**
 * Opens the projection store (DESIGN.md §1, §3 "Where data lives"): picks the
 * backend from `databaseUrl` (see resolveBackend: unset → SQLite
 * `<zunoDir>/zuno.db`; `postgres://` / `postgresql://` → PostgreSQL, with
 * `?schema=NAME`), creates the SQLite file's folder, applies pending
 * checked-in migrations (safe when several processes open at once) and
 * returns the store. Already migrated, it costs a few ms plus loading the
 * generated client (the first query then compiles the wasm query compiler,
 * ~0.1 s). Close the store with `close()`.
 *
 * @param opts.databaseUrl database URL (e.g. `DATABASE_URL`); empty = default SQLite file.
 * @param opts.zunoDir the `.zuno` folder (created when SQLite lives there).
 * @throws ZunoError `projection_unavailable` when the URL is unsupported or
 *   malformed, the SQLite file cannot be opened, PostgreSQL cannot be reached
 *   within 5 s or rejects the login, a migration fails, or the Prisma client
 *   is not generated. The message names the backend and host, never the
 *   password.
 */
export async function openProjectionStore(opts: { databaseUrl?: string; zunoDir: string }): Promise<ProjectionStore> {
  const target = resolveBackend(opts);
  return target.kind === 'sqlite' ? openSqlite(target) : openPostgres(target);
}

async function openSqlite(target: SqliteTarget): Promise<ProjectionStore> {
  const stats: SqlStats = { statements: 0, transactions: 0 };
  let db: Awaited<ReturnType<typeof createSqliteDb>>;
  try {
    mkdirSync(dirname(target.file), { recursive: true });
    migrateSqlite(target.file, localMigrations('sqlite'), SQLITE_BUSY_TIMEOUT_MS);
    db = await createSqliteDb(target, SQLITE_BUSY_TIMEOUT_MS, stats);
  } catch (err) {
    if (err instanceof ZunoError) throw err;
    throw new ZunoError('projection_unavailable', `cannot open ${target.describe}: ${messageOf(err)}`, {
      backend: 'sqlite',
      file: target.file,
    });
  }
  const gate = new ConnectionGate();
  return new PrismaProjectionStore(db.prisma, 'sqlite', new SqliteRunner(db.connection, gate, stats), stats, gate);
}

async function openPostgres(target: PostgresTarget): Promise<ProjectionStore> {
  const migrations = localMigrations('postgres');
  const fail = (what: string, err: unknown) =>
    new ZunoError('projection_unavailable', scrub(`${what} ${target.describe}: ${messageOf(err)}`, target.secrets), {
      backend: 'postgresql',
    });
  // Loaded lazily: SQLite users never pay for `pg`.
  const { default: pg } = await import('pg');
  const client = new pg.Client({
    connectionString: target.connectionString,
    connectionTimeoutMillis: PG_CONNECT_TIMEOUT_MS,
  });
  // A dropped connection emits 'error' on the client; without a listener it
  // would crash the process. Failures surface through the awaited calls.
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch (err) {
    await client.end().catch(() => undefined);
    throw fail('cannot reach', err);
  }
  try {
    await migratePostgres(client, target.schema, migrations);
  } catch (err) {
    throw fail('cannot migrate', err);
  } finally {
    await client.end().catch(() => undefined);
  }
  const stats: SqlStats = { statements: 0, transactions: 0 };
  const { prisma, pool } = await createPostgresDb(target, PG_CONNECT_TIMEOUT_MS);
  return new PrismaProjectionStore(prisma, 'postgresql', new PgRunner(pool, target.schema, stats), stats);
}

function messageOf(err: unknown): string {
  if (err instanceof AggregateError && err.errors.length > 0) {
    return err.errors.map(messageOf).join('; ');
  }
  if (err instanceof Error) return err.message || err.name;
  return String(err);
}
