import { execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { localMigrations } from '../../activities/projection/migrations.js';
import { BACKENDS, createTestDb, PG_URL, type TestDb, foreignEvent } from './harness.js';

const root = join(import.meta.dirname, '..', '..');
const run = promisify(execFile);

let dbs: TestDb[] = [];
afterEach(async () => {
  await Promise.all(dbs.map((d) => d.dispose()));
  dbs = [];
});
async function fresh(backend: 'sqlite' | 'postgresql'): Promise<TestDb> {
  const d = await createTestDb(backend);
  dbs.push(d);
  return d;
}

interface MigrationRecord {
  migration_name: string;
  checksum: string;
  finished_at: unknown;
}

describe.each(BACKENDS)('migrations on open (%s)', (backend) => {
  const set = backend === 'sqlite' ? 'sqlite' : 'postgres';

  it('applies every checked-in migration on first open, recorded like Prisma Migrate', async () => {
    const db = await fresh(backend);
    await db.open();
    const rows = await db.query<MigrationRecord>(
      'SELECT migration_name, checksum, finished_at FROM "_prisma_migrations" ORDER BY migration_name',
    );
    const local = localMigrations(set);
    expect(rows.map((r) => r.migration_name)).toEqual(local.map((m) => m.name));
    for (const [i, m] of local.entries()) {
      const file = join(root, 'prisma', set, 'migrations', m.name, 'migration.sql');
      expect(rows[i]?.checksum).toBe(createHash('sha256').update(readFileSync(file)).digest('hex'));
      expect(rows[i]?.finished_at).not.toBeNull();
    }
    for (const table of ['sessions', 'inputs', 'messages', 'parts', 'tool_calls', 'events']) {
      expect(await db.query(`SELECT * FROM "${table}"`)).toEqual([]);
    }
  });

  it('re-open is a no-op (its time is measured in bench/startup.ts)', async () => {
    const db = await fresh(backend);
    const first = await db.open();
    await first.upsertSession(session('ses_a'));
    const before = await db.query('SELECT * FROM "_prisma_migrations" ORDER BY migration_name');
    const again = await db.open();
    expect(await db.query('SELECT * FROM "_prisma_migrations" ORDER BY migration_name')).toEqual(before);
    expect((await again.getSession('ses_a'))?.id).toBe('ses_a');
  });

  it('concurrent opens of a fresh database all succeed and migrate once', async () => {
    const db = await fresh(backend);
    const stores = await Promise.all([db.open(), db.open(), db.open()]);
    const seqs = await Promise.all(
      stores.map((s, i) => s.appendEvent(foreignEvent({ id: `e${i}`, sessionId: 's', type: 't', data: {}, atMs: i }))),
    );
    expect(new Set(seqs).size).toBe(3);
    const rows = await db.query<MigrationRecord>('SELECT migration_name FROM "_prisma_migrations"');
    expect(rows.length).toBe(localMigrations(set).length);
  });
});

describe('SQLite specifics', () => {
  it('two processes opening the same new file at once both succeed', async () => {
    const db = await fresh('sqlite');
    const goFile = join(db.zunoDir, 'go');
    const child = join(import.meta.dirname, 'open-child.ts');
    const procs = ['a', 'b'].map((tag) => {
      const p = spawn(process.execPath, ['--import', 'tsx', child, db.zunoDir, goFile, tag], { cwd: root });
      let out = '';
      const ready = new Promise<void>((resolve) =>
        p.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          if (out.includes('ready')) resolve();
        }),
      );
      const done = new Promise<number | null>((resolve) => p.on('close', resolve));
      return { ready, done, out: () => out };
    });
    await Promise.all(procs.map((p) => p.ready));
    writeFileSync(goFile, '');
    const codes = await Promise.all(procs.map((p) => p.done));
    const results = procs.map((p) => JSON.parse(p.out().split('\n').filter(Boolean).pop()!) as { ok: boolean });
    expect(results).toEqual([expect.objectContaining({ ok: true }), expect.objectContaining({ ok: true })]);
    expect(codes).toEqual([0, 0]);
    const rows = await db.query('SELECT migration_name FROM "_prisma_migrations"');
    expect(rows.length).toBe(localMigrations('sqlite').length);
    expect((await db.query('SELECT id FROM "events" ORDER BY id')).length).toBe(2);
  });

  it('uses WAL journaling', async () => {
    const db = await fresh('sqlite');
    await db.open();
    expect(await db.query('PRAGMA journal_mode')).toEqual([{ journal_mode: 'wal' }]);
  });
});

// The checked-in migrations must produce exactly the schema models.prisma
// describes (nobody edited models without `scripts/prisma-migration.mjs`, nor
// a migration by hand).
describe('migrations match prisma/models.prisma', () => {
  it('the migration snapshot equals models.prisma', async () => {
    await run(process.execPath, [join(root, 'scripts', 'prisma-migration.mjs'), '--check'], { cwd: root });
  });

  it.each(BACKENDS)('%s: migrated schema equals a fresh schema from models.prisma', async (backend) => {
    const set = backend === 'sqlite' ? 'sqlite' : 'postgres';
    const { stdout: sql } = await run(
      process.execPath,
      [
        join(root, 'node_modules', 'prisma', 'build', 'index.js'),
        'migrate',
        'diff',
        '--config',
        join(root, 'prisma', 'generated', set, 'prisma.config.mjs'),
        '--from-empty',
        '--to-schema-datamodel',
        join(root, 'prisma', 'generated', set, 'schema.prisma'),
        '--script',
      ],
      {
        cwd: root,
        env: {
          ...process.env,
          PRISMA_SCHEMA_ENGINE_BINARY: process.execPath,
          PRISMA_QUERY_ENGINE_LIBRARY: process.execPath,
          CHECKPOINT_DISABLE: '1',
          ZUNO_PRISMA_PG_URL: PG_URL,
        },
      },
    );
    const migrated = await fresh(backend);
    await migrated.open();
    const expected = await fresh(backend);
    if (backend === 'sqlite') {
      const file = join(expected.zunoDir, 'zuno.db');
      const d = new Database(file);
      d.exec(sql);
      d.close();
    } else {
      const schema = new URL(expected.databaseUrl!).searchParams.get('schema')!;
      const pg = (await import('pg')).default;
      const c = new pg.Client({ connectionString: PG_URL });
      await c.connect();
      try {
        await c.query(`CREATE SCHEMA "${schema}"; SET search_path TO "${schema}";`);
        await c.query(sql.replace(/CREATE SCHEMA IF NOT EXISTS "public";/, ''));
      } finally {
        await c.end();
      }
    }
    expect(await describeSchema(migrated)).toEqual(await describeSchema(expected));
  });
});

/** Tables, columns and indexes of a test database, normalized and sorted. */
async function describeSchema(db: TestDb): Promise<unknown> {
  if (db.backend === 'sqlite') {
    const tables = await db.query<{ name: string }>(
      `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT IN ('_prisma_migrations', 'sqlite_sequence') ORDER BY name`,
    );
    const out: Record<string, unknown> = {};
    for (const { name } of tables) {
      const cols = await db.query(
        `SELECT name, type, "notnull", dflt_value, pk FROM pragma_table_info('${name}') ORDER BY name`,
      );
      const idx = await db.query<{ name: string; unique: number }>(
        `SELECT name, "unique" FROM pragma_index_list('${name}') ORDER BY name`,
      );
      const indexes = [];
      for (const i of idx) {
        const on = await db.query<{ name: string }>(`SELECT name FROM pragma_index_info('${i.name}') ORDER BY seqno`);
        indexes.push({ ...i, columns: on.map((c) => c.name) });
      }
      out[name] = { cols, indexes };
    }
    return out;
  }
  const cols = await db.query(
    `SELECT table_name, column_name, data_type, is_nullable, column_default
       FROM information_schema.columns WHERE table_schema = current_schema() AND table_name <> '_prisma_migrations'
      ORDER BY table_name, column_name`,
  );
  const idx = await db.query<{ indexname: string; indexdef: string }>(
    `SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema() AND tablename <> '_prisma_migrations'
      ORDER BY indexname`,
  );
  return { cols, indexes: idx.map((i) => ({ ...i, indexdef: i.indexdef.replace(/ON \S+\./, 'ON ') })) };
}

function session(id: string) {
  return {
    id,
    workflowId: `session/${id}`,
    workspace: '/w',
    provider: 'openai',
    model: 'm',
    status: 'running' as const,
    createdAtMs: 1_700_000_000_000,
    updatedAtMs: 1_700_000_000_000,
  };
}
