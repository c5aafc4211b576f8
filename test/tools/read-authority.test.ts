/**
 * FT4 path authority for the reading tools (read, glob, grep): real temp
 * directories, real symlinks, real rg. The workspace `ws` sits beside an
 * `outside` directory whose files all contain SECRET, so any leak shows.
 */
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, realpathSync, renameSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runGlob } from '../../activities/tools/glob.js';
import { runGrep } from '../../activities/tools/grep.js';
import { MAX_SYMLINK_HOPS } from '../../activities/tools/path-authority.js';
import { runRead } from '../../activities/tools/read.js';
import type { ReadCredential } from '../../core/tools/read.js';
import type { ToolResult } from '../../core/tools/types.js';
import { ctxFor, tempDir, writeTree } from './helpers.js';

const sha = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

/** `ws` and `outside` side by side, with every kind of symlink the cases need. */
function layout(): { ws: string; outside: string } {
  const parent = realpathSync(tempDir('zuno-read-authority-'));
  const ws = join(parent, 'ws');
  const outside = join(parent, 'outside');
  writeTree(ws, { 'real/f.txt': 'inside needle\n', 'real/sub/g.txt': 'inside needle g\n' });
  writeTree(outside, { 'secret.txt': 'SECRET needle\n', 'sub/s.txt': 'SECRET needle s\n' });
  symlinkSync(outside, join(ws, 'out')); // intermediate, leading out
  symlinkSync('real', join(ws, 'alias')); // intermediate, inside
  symlinkSync('missing-dir', join(ws, 'gone')); // intermediate, dangling
  symlinkSync('real/f.txt', join(ws, 'link.txt')); // final, inside (file)
  symlinkSync('real/sub', join(ws, 'linkdir')); // final, inside (directory)
  symlinkSync(join(outside, 'secret.txt'), join(ws, 'leak.txt')); // final, outside (file)
  symlinkSync(join(outside, 'sub'), join(ws, 'leakdir')); // final, outside (directory)
  // n links: prefix0 -> prefix1 -> … -> prefix{n-1} -> target
  const chain = (prefix: string, n: number, target: string) => {
    for (let i = 0; i < n; i++) symlinkSync(i === n - 1 ? target : `${prefix}${i + 1}`, join(ws, `${prefix}${i}`));
  };
  chain('ok', MAX_SYMLINK_HOPS, 'real/f.txt');
  chain('long', MAX_SYMLINK_HOPS + 1, 'real/f.txt');
  chain('okdir', MAX_SYMLINK_HOPS, 'real/sub');
  chain('longdir', MAX_SYMLINK_HOPS + 1, 'real/sub');
  return { ws, outside };
}

type Tool = 'read' | 'glob' | 'grep';

function call(tool: Tool, ws: string, path: string): Promise<ToolResult> {
  if (tool === 'read') return runRead({ path }, ctxFor(ws));
  if (tool === 'glob') return runGlob({ pattern: '**', path }, ctxFor(ws));
  return runGrep({ pattern: 'needle', path }, ctxFor(ws));
}

/** The path each case names: a file for read and grep, a directory for glob (which searches directories). */
interface Paths {
  escape: string;
  absoluteOutside: (outside: string) => string;
  throughOut: string;
  throughAlias: string;
  realOfAlias: string;
  throughDangling: string;
  finalInside: string;
  finalOutside: string;
  chainOk: string;
  chainLong: string;
}

const FILE_PATHS: Paths = {
  escape: '../outside/secret.txt',
  absoluteOutside: (outside) => join(outside, 'secret.txt'),
  throughOut: 'out/secret.txt',
  throughAlias: 'alias/f.txt',
  realOfAlias: 'real/f.txt',
  throughDangling: 'gone/f.txt',
  finalInside: 'link.txt',
  finalOutside: 'leak.txt',
  chainOk: 'ok0',
  chainLong: 'long0',
};

const DIR_PATHS: Paths = {
  escape: '../outside/sub',
  absoluteOutside: (outside) => join(outside, 'sub'),
  throughOut: 'out/sub',
  throughAlias: 'alias/sub',
  realOfAlias: 'real/sub',
  throughDangling: 'gone/sub',
  finalInside: 'linkdir',
  finalOutside: 'leakdir',
  chainOk: 'okdir0',
  chainLong: 'longdir0',
};

function refused(r: ToolResult, code: string): void {
  expect(r, r.output).toMatchObject({ isError: true, errorCode: code });
  expect(r.output).not.toContain('SECRET');
}

describe.each([
  ['read', FILE_PATHS],
  ['grep', FILE_PATHS],
  ['glob', DIR_PATHS],
] as Array<[Tool, Paths]>)('%s: FT4 path authority', (tool, p) => {
  it('.. escapes and absolute paths outside the workspace are denied', async () => {
    const { ws, outside } = layout();
    refused(await call(tool, ws, p.escape), 'path_outside_workspace');
    refused(await call(tool, ws, p.absoluteOutside(outside)), 'path_outside_workspace');
    refused(await call(tool, ws, '/etc'), 'path_outside_workspace');
  });

  it('an intermediate symlink leading out is refused, naming the segment', async () => {
    const { ws } = layout();
    const r = await call(tool, ws, p.throughOut);
    refused(r, 'path_outside_workspace');
    expect(r.data).toMatchObject({ segment: 'out' });
    expect(r.output).toContain('symlink "out"');
  });

  it('an intermediate symlink inside the workspace is refused, naming the segment and the real path', async () => {
    const { ws } = layout();
    const r = await call(tool, ws, p.throughAlias);
    refused(r, 'symlink_in_path');
    expect(r.data).toMatchObject({ segment: 'alias' });
    expect(r.output).toContain('symlink "alias"');
    expect(r.output).toContain(`Use the real path "${p.realOfAlias}"`);
    // the real path itself works
    expect((await call(tool, ws, p.realOfAlias)).isError).toBe(false);
    // a dangling intermediate symlink is refused the same way
    const dangling = await call(tool, ws, p.throughDangling);
    refused(dangling, 'symlink_in_path');
    expect(dangling.data).toMatchObject({ segment: 'gone' });
  });

  it('a final symlink to a target inside the workspace is followed', async () => {
    const { ws } = layout();
    const r = await call(tool, ws, p.finalInside);
    expect(r.isError, r.output).toBe(false);
    if (tool === 'read') {
      expect(r.output).toContain('inside needle');
      expect((r.data?.credential as ReadCredential).path).toBe('real/f.txt');
    } else if (tool === 'grep') {
      expect(r.data).toMatchObject({ matches: 1, files: 1 });
      expect(r.output).toContain('real/f.txt:\n  1: inside needle');
    } else {
      expect(r.data?.paths).toEqual(['real/sub/g.txt']);
    }
  });

  it('a final symlink to a target outside the workspace is refused, naming the link', async () => {
    const { ws } = layout();
    const r = await call(tool, ws, p.finalOutside);
    refused(r, 'path_outside_workspace');
    expect(r.data).toMatchObject({ segment: p.finalOutside });
    expect(r.output).toContain(`symlink "${p.finalOutside}"`);
  });

  it(`a chain of ${MAX_SYMLINK_HOPS} final symlinks is followed, ${MAX_SYMLINK_HOPS + 1} are refused`, async () => {
    const { ws } = layout();
    expect((await call(tool, ws, p.chainOk)).isError).toBe(false);
    refused(await call(tool, ws, p.chainLong), 'too_many_symlinks');
  });
});

describe('read/glob/grep: FT4 details', () => {
  it('a file where a directory is needed is not_found, naming the segment', async () => {
    const { ws } = layout();
    for (const tool of ['read', 'grep', 'glob'] as const) {
      const r = await call(tool, ws, 'real/f.txt/inner');
      expect(r, tool).toMatchObject({ isError: true, errorCode: 'not_found', data: { segment: 'real/f.txt' } });
    }
  });

  it('rg does not follow symlinks out of the workspace while walking the root', async () => {
    const { ws } = layout();
    const g = await runGrep({ pattern: 'needle' }, ctxFor(ws));
    expect(g.output).not.toContain('SECRET');
    expect(g.data).toMatchObject({ matches: 2, files: 2 });
    const l = await runGlob({ pattern: '**' }, ctxFor(ws));
    expect(l.data?.paths).toEqual(['real/f.txt', 'real/sub/g.txt']);
  });

  it('read refuses a FIFO without blocking', async () => {
    const ws = tempDir();
    execFileSync('mkfifo', [join(ws, 'pipe')]);
    const r = await runRead({ path: 'pipe' }, ctxFor(ws));
    expect(r).toMatchObject({ isError: true, errorCode: 'not_a_file' });
  });
});

/**
 * A hook that moves `ws/<rel>` aside to `ws/<movedTo>` and puts a symlink to
 * `target` in its place (both paths relative to `ws`).
 */
function swapForSymlink(ws: string, rel: string, movedTo: string, target: string): () => void {
  return () => {
    renameSync(join(ws, rel), join(ws, movedTo));
    symlinkSync(target, join(ws, rel));
  };
}

describe('races: the tree changes after authorization', () => {
  it('read: a parent directory swapped for a symlink to outside does not redirect the read', async () => {
    const { ws, outside } = layout();
    writeTree(ws, { 'a/b/file.txt': 'authorized bytes\n' });
    writeTree(outside, { 'file.txt': 'SECRET bytes\n' });
    const r = await runRead(
      { path: 'a/b/file.txt' },
      { ...ctxFor(ws), hooks: { afterAuthorize: swapForSymlink(ws, 'a/b', 'a/b-authorized', outside) } },
    );
    expect(r.isError, r.output).toBe(false);
    expect(r.output).toContain('authorized bytes');
    expect(r.output).not.toContain('SECRET');
    // the credential is computed from the bytes actually read
    const bytes = readFileSync(join(ws, 'a', 'b-authorized', 'file.txt'));
    expect(r.data?.credential).toMatchObject({ path: 'a/b/file.txt', sha256: sha(bytes), bytes: bytes.length });
    // a fresh read now refuses the swapped directory
    refused(await runRead({ path: 'a/b/file.txt' }, ctxFor(ws)), 'path_outside_workspace');
  });

  it('read: a directory listing goes through the held descriptors too', async () => {
    const { ws, outside } = layout();
    writeTree(ws, { 'a/b/mine.txt': '' });
    writeTree(outside, { 'b/SECRET.txt': '' });
    const r = await runRead(
      { path: 'a/b' },
      { ...ctxFor(ws), hooks: { afterAuthorize: swapForSymlink(ws, 'a', 'a-authorized', outside) } },
    );
    expect(r.isError, r.output).toBe(false);
    expect(r.output.split('\n\n')[0]).toBe('mine.txt');
  });

  it('read: the file itself swapped for a symlink to outside fails instead of following it', async () => {
    const { ws, outside } = layout();
    writeTree(ws, { 'a/file.txt': 'authorized\n' });
    const r = await runRead(
      { path: 'a/file.txt' },
      {
        ...ctxFor(ws),
        hooks: { afterAuthorize: swapForSymlink(ws, 'a/file.txt', 'a/moved.txt', join(outside, 'secret.txt')) },
      },
    );
    refused(r, 'cannot_read');
    expect(r.output).toContain('replaced by a symlink');
  });

  it('glob: the searched directory swapped for a symlink to outside is still the one searched', async () => {
    const { ws, outside } = layout();
    writeTree(ws, { 'a/b/mine.txt': '' });
    const r = await runGlob(
      { pattern: '**', path: 'a/b' },
      { ...ctxFor(ws), hooks: { beforeSearch: swapForSymlink(ws, 'a/b', 'a/b-authorized', outside) } },
    );
    expect(r.isError, r.output).toBe(false);
    expect(r.data?.paths).toEqual(['a/b/mine.txt']);
  });

  it('grep: the searched directory swapped for a symlink to outside is still the one searched', async () => {
    const { ws, outside } = layout();
    writeTree(ws, { 'a/b/mine.txt': 'inside needle\n' });
    const r = await runGrep(
      { pattern: 'needle', path: 'a/b' },
      { ...ctxFor(ws), hooks: { beforeSearch: swapForSymlink(ws, 'a/b', 'a/b-authorized', outside) } },
    );
    expect(r.isError, r.output).toBe(false);
    expect(r.output).not.toContain('SECRET');
    expect(r.data).toMatchObject({ matches: 1 });
    expect(r.output).toContain('a/b/mine.txt:');
  });

  it('grep: a file whose parent is swapped is searched in the authorized parent', async () => {
    const { ws, outside } = layout();
    writeTree(ws, { 'a/f.txt': 'inside needle\n' });
    writeTree(outside, { 'f.txt': 'SECRET needle\n' });
    const r = await runGrep(
      { pattern: 'needle', path: 'a/f.txt' },
      { ...ctxFor(ws), hooks: { beforeSearch: swapForSymlink(ws, 'a', 'a-authorized', outside) } },
    );
    expect(r.isError, r.output).toBe(false);
    expect(r.output).not.toContain('SECRET');
    expect(r.output).toContain('a/f.txt:\n  1: inside needle');
  });

  it('grep: a file swapped for a symlink to outside during the search has its results discarded', async () => {
    const { ws, outside } = layout();
    mkdirSync(join(ws, 'a'));
    writeTree(ws, { 'a/f.txt': 'inside needle\n' });
    const r = await runGrep(
      { pattern: 'needle', path: 'a/f.txt' },
      {
        ...ctxFor(ws),
        hooks: { beforeSearch: swapForSymlink(ws, 'a/f.txt', 'a/moved.txt', join(outside, 'secret.txt')) },
      },
    );
    refused(r, 'cannot_read');
    expect(r.output).toContain('was replaced while grep searched it');
  });
});
