import Database from 'better-sqlite3';
import type pg from 'pg';
import type { PrismaBetterSQLite3 } from '@prisma/adapter-better-sqlite3';
import type { PrismaClient as SqliteClient } from '../../prisma/generated/sqlite/client/client.js';
import { ZunoError } from '../../core/errors.js';
import type { PostgresTarget, SqliteTarget } from './backend.js';
import type { SqlStats } from './sql/runner.js';

/**
 * The Prisma client the store talks to. Both generated clients come from the
 * same models (prisma/models.prisma), so their model APIs are the same; the
 * SQLite client's type stands for both.
 */
export type ProjectionDb = SqliteClient;

/** Generated clients live in prisma/generated (scripts/prisma-generate.mjs). */
const NOT_GENERATED = 'the Prisma client is not generated: run `node scripts/prisma-generate.mjs`';

/** A Prisma client on SQLite and the one better-sqlite3 connection its driver adapter uses. */
export interface SqliteDb {
  prisma: ProjectionDb;
  /** The adapter's current connection (the hot path prepares its statements on it: sql/sqlite-runner.ts). */
  connection(): Database.Database;
}

/**
 * A Prisma client on the SQLite file (better-sqlite3 driver adapter, wasm
 * query compiler; no native engine), connected, and its connection. The
 * adapter opens its own better-sqlite3 connection; the factory here keeps a
 * hand on it so the hot path (issue 13) runs its prepared statements on the
 * same connection rather than a second one that would contend for the
 * file's write lock inside this process. Every statement Prisma runs on it
 * is counted in `stats.statements` (BEGIN/COMMIT/ROLLBACK are not).
 *
 * @param busyTimeoutMs how long (ms) a statement waits for another process's lock.
 * @throws ZunoError `projection_unavailable` when the client is not generated;
 *   the driver's error when the file cannot be opened.
 */
export async function createSqliteDb(target: SqliteTarget, busyTimeoutMs: number, stats: SqlStats): Promise<SqliteDb> {
  const [{ PrismaClient }, { PrismaBetterSQLite3: Factory }] = await Promise.all([
    importGenerated(() => import('../../prisma/generated/sqlite/client/client.js')),
    import('@prisma/adapter-better-sqlite3'),
  ]);
  const factory = new Factory({ url: target.file, timeout: busyTimeoutMs });
  let current: Database.Database | undefined;
  const keep = (adapter: SqlDriverAdapter): SqlDriverAdapter => {
    current = connectionOf(adapter);
    countStatements(current, stats);
    return adapter;
  };
  const capturing: Pick<PrismaBetterSQLite3, 'provider' | 'adapterName' | 'connect'> = {
    provider: factory.provider,
    adapterName: factory.adapterName,
    connect: async () => keep(await factory.connect()),
  };
  const prisma = new PrismaClient({ adapter: capturing });
  await prisma.$connect();
  return {
    prisma,
    connection: () => {
      if (!current) throw new Error('projection: the SQLite connection is not open');
      return current;
    },
  };
}

/** What the adapter factory's `connect` gives. */
type SqlDriverAdapter = Awaited<ReturnType<PrismaBetterSQLite3['connect']>>;

/**
 * The better-sqlite3 connection inside the adapter (6.19's adapter keeps it
 * as `client`); a version that keeps it elsewhere fails here, loudly,
 * rather than running the hot path on a second connection.
 */
function connectionOf(adapter: SqlDriverAdapter): Database.Database {
  const db = (adapter as unknown as { client?: unknown }).client;
  if (!(db instanceof Database)) {
    throw new Error('projection: the Prisma SQLite adapter does not expose its better-sqlite3 connection as `client`');
  }
  return db;
}

/** Counts each statement the adapter prepares (it prepares one per statement it runs). */
function countStatements(db: Database.Database, stats: SqlStats): void {
  const prepare = Database.prototype.prepare;
  db.prepare = function (this: Database.Database, source: string) {
    if (!/^\s*(BEGIN|COMMIT|ROLLBACK)\b/i.test(source)) stats.statements += 1;
    return prepare.call(this, source);
  } as typeof db.prepare;
}

/** A Prisma client on PostgreSQL and the pg pool its driver adapter uses. */
export interface PostgresDb {
  prisma: ProjectionDb;
  /** The pool Prisma's adapter uses (the hot path runs its named statements on it: sql/pg-runner.ts). */
  pool: pg.Pool;
}

/**
 * A Prisma client on PostgreSQL (pg driver adapter on a pool made here and
 * shared with the hot path; the adapter ends it on disconnect). Tables are
 * qualified with `target.schema` by the query compiler.
 *
 * @param connectTimeoutMs how long (ms) a new pool connection may take.
 * @throws ZunoError `projection_unavailable` when the client is not generated.
 */
export async function createPostgresDb(target: PostgresTarget, connectTimeoutMs: number): Promise<PostgresDb> {
  const [{ PrismaClient }, { PrismaPg }, { default: pgModule }] = await Promise.all([
    importGenerated(() => import('../../prisma/generated/postgres/client/client.js')),
    import('@prisma/adapter-pg'),
    import('pg'),
  ]);
  // allowExitOnIdle: a CLI command that is done may exit while pooled
  // connections sit idle (pg's default keeps the process alive 10 s).
  const pool = new pgModule.Pool({
    connectionString: target.connectionString,
    connectionTimeoutMillis: connectTimeoutMs,
    allowExitOnIdle: true,
  });
  // A dropped idle connection emits 'error' on the pool; failures surface through the awaited queries.
  pool.on('error', () => undefined);
  const adapter = new PrismaPg(pool, { schema: target.schema, disposeExternalPool: true });
  // Same models, provider-specific filter extras only: see ProjectionDb.
  return { prisma: new PrismaClient({ adapter }) as unknown as ProjectionDb, pool };
}

async function importGenerated<T>(load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (err) {
    if ((err as { code?: string }).code === 'ERR_MODULE_NOT_FOUND') {
      throw new ZunoError('projection_unavailable', NOT_GENERATED);
    }
    throw err;
  }
}
