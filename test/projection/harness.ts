import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { openProjectionStore } from '../../activities/projection/open.js';
import { afterAll, beforeAll } from 'vitest';
import type { NewEvent, ProjectionStore, SessionRow } from '../../activities/projection/types.js';

/** The PostgreSQL server tests use (trust auth): ZUNO_TEST_PG_URL or the local default. */
export const PG_URL = process.env.ZUNO_TEST_PG_URL || 'postgresql://postgres@127.0.0.1:5432/test';

/**
 * One isolated database of a backend: a temp folder with SQLite, or a fresh
 * PostgreSQL schema `zuno_t_<random>`. `open()` opens a store on it (each call
 * a new store), `query()` runs raw SQL for inspection, `dispose()` closes
 * everything and drops the folder / schema.
 */
export interface TestDb {
  backend: 'sqlite' | 'postgresql';
  zunoDir: string;
  databaseUrl: string | undefined;
  open(): Promise<ProjectionStore>;
  query<T = Record<string, unknown>>(sql: string): Promise<T[]>;
  dispose(): Promise<void>;
}

export const BACKENDS = ['sqlite', 'postgresql'] as const;

/** Creates an isolated test database of `backend`. */
export async function createTestDb(backend: 'sqlite' | 'postgresql'): Promise<TestDb> {
  const zunoDir = mkdtempSync(join(tmpdir(), 'zuno-proj-'));
  const stores: ProjectionStore[] = [];
  const openStore = async (databaseUrl: string | undefined) => {
    const s = await openProjectionStore({ zunoDir, databaseUrl });
    stores.push(s);
    return s;
  };
  const closeStores = async () => {
    await Promise.all(stores.map((s) => s.close().catch(() => undefined)));
  };
  if (backend === 'sqlite') {
    const file = join(zunoDir, 'zuno.db');
    return {
      backend,
      zunoDir,
      databaseUrl: undefined,
      open: () => openStore(undefined),
      async query<T>(sql: string) {
        const db = new Database(file, { readonly: true });
        try {
          return db.prepare(sql).all() as T[];
        } finally {
          db.close();
        }
      },
      async dispose() {
        await closeStores();
        rmSync(zunoDir, { recursive: true, force: true });
      },
    };
  }
  const schema = `zuno_t_${randomBytes(6).toString('hex')}`;
  const u = new URL(PG_URL);
  u.searchParams.set('schema', schema);
  const databaseUrl = u.toString();
  const withClient = async <T>(fn: (c: pg.Client) => Promise<T>): Promise<T> => {
    const c = new pg.Client({ connectionString: PG_URL });
    await c.connect();
    try {
      return await fn(c);
    } finally {
      await c.end();
    }
  };
  return {
    backend,
    zunoDir,
    databaseUrl,
    open: () => openStore(databaseUrl),
    query: <T>(sql: string) =>
      withClient(async (c) => {
        await c.query(`SET search_path TO "${schema}"`);
        return (await c.query(sql)).rows as T[];
      }),
    async dispose() {
      await closeStores();
      await withClient((c) => c.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`));
      rmSync(zunoDir, { recursive: true, force: true });
    },
  };
}

/**
 * An event of any type and payload, as another build (older or newer) may
 * have written it: the store keeps whatever it is given, and these tests
 * exercise storage, not the catalogue (core/events.ts types every real writer).
 */
export function foreignEvent(e: {
  id: string;
  sessionId: string;
  type: string;
  data: Record<string, unknown>;
  atMs: number;
}): NewEvent {
  return e as unknown as NewEvent;
}

/**
 * One test database of `backend` for the enclosing describe block: created
 * before its tests, disposed after. Read `db` / `store` inside tests only.
 */
export function useTestStore(backend: 'sqlite' | 'postgresql'): { db: TestDb; store: ProjectionStore } {
  const handle = {} as { db: TestDb; store: ProjectionStore };
  beforeAll(async () => {
    handle.db = await createTestDb(backend);
    handle.store = await handle.db.open();
  });
  afterAll(async () => {
    await handle.db.dispose();
  });
  return handle;
}

/** A running session row with fixed times (epoch ms `atMs`). */
export function sessionRow(id: string, atMs: number): SessionRow {
  return {
    id,
    workflowId: `session/${id}`,
    workspace: '/work/ws',
    provider: 'openai',
    model: 'm',
    status: 'running',
    createdAtMs: atMs,
    updatedAtMs: atMs,
  };
}
