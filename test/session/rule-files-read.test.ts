/**
 * Reading local rule files on the real filesystem (SE27): absent is nothing,
 * anything that is not a readable regular UTF-8 file is a typed
 * `rule_file_unreadable` error naming the file and the fix, and a FIFO is
 * never waited on.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { loadRuleFiles, readRuleFile } from '../../activities/session/rule-files.js';
import { zunoHome } from '../../activities/zuno-home.js';
import { ZunoError } from '../../core/errors.js';

const savedHome = process.env.ZUNO_HOME;
afterAll(() => {
  if (savedHome === undefined) delete process.env.ZUNO_HOME;
  else process.env.ZUNO_HOME = savedHome;
});

let home: string;
let ws: string;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'zuno-rules-home-'));
  ws = mkdtempSync(join(tmpdir(), 'zuno-rules-ws-'));
  process.env.ZUNO_HOME = home;
});

/** The typed error `fn` rejects with. */
async function unreadable(fn: () => Promise<unknown>): Promise<ZunoError> {
  const err = await fn().then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ZunoError);
  expect((err as ZunoError).code).toBe('rule_file_unreadable');
  return err as ZunoError;
}

describe('zunoHome', () => {
  it('is $ZUNO_HOME, else ~/.zuno (an empty ZUNO_HOME counts as unset)', () => {
    expect(zunoHome()).toBe(home);
    process.env.ZUNO_HOME = '';
    expect(zunoHome()).toMatch(/\.zuno$/);
    delete process.env.ZUNO_HOME;
    expect(zunoHome()).toMatch(/\.zuno$/);
  });
});

describe('loadRuleFiles', () => {
  it('absent files are simply not there', async () => {
    expect(await loadRuleFiles(ws, 64_000)).toEqual({ inForce: [], skipped: [], budget: 64_000 });
    // A ZUNO_HOME that is a file, not a directory, has no rule file either.
    process.env.ZUNO_HOME = join(ws, 'not-a-dir');
    writeFileSync(process.env.ZUNO_HOME, 'x');
    expect((await loadRuleFiles(ws, 64_000)).inForce).toEqual([]);
  });

  it('reads user then workspace whole, with bytes and sha256 of the file bytes; a symlink to a file is followed', async () => {
    writeFileSync(join(home, 'AGENTS.md'), 'user ✓\n');
    writeFileSync(join(ws, 'real.md'), 'workspace\n');
    symlinkSync(join(ws, 'real.md'), join(ws, 'AGENTS.md'));
    const r = await loadRuleFiles(ws, 64_000);
    expect(r.inForce.map((f) => [f.scope, f.path, f.text, f.bytes])).toEqual([
      ['user', join(home, 'AGENTS.md'), 'user ✓\n', 9],
      ['workspace', join(ws, 'AGENTS.md'), 'workspace\n', 10],
    ]);
    expect(r.inForce[0]!.sha256).toBe(createHash('sha256').update('user ✓\n').digest('hex'));
  });

  it('the same file reached as user-level and workspace file (ZUNO_HOME is the workspace) counts once', async () => {
    process.env.ZUNO_HOME = ws;
    writeFileSync(join(ws, 'AGENTS.md'), 'once\n');
    const r = await loadRuleFiles(ws, 64_000);
    expect(r.inForce.map((f) => f.scope)).toEqual(['user']);
  });

  it('a file larger than the whole budget is skipped by its size on disk and never read (not even checked as UTF-8)', async () => {
    writeFileSync(join(ws, 'AGENTS.md'), Buffer.alloc(70_000, 0xff));
    const r = await loadRuleFiles(ws, 64_000);
    expect(r.inForce).toEqual([]);
    expect(r.skipped).toHaveLength(1);
    expect(r.skipped[0]).toMatchObject({ bytes: 70_000, budget: 64_000, remaining: 64_000 });
    expect(r.skipped[0]!.entry.text).toBeNull();
  });
});

describe('unreadable rule files', () => {
  it('a directory named AGENTS.md', async () => {
    mkdirSync(join(ws, 'AGENTS.md'));
    const err = await unreadable(() => loadRuleFiles(ws, 64_000));
    expect(err.message).toBe(`AGENTS.md at ${join(ws, 'AGENTS.md')} is a directory, not a file: remove or rename it`);
    expect(err.details).toEqual({ path: join(ws, 'AGENTS.md'), scope: 'workspace' });
  });

  it('a FIFO named AGENTS.md is refused at once, never opened for a blocking read', async () => {
    execFileSync('mkfifo', [join(home, 'AGENTS.md')]);
    // An opened FIFO with no writer blocks forever: reaching the error at all shows it was never opened.
    const err = await unreadable(() => loadRuleFiles(ws, 64_000));
    expect(err.message).toBe(
      `AGENTS.md at ${join(home, 'AGENTS.md')} is a FIFO (named pipe), not a regular file: replace it with a regular file or remove it`,
    );
  });

  it('invalid UTF-8 is unreadable (never decoded lossily: rules enter whole or not at all)', async () => {
    writeFileSync(join(ws, 'AGENTS.md'), Buffer.from([0x72, 0x75, 0x6c, 0x65, 0xc3, 0x28, 0x0a]));
    const err = await unreadable(() => loadRuleFiles(ws, 64_000));
    expect(err.message).toBe(
      `AGENTS.md at ${join(ws, 'AGENTS.md')} is not valid UTF-8 text: save it as UTF-8 or remove it`,
    );
  });

  it('a symbolic link whose target is missing', async () => {
    symlinkSync(join(ws, 'gone.md'), join(ws, 'AGENTS.md'));
    const err = await unreadable(() => loadRuleFiles(ws, 64_000));
    expect(err.message).toBe(
      `AGENTS.md at ${join(ws, 'AGENTS.md')} is a symbolic link whose target does not exist: fix the link or remove it`,
    );
  });

  // Root reads a mode-000 file anyway, so the permission case only fails for an ordinary user.
  it.skipIf(process.getuid?.() === 0)('a mode-000 file (permission denied)', async () => {
    const path = join(ws, 'AGENTS.md');
    writeFileSync(path, 'secret\n');
    chmodSync(path, 0o000);
    const err = await unreadable(() => readRuleFile({ path, scope: 'workspace' }, 64_000));
    expect(err.message).toMatch(new RegExp(`^AGENTS\\.md at ${path} cannot be read \\(permission denied, EACCES\\): `));
  });
});
