/**
 * The home lock that serialises starting the dev server (issue 25 item 4):
 * real lock files, real processes. Exclusion across processes, takeover of a
 * dead owner's lock (and of a pid reused by another process), and the typed
 * error naming the file when a live owner never lets go.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ZunoError } from '../../core/errors.js';
import { acquireHomeLock, readLockOwner, withHomeLock } from '../../worker/home-lock.js';
import { processStartTicks } from '../../worker/process-info.js';
import { ROOT } from '../helpers/dev-server.js';

const dirs: string[] = [];
const freshDir = (): string => {
  const d = mkdtempSync(join(tmpdir(), 'zuno-lock-'));
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** The pid of a process that has exited (and been reaped). */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', '']);
  return r.pid!;
}

describe('acquireHomeLock', () => {
  it('creates the lock with owner pid and start time, and release removes it', async () => {
    const path = join(freshDir(), 'x.lock');
    const lock = await acquireHomeLock(path);
    expect(readLockOwner(path)).toMatchObject({ pid: process.pid, procStart: processStartTicks(process.pid) });
    lock.release();
    expect(existsSync(path)).toBe(false);
  });

  it('takes over a lock whose owner pid is dead', async () => {
    const path = join(freshDir(), 'x.lock');
    const pid = deadPid();
    writeFileSync(path, JSON.stringify({ pid, procStart: null, acquiredAtMs: 0, token: 'stale' }));
    const lock = await acquireHomeLock(path, { waitMs: 60_000 });
    expect(readLockOwner(path)?.pid).toBe(process.pid);
    lock.release();
  });

  it('takes over a lock whose pid now belongs to another process (start time differs)', async () => {
    const path = join(freshDir(), 'x.lock');
    writeFileSync(path, JSON.stringify({ pid: process.pid, procStart: '1', acquiredAtMs: 0, token: 'reused' }));
    const lock = await acquireHomeLock(path, { waitMs: 60_000 });
    expect(readLockOwner(path)?.token).toBe(lock.owner.token);
    lock.release();
  });

  it('a live owner that never finishes: home_lock_timeout naming the lock file and the owner', async () => {
    const path = join(freshDir(), 'x.lock');
    const held = await acquireHomeLock(path);
    const err = await acquireHomeLock(path, { waitMs: 300 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ZunoError);
    expect((err as ZunoError).code).toBe('home_lock_timeout');
    expect((err as ZunoError).message).toContain(path);
    expect((err as ZunoError).message).toContain(`process ${process.pid}`);
    expect(readLockOwner(path)?.token).toBe(held.owner.token);
    held.release();
  });

  it('six processes, some racing over a stale lock: never two inside at once', async () => {
    const dir = freshDir();
    const path = join(dir, 'x.lock');
    const log = join(dir, 'log');
    writeFileSync(log, '');
    writeFileSync(path, JSON.stringify({ pid: deadPid(), procStart: null, acquiredAtMs: 0, token: 'stale' }));
    const script = join(dir, 'holder.mts');
    writeFileSync(
      script,
      [
        `import { appendFileSync } from 'node:fs';`,
        `import { withHomeLock } from ${JSON.stringify(join(ROOT, 'worker', 'home-lock.ts'))};`,
        `const [path, log] = process.argv.slice(2);`,
        `for (let i = 0; i < 3; i++) {`,
        `  await withHomeLock(path, async () => {`,
        `    appendFileSync(log, 'in ' + process.pid + '\\n');`,
        `    await new Promise((r) => setTimeout(r, 30));`,
        `    appendFileSync(log, 'out ' + process.pid + '\\n');`,
        `  });`,
        `}`,
      ].join('\n'),
    );
    const codes = await Promise.all(
      Array.from(
        { length: 6 },
        () =>
          new Promise<number | null>((resolve) => {
            const c = spawn(process.execPath, ['--import', 'tsx', script, path, log], { cwd: ROOT, stdio: 'inherit' });
            c.once('exit', (code) => resolve(code));
          }),
      ),
    );
    expect(codes).toEqual([0, 0, 0, 0, 0, 0]);
    const lines = readFileSync(log, 'utf8').trim().split('\n');
    expect(lines).toHaveLength(36);
    for (let i = 0; i < lines.length; i += 2) {
      const pid = lines[i]!.split(' ')[1];
      expect([lines[i], lines[i + 1]]).toEqual([`in ${pid}`, `out ${pid}`]);
    }
    expect(existsSync(path)).toBe(false);
  }, 120_000);

  it('withHomeLock releases the lock when the function throws', async () => {
    const path = join(freshDir(), 'x.lock');
    await expect(
      withHomeLock(path, () => {
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(existsSync(path)).toBe(false);
  });
});
