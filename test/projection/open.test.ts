import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ZunoError } from '../../core/errors.js';
import { openProjectionStore } from '../../activities/projection/open.js';
import { resolveBackend } from '../../activities/projection/backend.js';

const tmp = mkdtempSync(join(tmpdir(), 'zuno-open-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const SECRET = 'S3cr3t-pa55word';

async function openError(databaseUrl: string | undefined, zunoDir = tmp): Promise<ZunoError> {
  try {
    const s = await openProjectionStore({ databaseUrl, zunoDir });
    await s.close();
  } catch (err) {
    expect(err).toBeInstanceOf(ZunoError);
    return err as ZunoError;
  }
  throw new Error('expected openProjectionStore to fail');
}

describe('openProjectionStore errors', () => {
  it('unreachable PostgreSQL is projection_unavailable (no hang), naming backend and host but not the password', async () => {
    const err = await openError(`postgresql://zuno:${SECRET}@127.0.0.1:1/zuno?schema=zuno_x`);
    expect(err.code).toBe('projection_unavailable');
    expect(err.message).toContain('PostgreSQL');
    expect(err.message).toContain('127.0.0.1:1');
    const everything = `${err.message} ${err.stack} ${JSON.stringify(err.details)} ${JSON.stringify(err)}`;
    expect(everything).not.toContain(SECRET);
  });

  it('a percent-encoded password is not leaked either', async () => {
    const err = await openError(`postgres://zuno:${encodeURIComponent('p@ss:w/rd%')}@127.0.0.1:1/zuno`);
    expect(err.code).toBe('projection_unavailable');
    expect(err.message).not.toContain('p@ss:w/rd%');
    expect(err.message).not.toContain(encodeURIComponent('p@ss:w/rd%'));
  });

  it('malformed URLs and unsupported schemes are projection_unavailable without echoing secrets', async () => {
    for (const url of [`postgresql://u:${SECRET}@[bad-host/db`, `mysql://u:${SECRET}@h/db`, 'file::memory:']) {
      const err = await openError(url);
      expect(err.code).toBe('projection_unavailable');
      expect(err.message).not.toContain(SECRET);
    }
    const bad = await openError(`postgresql://u:${SECRET}@127.0.0.1:5432/test?schema=x;drop`);
    expect(bad.code).toBe('projection_unavailable');
    expect(bad.message).toContain('schema');
  });

  it('an unusable SQLite location is projection_unavailable naming the file', async () => {
    const notADir = join(tmp, 'plain-file');
    writeFileSync(notADir, 'x');
    const err = await openError(undefined, join(notADir, '.zuno'));
    expect(err.code).toBe('projection_unavailable');
    expect(err.message).toContain('SQLite');
    expect(err.message).toContain(join(notADir, '.zuno', 'zuno.db'));
  });
});

describe('resolveBackend', () => {
  it('defaults to <zunoDir>/zuno.db and accepts file: URLs', () => {
    expect(resolveBackend({ zunoDir: '/x/.zuno' })).toMatchObject({ kind: 'sqlite', file: '/x/.zuno/zuno.db' });
    expect(resolveBackend({ zunoDir: '/x/.zuno', databaseUrl: '' })).toMatchObject({ kind: 'sqlite' });
    expect(resolveBackend({ zunoDir: '/x', databaseUrl: 'file:/data/p.db?mode=rw' })).toMatchObject({
      kind: 'sqlite',
      file: '/data/p.db',
    });
  });

  it('parses PostgreSQL URLs, strips ?schema= and keeps other parameters', () => {
    const t = resolveBackend({
      zunoDir: '/x',
      databaseUrl: `postgres://u:${SECRET}@db.example:6543/app?schema=zuno&sslmode=require`,
    });
    expect(t).toMatchObject({ kind: 'postgresql', schema: 'zuno' });
    if (t.kind !== 'postgresql') throw new Error('unreachable');
    expect(t.describe).toBe('PostgreSQL at db.example:6543, database "app", schema "zuno"');
    expect(t.connectionString).toBe(`postgres://u:${SECRET}@db.example:6543/app?sslmode=require`);
    expect(resolveBackend({ zunoDir: '/x', databaseUrl: 'postgresql://h/db' })).toMatchObject({ schema: 'public' });
  });
});
