import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runRead } from '../../activities/tools/read.js';
import type { ReadCredential } from '../../core/tools/read.js';
import { ctxFor, tempDir, writeTree } from './helpers.js';

const sha = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

describe('read (FT1)', () => {
  it('returns numbered lines and a credential whose sha256 matches the file bytes', async () => {
    const ws = tempDir();
    writeTree(ws, { 'src/index.ts': 'export const a = 1;\r\nconst b = 2;\n\nlast line without newline' });
    const r = await runRead({ path: 'src/index.ts' }, ctxFor(ws));
    expect(r.isError).toBe(false);
    expect(r.output).toContain(
      '     1\texport const a = 1;\n     2\tconst b = 2;\n     3\t\n     4\tlast line without newline',
    );
    expect(r.output).not.toContain('\r');
    expect(r.output).toContain('Showing lines 1-4 of 4; end of file.');
    const cred = r.data?.credential as ReadCredential;
    const bytes = readFileSync(join(ws, 'src/index.ts'));
    expect(cred).toEqual({
      path: 'src/index.ts',
      sha256: sha(bytes),
      bytes: bytes.length,
      mtimeMs: statSync(join(ws, 'src/index.ts')).mtimeMs,
    });
    expect(r.data).toMatchObject({ kind: 'file', totalLines: 4, startLine: 1, endLine: 4, hasMore: false });
  });

  it('pages with offset/limit and says how to continue; the credential covers the whole file', async () => {
    const ws = tempDir();
    const content = Array.from({ length: 50 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';
    writeTree(ws, { 'f.txt': content });
    const r = await runRead({ path: 'f.txt', offset: 10, limit: 5 }, ctxFor(ws));
    expect(r.output.split('\n').slice(0, 5)).toEqual([
      '    10\tline 10',
      '    11\tline 11',
      '    12\tline 12',
      '    13\tline 13',
      '    14\tline 14',
    ]);
    expect(r.output).toContain('Showing lines 10-14 of 50. Use offset=15 to continue.');
    expect(r.data).toMatchObject({ startLine: 10, endLine: 14, hasMore: true, totalLines: 50 });
    expect((r.data?.credential as ReadCredential).sha256).toBe(sha(content));

    const past = await runRead({ path: 'f.txt', offset: 51 }, ctxFor(ws));
    expect(past).toMatchObject({ isError: true, errorCode: 'offset_out_of_range' });
  });

  it('caps the page at 51200 bytes / 2000 lines and points at the continuing offset', async () => {
    const ws = tempDir();
    const many = Array.from({ length: 5000 }, (_, i) => `${i + 1}`).join('\n');
    const wide = Array.from({ length: 100 }, () => 'x'.repeat(1000)).join('\n');
    writeTree(ws, { 'many.txt': many, 'wide.txt': wide });
    const a = await runRead({ path: 'many.txt' }, ctxFor(ws));
    expect(a.output.split('\n').length).toBeLessThanOrEqual(2000);
    const endA = a.data?.endLine as number;
    expect(a.output).toContain(`Use offset=${endA + 1} to continue.`);
    const b = await runRead({ path: 'wide.txt', limit: 100 }, ctxFor(ws));
    expect(Buffer.byteLength(b.output)).toBeLessThanOrEqual(51200);
    const endB = b.data?.endLine as number;
    expect(endB).toBeLessThan(100);
    expect(b.output).toContain(`Use offset=${endB + 1} to continue.`);
    const c = await runRead({ path: 'wide.txt', offset: endB + 1, limit: 100 }, ctxFor(ws));
    expect(c.output.startsWith(`${String(endB + 1).padStart(6)}\t`)).toBe(true);
  });

  it('cuts lines longer than 2000 characters with a marker', async () => {
    const ws = tempDir();
    writeTree(ws, { 'long.txt': `${'a'.repeat(2500)}\nshort\n` });
    const r = await runRead({ path: 'long.txt' }, ctxFor(ws));
    const first = r.output.split('\n')[0]!;
    expect(first).toBe(`     1\t${'a'.repeat(2000)} … [line cut at 2000 characters]`);
    expect(r.data).toMatchObject({ linesCut: 1 });
  });

  it('lists a directory sorted, directories with a trailing slash', async () => {
    const ws = tempDir();
    writeTree(ws, { 'b.txt': '', 'a.txt': '', 'zdir/x': '', 'Cdir/y': '', '.hidden': '' });
    mkdirSync(join(ws, 'empty'));
    const r = await runRead({ path: '.' }, ctxFor(ws));
    expect(r.isError).toBe(false);
    expect(r.output.split('\n\n')[0]!.split('\n')).toEqual(['.hidden', 'Cdir/', 'a.txt', 'b.txt', 'empty/', 'zdir/']);
    expect(r.data).toMatchObject({ kind: 'directory', entries: 6 });
    const page = await runRead({ path: '.', offset: 2, limit: 2 }, ctxFor(ws));
    expect(page.output).toContain('Cdir/\na.txt\n\n(Showing entries 2-3 of 6. Use offset=4 to continue.)');
    const empty = await runRead({ path: 'empty' }, ctxFor(ws));
    expect(empty.output).toBe('(The directory is empty.)');
  });

  it('a binary file is a clear error (still carrying the credential)', async () => {
    const ws = tempDir();
    const bin = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01, 0x02, 0x03]);
    writeTree(ws, { 'img.png': bin });
    const r = await runRead({ path: 'img.png' }, ctxFor(ws));
    expect(r).toMatchObject({ isError: true, errorCode: 'binary_file' });
    expect(r.output).toContain('binary');
    expect((r.data?.credential as ReadCredential).sha256).toBe(sha(bin));
  });

  it('an empty file reads as empty with a credential', async () => {
    const ws = tempDir();
    writeTree(ws, { 'e.txt': '' });
    const r = await runRead({ path: 'e.txt' }, ctxFor(ws));
    expect(r).toMatchObject({ isError: false, output: '(The file is empty.)' });
    expect((r.data?.credential as ReadCredential).sha256).toBe(sha(''));
  });

  it('rejects paths outside the workspace (.., absolute elsewhere, symlink leading out)', async () => {
    const ws = tempDir();
    const outside = tempDir();
    writeFileSync(join(outside, 'secret.txt'), 'secret');
    symlinkSync(outside, join(ws, 'escape'));
    for (const path of [
      '../x',
      '../../etc/passwd',
      join(outside, 'secret.txt'),
      '/etc/passwd',
      'escape/secret.txt',
      'escape',
    ]) {
      const r = await runRead({ path }, ctxFor(ws));
      expect(r, path).toMatchObject({ isError: true, errorCode: 'path_outside_workspace' });
    }
  });

  it('accepts absolute paths inside the workspace and a final in-workspace symlink (credential uses the real path)', async () => {
    const ws = tempDir();
    writeTree(ws, { 'real/file.txt': 'hi\n' });
    symlinkSync(join(ws, 'real'), join(ws, 'alias'));
    symlinkSync(join(ws, 'real', 'file.txt'), join(ws, 'link.txt'));
    const abs = await runRead({ path: join(ws, 'real/file.txt') }, ctxFor(ws));
    expect(abs.isError).toBe(false);
    const viaLink = await runRead({ path: 'link.txt' }, ctxFor(ws));
    expect((viaLink.data?.credential as ReadCredential).path).toBe('real/file.txt');
    // FT4: a symlinked directory on the way is refused even inside the workspace
    const viaDir = await runRead({ path: 'alias/file.txt' }, ctxFor(ws));
    expect(viaDir).toMatchObject({ isError: true, errorCode: 'symlink_in_path', data: { segment: 'alias' } });
    const dotdot = await runRead({ path: 'real/../real/file.txt' }, ctxFor(ws));
    expect(dotdot.isError).toBe(false);
  });

  it('missing file and dangling symlink → not_found', async () => {
    const ws = tempDir();
    symlinkSync(join(ws, 'nowhere'), join(ws, 'dangling'));
    expect(await runRead({ path: 'nope.txt' }, ctxFor(ws))).toMatchObject({ isError: true, errorCode: 'not_found' });
    expect(await runRead({ path: 'dangling' }, ctxFor(ws))).toMatchObject({ isError: true, errorCode: 'not_found' });
  });

  it('invalid UTF-8 is shown with replacement characters and a note', async () => {
    const ws = tempDir();
    writeTree(ws, { 'latin1.txt': Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]) });
    const r = await runRead({ path: 'latin1.txt' }, ctxFor(ws));
    expect(r.output).toContain('caf\uFFFD');
    expect(r.output).toContain('not valid UTF-8');
  });

  it('returns a typed invalid_arguments result for bad arguments', async () => {
    const ws = tempDir();
    const r = await runRead({ path: 'x', offset: 0 } as never, ctxFor(ws));
    expect(r).toMatchObject({ isError: true, errorCode: 'invalid_arguments' });
  });

  it('a pre-aborted signal → cancelled', async () => {
    const ws = tempDir();
    writeTree(ws, { 'a.txt': 'x\n' });
    const ac = new AbortController();
    ac.abort();
    const r = await runRead({ path: 'a.txt' }, ctxFor(ws, { signal: ac.signal }));
    expect(r).toMatchObject({ isError: true, errorCode: 'cancelled' });
  });
});
