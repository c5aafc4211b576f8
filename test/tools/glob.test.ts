import { mkdirSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runGlob } from '../../activities/tools/glob.js';
import { runRead } from '../../activities/tools/read.js';
import { ctxFor, tempDir, writeTree } from './helpers.js';

describe('glob (SR1–SR5, real rg)', () => {
  it('matches patterns relative to path, sorted by path, workspace-relative', async () => {
    const ws = tempDir();
    writeTree(ws, {
      'src/index.ts': '',
      'src/lib/util.ts': '',
      'src/lib/util.test.ts': '',
      'README.md': '',
      'package.json': '',
    });
    const all = await runGlob({ pattern: '**/*.ts' }, ctxFor(ws));
    expect(all.isError).toBe(false);
    expect(all.output.split('\n')).toEqual(['src/index.ts', 'src/lib/util.test.ts', 'src/lib/util.ts']);
    expect(all.data).toMatchObject({ count: 3, returned: 3, truncated: false });

    const scoped = await runGlob({ pattern: 'lib/*.test.ts', path: 'src' }, ctxFor(ws));
    expect(scoped.output).toBe('src/lib/util.test.ts');

    const braces = await runGlob({ pattern: '*.{md,json}' }, ctxFor(ws));
    expect(braces.output.split('\n')).toEqual(['README.md', 'package.json']);
  });

  it('no match → "No files found"', async () => {
    const ws = tempDir();
    writeTree(ws, { 'a.txt': '' });
    const r = await runGlob({ pattern: '*.rs' }, ctxFor(ws));
    expect(r).toMatchObject({ isError: false, output: 'No files found' });
  });

  it('a name containing a newline is one path (NUL-separated), readable back by read', async () => {
    const ws = tempDir();
    writeTree(ws, { 'new\nline.txt': 'content\n', 'plain.txt': '' });
    const r = await runGlob({ pattern: '*.txt' }, ctxFor(ws));
    expect(r.data?.paths).toEqual(['new\nline.txt', 'plain.txt']);
    expect(r.data?.count).toBe(2);
    expect(r.output).toContain('"new\\nline.txt"');
    expect(r.output).toContain('double quotes');
    const back = await runRead({ path: (r.data?.paths as string[])[0]! }, ctxFor(ws));
    expect(back.output).toContain('content');
  });

  it('a backslash is a literal byte of the name', async () => {
    const ws = tempDir();
    writeTree(ws, { 'back\\slash.txt': '', 'sub/x.txt': '' });
    const r = await runGlob({ pattern: '*.txt' }, ctxFor(ws));
    expect(r.data?.paths).toEqual(['back\\slash.txt', 'sub/x.txt']);
    expect(r.output.split('\n')[0]).toBe('back\\slash.txt');
    // Matching the backslash itself needs it escaped in the glob.
    const exact = await runGlob({ pattern: 'back\\\\slash.txt' }, ctxFor(ws));
    expect(exact.data?.paths).toEqual(['back\\slash.txt']);
  });

  it('names that are not valid UTF-8 are excluded and the output is marked truncated', async () => {
    const ws = tempDir();
    writeTree(ws, { 'good.txt': '' });
    writeFileSync(Buffer.concat([Buffer.from(`${ws}/bad`), Buffer.from([0xff]), Buffer.from('.txt')]), '');
    const r = await runGlob({ pattern: '*.txt' }, ctxFor(ws));
    expect(r.data).toMatchObject({ paths: ['good.txt'], truncated: true, excludedNonUtf8: 1 });
    expect(r.output).toContain('not valid UTF-8');
  });

  it('includes hidden files, skips .git/, respects .gitignore inside a git repo, does not follow symlinks', async () => {
    const ws = tempDir();
    writeTree(ws, {
      '.env.ts': '',
      '.config/app.ts': '',
      '.git/HEAD': 'ref: refs/heads/main\n',
      '.git/hooks/x.ts': '',
      '.gitignore': 'ignored/\n',
      'ignored/skip.ts': '',
      'src/a.ts': '',
    });
    const outside = tempDir();
    writeTree(outside, { 'far.ts': '' });
    symlinkSync(outside, join(ws, 'linked'));
    const r = await runGlob({ pattern: '**/*.ts' }, ctxFor(ws));
    expect(r.data?.paths).toEqual(['.config/app.ts', '.env.ts', 'src/a.ts']);
  });

  it('caps the count at 100 with a truncated notice', async () => {
    const ws = tempDir();
    mkdirSync(join(ws, 'many'));
    for (let i = 0; i < 150; i++) writeFileSync(join(ws, 'many', `f${String(i).padStart(3, '0')}.txt`), '');
    const r = await runGlob({ pattern: '*.txt' }, ctxFor(ws));
    expect(r.data).toMatchObject({ count: 150, returned: 100, truncated: true });
    expect(r.output.split('\n')[99]).toBe('many/f099.txt');
    expect(r.output).toContain('showing the first 100 of 150');
  });

  it('the order is by path, independent of mtime', async () => {
    const ws = tempDir();
    writeTree(ws, { 'a.txt': '', 'b.txt': '' });
    utimesSync(join(ws, 'a.txt'), 1, 1);
    const r = await runGlob({ pattern: '*.txt' }, ctxFor(ws));
    expect(r.data?.paths).toEqual(['a.txt', 'b.txt']);
  });

  it('a bad glob → invalid_arguments quoting rg', async () => {
    const ws = tempDir();
    const r = await runGlob({ pattern: 'src/{a,b' }, ctxFor(ws));
    expect(r).toMatchObject({ isError: true, errorCode: 'invalid_arguments' });
    expect(r.output).toContain("error parsing glob 'src/{a,b'");
  });

  it('path errors: outside, missing, a file', async () => {
    const ws = tempDir();
    writeTree(ws, { 'f.txt': '' });
    expect(await runGlob({ pattern: '*', path: '..' }, ctxFor(ws))).toMatchObject({
      errorCode: 'path_outside_workspace',
    });
    expect(await runGlob({ pattern: '*', path: 'nope' }, ctxFor(ws))).toMatchObject({ errorCode: 'not_found' });
    expect(await runGlob({ pattern: '*', path: 'f.txt' }, ctxFor(ws))).toMatchObject({ errorCode: 'not_a_directory' });
  });
});
