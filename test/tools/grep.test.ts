import { execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runGlob } from '../../activities/tools/glob.js';
import { runGrep } from '../../activities/tools/grep.js';
import type { ToolResult } from '../../core/tools/types.js';
import { runRg } from '../../activities/tools/rg-run.js';
import { ctxFor, REAL_RG, tempDir, writeTree } from './helpers.js';

const execFileP = promisify(execFile);
const isRoot = process.getuid?.() === 0;
const SETPRIV = ['/usr/bin/setpriv', '/bin/setpriv'].find((p) => existsSync(p));
const REPO = fileURLToPath(new URL('../../', import.meta.url));

/** Runs tool calls on `ws` without root privileges (in-process when not root; as nobody via setpriv when root). */
async function unprivileged(
  ws: string,
  calls: Array<['grep' | 'glob', Record<string, unknown>]>,
): Promise<ToolResult[]> {
  if (!isRoot) {
    const out: ToolResult[] = [];
    for (const [name, args] of calls)
      out.push(await (name === 'grep' ? runGrep(args as never, ctxFor(ws)) : runGlob(args as never, ctxFor(ws))));
    return out;
  }
  const scriptDir = tempDir('zuno-nobody-');
  chmodSync(scriptDir, 0o1777); // nobody needs to write tsx's cache here
  const script = join(scriptDir, 'probe.mts');
  writeFileSync(
    script,
    `import { runGrep } from ${JSON.stringify(pathToFileURL(join(REPO, 'activities/tools/grep.js')).href)};
import { runGlob } from ${JSON.stringify(pathToFileURL(join(REPO, 'activities/tools/glob.js')).href)};
import { createRgLocator } from ${JSON.stringify(pathToFileURL(join(REPO, 'activities/tools/rg.js')).href)};
const ctx = { workspace: ${JSON.stringify(ws)}, sessionId: 's', callId: 'c', rg: createRgLocator({ bin: ${JSON.stringify(REAL_RG)} }) };
const calls = ${JSON.stringify(calls)};
const out = [];
for (const [name, args] of calls) out.push(await (name === 'grep' ? runGrep(args, ctx) : runGlob(args, ctx)));
process.stdout.write(JSON.stringify(out));
`,
  );
  const { stdout } = await execFileP(
    SETPRIV!,
    ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, '--import', 'tsx', script],
    { cwd: REPO, env: { ...process.env, HOME: scriptDir, TMPDIR: scriptDir } },
  );
  return JSON.parse(stdout) as ToolResult[];
}

describe('grep (SR1–SR5, real rg)', () => {
  it('a FIFO is refused at once as not_a_file (it would block rg and the worker forever)', async () => {
    const dir = tempDir();
    await promisify(execFile)('mkfifo', [join(dir, 'pipe')]);
    symlinkSync('pipe', join(dir, 'link'));
    for (const path of ['pipe', 'link']) {
      const r = await runGrep({ pattern: 'x', path }, ctxFor(dir));
      expect(r, path).toMatchObject({ isError: true, errorCode: 'not_a_file' });
      expect(r.output).toContain('FIFO, socket or device');
    }
  });

  it('finds matches grouped by path, sorted by path then line', async () => {
    const ws = tempDir();
    writeTree(ws, {
      'src/b.ts': 'const x = 1; // TODO later\nok\n// TODO again\n',
      'src/a.ts': 'nothing\n// TODO first\n',
      'docs/notes.md': 'TODO: write docs\n',
      'other.txt': 'no match here\n',
    });
    const r = await runGrep({ pattern: 'TODO' }, ctxFor(ws));
    expect(r.isError).toBe(false);
    expect(r.output).toBe(
      [
        'Found 4 matches in 3 files',
        'docs/notes.md:',
        '  1: TODO: write docs',
        '',
        'src/a.ts:',
        '  2: // TODO first',
        '',
        'src/b.ts:',
        '  1: const x = 1; // TODO later',
        '  3: // TODO again',
      ].join('\n'),
    );
    expect(r.data).toMatchObject({ matches: 4, files: 3, returned: 4, truncated: false });
  });

  it('path and include narrow the search; include is relative to the searched directory', async () => {
    const ws = tempDir();
    writeTree(ws, { 'src/a.ts': 'TODO\n', 'src/a.md': 'TODO\n', 'src/deep/c.ts': 'TODO\n', 'lib/x.ts': 'TODO\n' });
    const inc = await runGrep({ pattern: 'TODO', include: '*.ts' }, ctxFor(ws));
    expect(inc.output).toContain('lib/x.ts:');
    expect(inc.output).toContain('src/a.ts:');
    expect(inc.output).toContain('src/deep/c.ts:');
    expect(inc.output).not.toContain('a.md');
    const scoped = await runGrep({ pattern: 'TODO', path: 'src', include: 'deep/*.ts' }, ctxFor(ws));
    expect(scoped.output).toBe('Found 1 match in 1 file\nsrc/deep/c.ts:\n  1: TODO');
    const file = await runGrep({ pattern: 'TODO', path: 'src/a.md' }, ctxFor(ws));
    expect(file.output).toBe('Found 1 match in 1 file\nsrc/a.md:\n  1: TODO');
  });

  it('no match → "No files found"', async () => {
    const ws = tempDir();
    writeTree(ws, { 'a.txt': 'hello\n' });
    expect(await runGrep({ pattern: 'absent' }, ctxFor(ws))).toMatchObject({
      isError: false,
      output: 'No files found',
    });
  });

  it('a bad regex → invalid_arguments quoting the pattern as rg shows it', async () => {
    const ws = tempDir();
    writeTree(ws, { 'a.txt': 'x\n' });
    const r = await runGrep({ pattern: 'foo(bar' }, ctxFor(ws));
    expect(r).toMatchObject({ isError: true, errorCode: 'invalid_arguments', data: { field: 'pattern' } });
    expect(r.output).toContain('regex parse error');
    expect(r.output).toContain('foo(bar');
  });

  it('a regex over rg’s size limit → invalid_arguments', async () => {
    const ws = tempDir();
    writeTree(ws, { 'a.txt': 'x\n' });
    const r = await runGrep({ pattern: '(\\w{100}){100}' }, ctxFor(ws));
    expect(r).toMatchObject({ isError: true, errorCode: 'invalid_arguments', data: { field: 'pattern' } });
    expect(r.output).toContain('size limit');
  });

  it('a bad include glob → invalid_arguments naming the include, never the regex', async () => {
    const ws = tempDir();
    writeTree(ws, { 'a.txt': 'x\n' });
    const r = await runGrep({ pattern: 'x', include: '*.{ts' }, ctxFor(ws));
    expect(r).toMatchObject({ isError: true, errorCode: 'invalid_arguments', data: { field: 'include' } });
    expect(r.output).toContain("error parsing glob '*.{ts'");
    // Both bad: the include is reported (rg parses globs first); the regex is not blamed.
    const both = await runGrep({ pattern: '(', include: '[' }, ctxFor(ws));
    expect(both.data).toMatchObject({ field: 'include' });
  });

  it('an explicit path rg cannot read is an error, not "no matches"', async () => {
    // Tests run as root, and chmod 000 does not stop root, so "cannot read" is
    // exercised with a path that does not exist and with a dangling symlink.
    const ws = tempDir();
    writeTree(ws, { 'a.txt': 'x\n' });
    symlinkSync(join(ws, 'gone'), join(ws, 'dangling'));
    const missing = await runGrep({ pattern: 'x', path: 'missing/dir' }, ctxFor(ws));
    expect(missing).toMatchObject({ isError: true, errorCode: 'not_found' });
    const dangling = await runGrep({ pattern: 'x', path: 'dangling' }, ctxFor(ws));
    expect(dangling).toMatchObject({ isError: true, errorCode: 'not_found' });
    expect(dangling.output).not.toContain('No files found');
  });

  it.skipIf(isRoot && !SETPRIV)(
    'an unreadable directory contributes nothing; an unreadable explicit path is an error (SR2, SR5)',
    async () => {
      // chmod 000 does not stop root, so when the tests run as root the same
      // calls run in a child process as uid/gid 65534 (nobody) via setpriv.
      const ws = tempDir();
      chmodSync(ws, 0o755);
      writeTree(ws, { 'locked/a.txt': 'needle\n', 'open/b.txt': 'needle in hay\n' });
      chmodSync(join(ws, 'locked'), 0o000);
      try {
        const [all, globbed, explicit] = await unprivileged(ws, [
          ['grep', { pattern: 'needle' }],
          ['glob', { pattern: '*.txt' }],
          ['grep', { pattern: 'needle', path: 'locked' }],
        ]);
        // The readable part still answers; the locked directory adds no error.
        expect(all).toMatchObject({ isError: false, data: { matches: 1 } });
        expect(all!.output).toContain('open/b.txt');
        expect(globbed).toMatchObject({ isError: false, data: { paths: ['open/b.txt'] } });
        expect(explicit).toMatchObject({ isError: true, errorCode: 'cannot_read' });
        const none = await unprivileged(ws, [['grep', { pattern: 'needle', path: 'locked/..', include: 'locked/**' }]]);
        expect(none[0]).toMatchObject({ isError: false, output: 'No files found' });
      } finally {
        chmodSync(join(ws, 'locked'), 0o755);
      }
    },
  );

  it('a dangling symlink inside the tree adds no diagnostic and no error', async () => {
    const ws = tempDir();
    writeTree(ws, { 'a.txt': 'hay\n' });
    symlinkSync(join(ws, 'gone'), join(ws, 'dangling'));
    expect(await runGrep({ pattern: 'needle' }, ctxFor(ws))).toMatchObject({
      isError: false,
      output: 'No files found',
    });
  });

  it('caps a 3000-char match line at 2000 UTF-16 units and marks the output truncated', async () => {
    const ws = tempDir();
    writeTree(ws, { 'long.txt': `needle${'y'.repeat(2994)}\n` });
    const r = await runGrep({ pattern: 'needle' }, ctxFor(ws));
    expect(r.data).toMatchObject({ truncated: true, linesCut: 1, returned: 1 });
    const line = r.output.split('\n').find((l) => l.startsWith('  1: '))!;
    const text = line.slice('  1: '.length).replace(/ … \[line cut at 2000 characters\]$/, '');
    expect(text.length).toBe(2000);
    expect(r.output).toContain('truncated');
  });

  it('does not split a surrogate pair when capping', async () => {
    const ws = tempDir();
    writeTree(ws, { 'emoji.txt': `needle${'a'.repeat(1993)}${'😀'.repeat(10)}\n` });
    const r = await runGrep({ pattern: 'needle' }, ctxFor(ws));
    const text = r.output
      .split('\n')
      .find((l) => l.startsWith('  1: '))!
      .slice(5)
      .replace(/ … \[.*\]$/, '');
    expect(text.length).toBe(1999);
    expect(text.endsWith('a')).toBe(true);
  });

  it('skips rg records over 1 MiB and marks the output truncated', async () => {
    const ws = tempDir();
    writeTree(ws, { 'huge.txt': `needle ${'z'.repeat(1024 * 1024 + 10)}\n`, 'small.txt': 'needle\n' });
    const r = await runGrep({ pattern: 'needle' }, ctxFor(ws));
    expect(r.data).toMatchObject({ matches: 1, recordsSkipped: 1, truncated: true });
    expect(r.output).toContain('small.txt');
    expect(r.output).not.toContain('huge.txt');
    expect(r.output).toContain('larger than 1 MiB');
  });

  it('caps at 100 matches, marked truncated', async () => {
    const ws = tempDir();
    writeTree(ws, { 'm.txt': Array.from({ length: 130 }, (_, i) => `hit ${i}`).join('\n') });
    const r = await runGrep({ pattern: 'hit' }, ctxFor(ws));
    expect(r.data).toMatchObject({ matches: 130, returned: 100, truncated: true });
    expect(r.output).toContain('showing the first 100 of 130 matches');
  });

  it('paths: newline in a name is one path, backslash literal, non-UTF-8 names excluded and truncated', async () => {
    const ws = tempDir();
    writeTree(ws, { 'new\nline.txt': 'needle\n', 'back\\slash.txt': 'needle\n' });
    writeFileSync(Buffer.concat([Buffer.from(`${ws}/bad`), Buffer.from([0xfe]), Buffer.from('.txt')]), 'needle\n');
    const r = await runGrep({ pattern: 'needle' }, ctxFor(ws));
    expect(r.data).toMatchObject({ matches: 2, files: 2, excludedNonUtf8: 1, truncated: true });
    expect(r.output).toContain('back\\slash.txt:');
    expect(r.output).toContain('"new\\nline.txt":');
    expect(r.output).toContain('not valid UTF-8');
  });

  it('searches hidden files, skips .git/', async () => {
    const ws = tempDir();
    writeTree(ws, { '.env': 'needle\n', '.git/config': 'needle\n', 'a.txt': 'needle\n' });
    const r = await runGrep({ pattern: 'needle' }, ctxFor(ws));
    expect(r.output).toContain('.env:');
    expect(r.output).not.toContain('.git/config');
  });

  it('outside the workspace → path_outside_workspace', async () => {
    const ws = tempDir();
    expect(await runGrep({ pattern: 'x', path: '/etc' }, ctxFor(ws))).toMatchObject({
      errorCode: 'path_outside_workspace',
    });
  });

  it('cancellation: an aborted signal returns cancelled', async () => {
    const ws = tempDir();
    writeTree(ws, { 'a.txt': 'x\n' });
    const ac = new AbortController();
    ac.abort();
    expect(await runGrep({ pattern: 'x' }, ctxFor(ws, { signal: ac.signal }))).toMatchObject({
      errorCode: 'cancelled',
    });
  });

  it('runRg kills rg once output exceeds the byte budget (the 64 MiB rule, with a small budget)', async () => {
    const ws = tempDir();
    mkdirSync(join(ws, 'd'));
    for (let i = 0; i < 200; i++) writeFileSync(join(ws, 'd', `f${i}.txt`), 'needle\n'.repeat(50));
    let delivered = 0;
    const r = await runRg({
      bin: REAL_RG,
      cwd: ws,
      args: ['--json', '-e', 'needle'],
      maxOutputBytes: 10_000,
      onStdout: (c) => (delivered += c.length),
    });
    expect(r.overLimit).toBe(true);
    expect(delivered).toBeLessThanOrEqual(10_000);
  });

  it('runRg: aborting mid-run kills rg', async () => {
    const ws = tempDir();
    mkdirSync(join(ws, 'd'));
    for (let i = 0; i < 300; i++) writeFileSync(join(ws, 'd', `f${i}.txt`), 'needle\n'.repeat(2000));
    const ac = new AbortController();
    const r = await runRg({
      bin: REAL_RG,
      cwd: ws,
      args: ['--json', '-e', 'needle', '--threads', '1'],
      signal: ac.signal,
      onStdout: () => ac.abort(),
    });
    expect(r.aborted).toBe(true);
    expect(r.exitCode === null || r.signal !== null).toBe(true);
  });
});
