import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { allApplied, type LocalMigration } from './migrations.js';

/** The advisory lock key Prisma Migrate takes, so our runner and the Prisma CLI serialize. */
const MIGRATE_LOCK_KEY = 72707369;

// Prisma Migrate's bookkeeping table, as its PostgreSQL connector creates it.
const CREATE_MIGRATIONS_TABLE = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id"                    VARCHAR(36) PRIMARY KEY NOT NULL,
    "checksum"              VARCHAR(64) NOT NULL,
    "finished_at"           TIMESTAMPTZ,
    "migration_name"        VARCHAR(255) NOT NULL,
    "logs"                  TEXT,
    "rolled_back_at"        TIMESTAMPTZ,
    "started_at"            TIMESTAMPTZ NOT NULL DEFAULT now(),
    "applied_steps_count"   INTEGER NOT NULL DEFAULT 0
)`;

/**
 * Brings `schema` (a plain identifier, checked by resolveBackend) of the
 * connected database up to date with `migrations` (see migrations.ts). Sets
 * the session's search_path to the schema. When something is pending it
 * creates the schema if missing and applies every pending migration in ONE
 * transaction under Prisma Migrate's advisory lock, so concurrent openers
 * serialize and the later ones find nothing to do. Already migrated: two
 * small queries.
 *
 * @param client a connected `pg` client owned by the caller (not closed here).
 * @throws the `pg` error when a query or a migration fails (the transaction
 *   is rolled back); the caller wraps it.
 */
export async function migratePostgres(
  client: pg.Client,
  schema: string,
  migrations: readonly LocalMigration[],
): Promise<void> {
  const q = `"${schema}"`;
  await client.query(`SET search_path TO ${q}`);
  if (allApplied(migrations, await appliedNames(client, schema))) return;
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATE_LOCK_KEY]);
    const exists = await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema]);
    if (exists.rowCount === 0) await client.query(`CREATE SCHEMA ${q}`);
    await client.query(CREATE_MIGRATIONS_TABLE);
    const applied = await appliedNames(client, schema);
    for (const m of migrations) {
      if (applied.has(m.name)) continue;
      const started = new Date();
      // No parameters: the simple query protocol runs the multi-statement file.
      await client.query(m.sql);
      await client.query(
        `INSERT INTO "_prisma_migrations"
           ("id", "checksum", "finished_at", "migration_name", "logs", "rolled_back_at", "started_at", "applied_steps_count")
         VALUES ($1, $2, now(), $3, NULL, NULL, $4, 1)`,
        [randomUUID(), m.checksum, m.name, started],
      );
    }
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  }
}

async function appliedNames(client: pg.Client, schema: string): Promise<Set<string>> {
  const reg = await client.query<{ t: string | null }>('SELECT to_regclass($1)::text AS t', [
    `"${schema}"."_prisma_migrations"`,
  ]);
  if (reg.rows[0]?.t == null) return new Set();
  const rows = await client.query<{ name: string }>(
    `SELECT "migration_name" AS name FROM "${schema}"."_prisma_migrations"
     WHERE "finished_at" IS NOT NULL AND "rolled_back_at" IS NULL`,
  );
  return new Set(rows.rows.map((r) => r.name));
}
