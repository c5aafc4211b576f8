import type { PrismaClient as SqliteClient } from '../../prisma/generated/sqlite/client/client.js';
import { ZunoError } from '../../core/errors.js';
import type { PostgresTarget, SqliteTarget } from './backend.js';

/**
 * The Prisma client the store talks to. Both generated clients come from the
 * same models (prisma/models.prisma), so their model APIs are the same; the
 * SQLite client's type stands for both.
 */
export type ProjectionDb = SqliteClient;

/** Generated clients live in prisma/generated (scripts/prisma-generate.mjs). */
const NOT_GENERATED = 'the Prisma client is not generated: run `node scripts/prisma-generate.mjs`';

/**
 * A Prisma client on the SQLite file (better-sqlite3 driver adapter, wasm
 * query compiler; no native engine). Lazy: the file opens on the first query.
 *
 * @param busyTimeoutMs how long (ms) a statement waits for another process's lock.
 * @throws ZunoError `projection_unavailable` when the client is not generated.
 */
export async function createSqliteDb(target: SqliteTarget, busyTimeoutMs: number): Promise<ProjectionDb> {
  const [{ PrismaClient }, { PrismaBetterSQLite3 }] = await Promise.all([
    importGenerated(() => import('../../prisma/generated/sqlite/client/client.js')),
    import('@prisma/adapter-better-sqlite3'),
  ]);
  return new PrismaClient({ adapter: new PrismaBetterSQLite3({ url: target.file, timeout: busyTimeoutMs }) });
}

/**
 * A Prisma client on PostgreSQL (pg driver adapter with its own pool). Tables
 * are qualified with `target.schema` by the query compiler.
 *
 * @param connectTimeoutMs how long (ms) a new pool connection may take.
 * @throws ZunoError `projection_unavailable` when the client is not generated.
 */
export async function createPostgresDb(target: PostgresTarget, connectTimeoutMs: number): Promise<ProjectionDb> {
  const [{ PrismaClient }, { PrismaPg }] = await Promise.all([
    importGenerated(() => import('../../prisma/generated/postgres/client/client.js')),
    import('@prisma/adapter-pg'),
  ]);
  const adapter = new PrismaPg(
    // allowExitOnIdle: a CLI command that is done may exit while pooled
    // connections sit idle (pg's default keeps the process alive 10 s).
    { connectionString: target.connectionString, connectionTimeoutMillis: connectTimeoutMs, allowExitOnIdle: true },
    { schema: target.schema },
  );
  // Same models, provider-specific filter extras only: see ProjectionDb.
  return new PrismaClient({ adapter }) as unknown as ProjectionDb;
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
