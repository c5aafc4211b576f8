import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmdirSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AuthorityScope, authorizePath, MAX_SYMLINK_HOPS } from '../../activities/tools/path-authority.js';
import { runWrite } from '../../activities/tools/write.js';
import { tempDir, writeTree } from './helpers.js';

const scopes: AuthorityScope[] = [];
afterEach(() => {
  for (const s of scopes.splice(0)) s.close();
});

/** A workspace `ws` inside a parent directory that also holds `outside/`. */
function layout(): { parent: string; ws: string; outside: string } {
  const parent = realpathSync(tempDir('zuno-authority-'));
  const ws = join(parent, 'ws');
  const outside = join(parent, 'outside');
  mkdirSync(ws);
  mkdirSync(outside);
  return { parent, ws, outside };
}

function authorize(ws: string, input: string) {
  const scope = new AuthorityScope();
  scopes.push(scope);
  return authorizePath(scope, ws, input);
}

function refusal(ws: string, input: string): string {
  const r = authorize(ws, input);
  expect(r.ok, input).toBe(false);
  return r.ok ? '' : r.refusal.code;
}

describe('path authority (FT4)', () => {
  it('refuses .. and absolute escapes', () => {
    const { parent, ws, outside } = layout();
    for (const p of ['../x.txt', 'a/../../x.txt', join(outside, 'x.txt'), '/etc/passwd', parent]) {
      expect(refusal(ws, p), p).toBe('path_outside_workspace');
    }
    expect(refusal(ws, '.')).toBe('invalid_path');
    expect(refusal(ws, 'a\0b')).toBe('invalid_path');
    const r = authorize(ws, join(ws, 'dir', 'in.txt'));
    expect(r).toMatchObject({ ok: true, path: { rel: 'dir/in.txt' } });
  });

  it('refuses an intermediate symlink, inside or outside the workspace', () => {
    const { ws, outside } = layout();
    writeTree(ws, { 'real/f.txt': 'f' });
    symlinkSync('real', join(ws, 'alias'));
    symlinkSync(outside, join(ws, 'out'));
    symlinkSync('missing-dir', join(ws, 'dangling'));
    expect(refusal(ws, 'alias/f.txt')).toBe('symlink_in_path');
    expect(refusal(ws, 'alias/new/deeper.txt')).toBe('symlink_in_path');
    expect(refusal(ws, 'out/new.txt')).toBe('path_outside_workspace');
    expect(refusal(ws, 'dangling/new.txt')).toBe('invalid_path');
    writeTree(ws, { 'file.txt': 'x' });
    expect(refusal(ws, 'file.txt/inner.txt')).toBe('not_a_directory');
  });

  it('follows a final-segment symlink inside the workspace once; the link survives the write', async () => {
    const { ws, outside } = layout();
    writeTree(ws, { 'real/t.txt': 'old\n' });
    symlinkSync('real/t.txt', join(ws, 'link.txt'));
    const r = authorize(ws, 'link.txt');
    expect(r).toMatchObject({ ok: true, path: { rel: 'real/t.txt', abs: join(ws, 'real', 't.txt') } });
    symlinkSync(join(outside, 'secret.txt'), join(ws, 'leak.txt'));
    expect(refusal(ws, 'leak.txt')).toBe('path_outside_workspace');

    const w = await runWrite({ path: 'link.txt', content: 'new\n' }, { workspace: ws });
    // replacing an existing file needs a credential: the refusal names the link's target
    expect(w).toMatchObject({ isError: true, errorCode: 'ReadRequired', data: { path: 'real/t.txt' } });
    symlinkSync('real/created.txt', join(ws, 'to-new.txt'));
    expect(refusal(ws, 'to-new.txt')).toBe('invalid_path'); // dangling final symlink
    const direct = await runWrite({ path: 'real/created.txt', content: 'c\n' }, { workspace: ws });
    expect(direct.isError, direct.output).toBe(false);
    expect(lstatSync(join(ws, 'link.txt')).isSymbolicLink()).toBe(true);
    expect(lstatSync(join(ws, 'to-new.txt')).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(ws, 'to-new.txt'), 'utf8')).toBe('c\n');
  });

  it('follows a chain of 40 final-segment links and refuses 41', () => {
    const { ws } = layout();
    writeTree(ws, { 'target.txt': 't' });
    const chain = (prefix: string, n: number) => {
      // prefix0 -> prefix1 -> … -> prefix{n-1} -> target.txt: n links
      for (let i = 0; i < n; i++) {
        symlinkSync(i === n - 1 ? 'target.txt' : `${prefix}${i + 1}`, join(ws, `${prefix}${i}`));
      }
      return `${prefix}0`;
    };
    expect(authorize(ws, chain('ok', MAX_SYMLINK_HOPS))).toMatchObject({ ok: true, path: { rel: 'target.txt' } });
    expect(refusal(ws, chain('long', MAX_SYMLINK_HOPS + 1))).toBe('too_many_symlinks');
  });

  it('a directory swapped for a symlink after authorization cannot redirect the write', async () => {
    const { ws, outside } = layout();
    writeTree(ws, { 'a/b/keep.txt': 'k' });
    const r = await runWrite(
      { path: 'a/b/file.txt', content: 'payload\n' },
      {
        workspace: ws,
        hooks: {
          // after authorization and after the temp file is prepared, before the re-check and rename
          afterPrepare: () => {
            renameSync(join(ws, 'a', 'b'), join(ws, 'a', 'b-authorized'));
            symlinkSync(outside, join(ws, 'a', 'b'));
          },
        },
      },
    );
    expect(r.isError, r.output).toBe(false);
    expect(readdirSync(outside)).toEqual([]);
    expect(readFileSync(join(ws, 'a', 'b-authorized', 'file.txt'), 'utf8')).toBe('payload\n');
    expect(readdirSync(join(ws, 'a', 'b-authorized')).sort()).toEqual(['file.txt', 'keep.txt']);
  });

  it('the same race at the authority level, with missing parent directories', () => {
    const { ws, outside } = layout();
    writeTree(ws, { 'a/b/keep.txt': 'k' });
    const r = authorize(ws, 'a/b/new/deep/file.txt');
    if (!r.ok) throw new Error(r.refusal.message);
    renameSync(join(ws, 'a', 'b'), join(ws, 'a', 'b-authorized'));
    symlinkSync(outside, join(ws, 'a', 'b'));
    // publish through a fresh write of the same relative path would now be refused
    expect(refusal(ws, 'a/b/new/deep/file.txt')).toBe('path_outside_workspace');
    const created: Array<{ parentFd: number; name: string }> = [];
    r.path.authority.ensureParent(created);
    expect(created.map((c) => c.name)).toEqual(['new', 'deep']);
    const tmp = r.path.authority.inParent('.tmp');
    writeFileSync(tmp, 'x');
    renameSync(tmp, r.path.authority.inParent(r.path.authority.name));
    expect(readdirSync(outside)).toEqual([]);
    expect(readFileSync(join(ws, 'a', 'b-authorized', 'new', 'deep', 'file.txt'), 'utf8')).toBe('x');
    expect(existsSync(join(outside, 'new'))).toBe(false);
  });

  it('a directory removed after authorization makes the write fail inside, nothing outside', () => {
    const { ws, outside } = layout();
    mkdirSync(join(ws, 'a', 'b'), { recursive: true });
    const r = authorize(ws, 'a/b/file.txt');
    if (!r.ok) throw new Error(r.refusal.message);
    rmdirSync(join(ws, 'a', 'b'));
    symlinkSync(outside, join(ws, 'a', 'b'));
    expect(() => writeFileSync(r.path.authority.inParent('.tmp'), 'x')).toThrow(/ENOENT/);
    expect(readdirSync(outside)).toEqual([]);
  });
});
