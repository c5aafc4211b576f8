import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  REPORTS_DIR,
  reportFileName,
  runReportWrite,
  type ReportWriteContext,
} from '../../../activities/tools/report-write.js';
import {
  REPORT_MAX_BYTES,
  reportWriteArgs,
  reportWriteDeclaration,
  utf8ByteLength,
  type ReportArtifact,
} from '../../../core/tools/report-write.js';
import type { ToolResult } from '../../../core/tools/types.js';
import { validateToolCall } from '../../../core/tools/registry.js';
import { tempDir } from '../apply-patch/helpers.js';

const sha = (b: string | Buffer) => createHash('sha256').update(b).digest('hex');
const ctx = (workspace: string, callId = 'call_1', sessionId = 'ses_1'): ReportWriteContext => ({
  workspace,
  sessionId,
  callId,
});
function receipt(r: ToolResult): ReportArtifact {
  expect(r.isError, r.output).toBe(false);
  return r.data!.reportArtifact as ReportArtifact;
}
const reportsOf = (ws: string) => readdirSync(join(ws, '.zuno', 'reports')).filter((f) => f !== '.gitignore');

describe('report_write declaration (FT5, TD1)', () => {
  it('is SideEffecting, replay Never, Exclusive, with a one-line summary', () => {
    expect(reportWriteDeclaration).toMatchObject({
      name: 'report_write',
      effect: 'SideEffecting',
      replay: 'Never',
      concurrency: 'Exclusive',
    });
    expect(reportWriteDeclaration.summarize({ name: 'audit.md', content: '' })).toBe('report_write: audit.md');
  });

  it('counts UTF-8 bytes exactly as Node encodes them', () => {
    for (const s of ['', 'abc', 'é', '€', '😀', 'a\ud800b', '\udc00', 'x😀y€é\ud83d']) {
      expect(utf8ByteLength(s), JSON.stringify(s)).toBe(Buffer.byteLength(s, 'utf8'));
    }
  });
});

describe('report_write: publishing (FT5)', () => {
  it('publishes under .zuno/reports with session and call digests and returns path, bytes and SHA-256', async () => {
    const ws = tempDir();
    const content = '# Audit\n\nFindings: ünïcödé ✓ 😀\n';
    const r = await runReportWrite({ name: 'audit.md', content }, ctx(ws, 'call_42', 'ses_abc'));
    const a = receipt(r);
    const sessionDigest = sha('ses_abc').slice(0, 12);
    const callDigest = sha('call_42').slice(0, 12);
    expect(a).toEqual({
      path: `${REPORTS_DIR}/${sessionDigest}-${callDigest}-audit.md`,
      absolutePath: join(realpathSync(ws), '.zuno', 'reports', `${sessionDigest}-${callDigest}-audit.md`),
      name: 'audit.md',
      bytes: Buffer.byteLength(content),
      sha256: sha(content),
      sessionDigest,
      callDigest,
    });
    expect(readFileSync(a.absolutePath, 'utf8')).toBe(content);
    expect(readFileSync(join(ws, a.path), 'utf8')).toBe(content);
    expect(r.data!.existing).toBe(false);
    expect(r.output).toContain(a.path);
    expect(r.output).toContain(a.sha256);
    // reports are git-ignored; no temp file is left behind
    expect(readFileSync(join(ws, '.zuno/reports/.gitignore'), 'utf8')).toMatch(/^\*$/m);
    expect(readdirSync(join(ws, '.zuno/reports')).sort()).toEqual([
      '.gitignore',
      `${sessionDigest}-${callDigest}-audit.md`,
    ]);
  });

  it('uses an existing .zuno/reports directory and leaves its other contents alone', async () => {
    const ws = tempDir();
    mkdirSync(join(ws, '.zuno/reports'), { recursive: true });
    writeFileSync(join(ws, '.zuno/reports/old.md'), 'old');
    const a = receipt(await runReportWrite({ name: 'n.txt', content: 'x' }, ctx(ws)));
    expect(readdirSync(join(ws, '.zuno/reports')).sort()).toEqual([a.path.split('/').pop(), 'old.md'].sort());
  });

  it('accepts exactly 1 MiB and an empty body', async () => {
    const ws = tempDir();
    const a = receipt(await runReportWrite({ name: 'big.txt', content: 'a'.repeat(REPORT_MAX_BYTES) }, ctx(ws, 'c1')));
    expect(a.bytes).toBe(REPORT_MAX_BYTES);
    const e = receipt(await runReportWrite({ name: 'empty.txt', content: '' }, ctx(ws, 'c2')));
    expect(e).toMatchObject({ bytes: 0, sha256: sha('') });
  });

  it('two calls with the same name never overwrite each other', async () => {
    const ws = tempDir();
    const a = receipt(await runReportWrite({ name: 'audit.md', content: 'first' }, ctx(ws, 'call_a')));
    const b = receipt(await runReportWrite({ name: 'audit.md', content: 'second' }, ctx(ws, 'call_b')));
    expect(a.path).not.toBe(b.path);
    expect(readFileSync(a.absolutePath, 'utf8')).toBe('first');
    expect(readFileSync(b.absolutePath, 'utf8')).toBe('second');
    expect(reportsOf(ws)).toHaveLength(2);
  });

  it('the same call run again returns the same receipt; different content for that path is refused, never overwritten', async () => {
    const ws = tempDir();
    const a = receipt(await runReportWrite({ name: 'r.md', content: 'body' }, ctx(ws)));
    const again = await runReportWrite({ name: 'r.md', content: 'body' }, ctx(ws));
    expect(receipt(again)).toEqual(a);
    expect(again.data!.existing).toBe(true);
    const clash = await runReportWrite({ name: 'r.md', content: 'other body' }, ctx(ws));
    expect(clash).toMatchObject({ isError: true, errorCode: 'report_exists' });
    expect(readFileSync(a.absolutePath, 'utf8')).toBe('body');
    expect(reportsOf(ws)).toEqual([a.path.split('/').pop()]);
    expect(readdirSync(join(ws, '.zuno/reports')).filter((f) => f.includes('zuno-tmp'))).toEqual([]);
  });

  it('never writes through a symlink planted at the chosen file name', async () => {
    const parent = tempDir();
    const ws = join(parent, 'ws');
    mkdirSync(join(ws, '.zuno/reports'), { recursive: true });
    writeFileSync(join(parent, 'victim.txt'), 'keep');
    const { file } = reportFileName('ses_1', 'c', 'x.md');
    symlinkSync(join(parent, 'victim.txt'), join(ws, '.zuno/reports', file));
    const r = await runReportWrite({ name: 'x.md', content: 'keep' }, ctx(ws, 'c'));
    expect(r).toMatchObject({ isError: true, errorCode: 'report_exists' });
    expect(readFileSync(join(parent, 'victim.txt'), 'utf8')).toBe('keep');
  });

  it('reports the real path when the workspace is reached through a symlink', async () => {
    const parent = tempDir();
    mkdirSync(join(parent, 'real'));
    symlinkSync(join(parent, 'real'), join(parent, 'alias'));
    const a = receipt(await runReportWrite({ name: 'a.md', content: 'x' }, ctx(join(parent, 'alias'))));
    expect(a.absolutePath.startsWith(join(realpathSync(parent), 'real', '.zuno', 'reports'))).toBe(true);
    expect(existsSync(a.absolutePath)).toBe(true);
  });
});

describe('report_write: refusals', () => {
  const badNames: Array<[string, string]> = [
    ['empty', ''],
    ['slash', 'dir/audit.md'],
    ['leading slash', '/etc/passwd'],
    ['backslash', 'dir\\audit.md'],
    ['dot dot', '..'],
    ['dot dot inside', 'a..b.md'],
    ['parent path', '../audit.md'],
    ['dot', '.'],
    ['NUL', 'a\0b.md'],
    ['newline', 'a\nb.md'],
    ['tab', 'a\tb.md'],
    ['DEL', 'a\u007fb.md'],
    ['C1 control', 'a\u0085b.md'],
    ['bidi override', 'txt.\u202Emd'],
    ['zero width', 'a\u200Bb.md'],
    ['lone surrogate', 'a\ud800.md'],
    ['windows reserved', 'a:b.md'],
    ['question mark', 'what?.md'],
    ['trailing dot', 'audit.'],
    ['leading space', ' audit.md'],
    ['trailing space', 'audit.md '],
    ['overlong', `${'x'.repeat(126)}.md`],
    ['overlong multibyte', `${'é'.repeat(64)}.md`],
  ];
  for (const [why, name] of badNames) {
    it(`refuses a bad name (${why}) before touching the disk`, async () => {
      const ws = tempDir();
      const r = await runReportWrite({ name, content: 'x' }, ctx(ws));
      expect(r, r.output).toMatchObject({ isError: true, errorCode: 'invalid_arguments' });
      expect(r.output).toMatch(/name/);
      expect(existsSync(join(ws, '.zuno'))).toBe(false);
      // the workflow blocks the same call (TD8) through the declaration's schema
      expect(reportWriteArgs.safeParse({ name, content: 'x' }).success).toBe(false);
    });
  }

  it('accepts ordinary names, including unicode and a leading dot', async () => {
    const ws = tempDir();
    for (const [i, name] of [
      'audit.md',
      'Bericht über Ä.txt',
      '调查报告.md',
      '.notes',
      'a b-c_d(1).json',
      'x'.repeat(128),
    ].entries()) {
      receipt(await runReportWrite({ name, content: 'x' }, ctx(ws, `c${i}`)));
    }
    expect(reportsOf(ws)).toHaveLength(6);
  });

  it('refuses content over 1 MiB (counted in UTF-8 bytes)', async () => {
    const ws = tempDir();
    for (const content of ['a'.repeat(REPORT_MAX_BYTES + 1), 'é'.repeat(REPORT_MAX_BYTES / 2 + 1)]) {
      const r = await runReportWrite({ name: 'big.md', content }, ctx(ws));
      expect(r).toMatchObject({ isError: true, errorCode: 'invalid_arguments' });
      expect(r.output).toMatch(/at most 1048576/);
    }
    expect(existsSync(join(ws, '.zuno'))).toBe(false);
    const v = validateToolCall(
      'report_write',
      JSON.stringify({ name: 'a.md', content: 'a'.repeat(REPORT_MAX_BYTES + 1) }),
      {
        report_write: reportWriteDeclaration,
      } as never,
    );
    expect(v).toMatchObject({ ok: false, category: 'invalid_arguments' });
  });

  it('refuses a symlinked .zuno/reports and writes nothing through it', async () => {
    const parent = tempDir();
    const ws = join(parent, 'ws');
    const elsewhere = join(parent, 'elsewhere');
    mkdirSync(join(ws, '.zuno'), { recursive: true });
    mkdirSync(elsewhere);
    symlinkSync(elsewhere, join(ws, '.zuno', 'reports'));
    const r = await runReportWrite({ name: 'a.md', content: 'x' }, ctx(ws));
    expect(r).toMatchObject({ isError: true, errorCode: 'symlink_ancestor', data: { path: '.zuno/reports' } });
    expect(readdirSync(elsewhere)).toEqual([]);
  });

  it('refuses a symlinked .zuno (even one pointing inside the workspace)', async () => {
    const parent = tempDir();
    const ws = join(parent, 'ws');
    mkdirSync(join(ws, 'inside', 'reports'), { recursive: true });
    symlinkSync(join(ws, 'inside'), join(ws, '.zuno'));
    const r = await runReportWrite({ name: 'a.md', content: 'x' }, ctx(ws));
    expect(r).toMatchObject({ isError: true, errorCode: 'symlink_ancestor', data: { path: '.zuno' } });
    expect(readdirSync(join(ws, 'inside', 'reports'))).toEqual([]);
  });

  it('refuses a dangling .zuno symlink without creating its target', async () => {
    const parent = tempDir();
    const ws = join(parent, 'ws');
    mkdirSync(ws);
    symlinkSync(join(parent, 'nowhere'), join(ws, '.zuno'));
    const r = await runReportWrite({ name: 'a.md', content: 'x' }, ctx(ws));
    expect(r.errorCode).toBe('symlink_ancestor');
    expect(existsSync(join(parent, 'nowhere'))).toBe(false);
  });

  it('refuses a .zuno or .zuno/reports that is a file', async () => {
    const ws = tempDir();
    writeFileSync(join(ws, '.zuno'), 'not a dir');
    expect(await runReportWrite({ name: 'a.md', content: 'x' }, ctx(ws))).toMatchObject({
      errorCode: 'not_a_directory',
      data: { path: '.zuno' },
    });
    const ws2 = tempDir();
    mkdirSync(join(ws2, '.zuno'));
    writeFileSync(join(ws2, '.zuno', 'reports'), 'not a dir');
    expect(await runReportWrite({ name: 'a.md', content: 'x' }, ctx(ws2))).toMatchObject({
      errorCode: 'not_a_directory',
      data: { path: '.zuno/reports' },
    });
  });

  it('reports an unusable workspace and an aborted signal', async () => {
    const ws = join(tempDir(), 'missing');
    expect((await runReportWrite({ name: 'a.md', content: 'x' }, ctx(ws))).errorCode).toBe('workspace_unavailable');
    const ac = new AbortController();
    ac.abort();
    const ws2 = tempDir();
    const r = await runReportWrite({ name: 'a.md', content: 'x' }, { ...ctx(ws2), signal: ac.signal });
    expect(r.errorCode).toBe('cancelled');
    expect(existsSync(join(ws2, '.zuno'))).toBe(false);
  });
});
