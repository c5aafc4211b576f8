import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ZunoError } from '../../core/errors.js';
import { INSTALL_ROOT } from '../infra/install-root.js';

/**
 * Migration runner, shared part. Why our own runner instead of
 * `prisma migrate deploy` in a subprocess:
 * - speed: the store opens on every CLI command; spawning the Prisma CLI costs
 *   ~2 s even when nothing is pending, while checking the applied list here
 *   is one query (a few ms);
 * - it works offline: `migrate deploy` through the wasm schema engine fails
 *   on PostgreSQL with Prisma 6.19 ("Column type 'name' could not be
 *   deserialized"), and the native engine cannot be downloaded;
 * - concurrency is explicit: SQLite applies everything in one
 *   `BEGIN IMMEDIATE` transaction, PostgreSQL in one transaction under the
 *   same advisory lock Prisma Migrate uses, so a worker and a CLI opening the
 *   same database at once serialize and the second sees nothing pending.
 * The runner records applied migrations in Prisma's own `_prisma_migrations`
 * table (same columns, checksum = SHA-256 of migration.sql), so the Prisma CLI
 * (`migrate status` / `deploy` with a native engine) agrees with it.
 */

/** One checked-in migration: folder name, SQL text and Prisma checksum. */
export interface LocalMigration {
  /** Folder name, e.g. `20261130031640_init`; migrations apply in name order. */
  name: string;
  sql: string;
  /** SHA-256 (hex) of migration.sql, as Prisma Migrate computes it. */
  checksum: string;
}

/** Folder of checked-in migrations per backend. */
export type MigrationSet = 'sqlite' | 'postgres';

const cache = new Map<MigrationSet, LocalMigration[]>();

/**
 * The checked-in migrations of a backend (`prisma/<set>/migrations/*\/migration.sql`),
 * in apply order. Read once per process.
 *
 * @throws ZunoError `projection_unavailable` when the folder has no migration
 *   (a broken installation).
 */
export function localMigrations(set: MigrationSet): LocalMigration[] {
  const hit = cache.get(set);
  if (hit) return hit;
  const dir = `${join(INSTALL_ROOT, 'prisma', set, 'migrations')}/`;
  const names = existsSync(dir)
    ? readdirSync(dir, { withFileTypes: true })
        .filter((d) => d.isDirectory() && existsSync(`${dir}${d.name}/migration.sql`))
        .map((d) => d.name)
        .sort()
    : [];
  if (names.length === 0) {
    throw new ZunoError('projection_unavailable', `no projection migrations found in ${dir}`);
  }
  const list = names.map((name) => {
    const bytes = readFileSync(`${dir}${name}/migration.sql`);
    return { name, sql: bytes.toString('utf8'), checksum: createHash('sha256').update(bytes).digest('hex') };
  });
  cache.set(set, list);
  return list;
}

/** True when every local migration name is in `applied`. */
export function allApplied(local: readonly LocalMigration[], applied: ReadonlySet<string>): boolean {
  return local.every((m) => applied.has(m.name));
}

/** Prisma Migrate's timestamp text, e.g. `2026-01-02T03:04:05.678+00:00`. */
export function prismaTimestamp(d: Date = new Date()): string {
  return d.toISOString().replace('Z', '+00:00');
}
