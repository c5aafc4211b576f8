import { createHash } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runWrite, type WriteContext } from '../../../activities/tools/write.js';
import { applyPatch, parsePatch } from '../../../activities/tools/apply-patch/index.js';
import type { ReadCredential } from '../../../core/tools/read.js';
import { writeDeclaration } from '../../../core/tools/write.js';
import type { ToolResult } from '../../../core/tools/types.js';
import {
  CredentialStore,
  listFiles,
  patch,
  readCredential,
  snapshot,
  tempDir,
  writeTree,
} from '../apply-patch/helpers.js';

const sha = (b: string | Buffer) => createHash('sha256').update(b).digest('hex');
const text = (ws: string, p: string) => readFileSync(join(ws, p), 'utf8');
const noTemps = (ws: string) => expect(listFiles(ws).filter((f) => f.includes('.zuno-tmp'))).toEqual([]);

function ok(r: ToolResult): Record<string, unknown> {
  expect(r.isError, r.output).toBe(false);
  return r.data!;
}
function ctx(ws: string, store = new CredentialStore(), extra: Partial<WriteContext> = {}): WriteContext {
  return { workspace: ws, credentials: store.lookup, ...extra };
}
/** The credential a write issued must describe the file now on disk, exactly as `read` would. */
async function expectCredentialMatchesFile(ws: string, cred: ReadCredential): Promise<void> {
  const bytes = readFileSync(join(ws, cred.path));
  expect(cred).toEqual({
    path: cred.path,
    sha256: sha(bytes),
    bytes: bytes.length,
    mtimeMs: statSync(join(ws, cred.path)).mtimeMs,
  });
  expect(await readCredential(ws, cred.path)).toEqual(cred);
}

describe('write declaration (FT2, TD1)', () => {
  it('is SideEffecting, replay Never, Exclusive, with a one-line summary', () => {
    expect(writeDeclaration).toMatchObject({
      name: 'write',
      effect: 'SideEffecting',
      replay: 'Never',
      concurrency: 'Exclusive',
    });
    expect(writeDeclaration.summarize({ path: 'src/a.ts', content: 'x' })).toBe('write: src/a.ts');
    expect(writeDeclaration.affectedPaths!({ path: 'src/a.ts', content: 'x' })).toEqual([
      'src/a.ts',
      'src/.a.ts.*.zuno-tmp',
    ]);
    expect(writeDeclaration.summarize({ path: 'a\nb', content: '' })).toBe('write: a\\nb');
    expect(writeDeclaration.args.safeParse({ path: 'a' }).success).toBe(false);
    expect(writeDeclaration.args.safeParse({ path: 'a', content: '', extra: 1 }).success).toBe(false);
  });
});

describe('write: creating files', () => {
  it('creates a new file without any credential and returns its credential', async () => {
    const ws = tempDir();
    const content = 'héllo\nworld\n';
    const data = ok(await runWrite({ path: 'a.txt', content }, ctx(ws)));
    expect(text(ws, 'a.txt')).toBe(content);
    expect(data).toMatchObject({
      path: 'a.txt',
      op: 'create',
      bytes: Buffer.byteLength(content),
      sha256: sha(content),
      changedPaths: ['a.txt'],
      writtenPaths: ['a.txt'],
    });
    expect(data.diff).toBe('--- /dev/null\n+++ b/a.txt\n@@ -0,0 +1,2 @@\n+héllo\n+world\n');
    await expectCredentialMatchesFile(ws, data.credential as ReadCredential);
    noTemps(ws);
  });

  it('creates missing parent directories', async () => {
    const ws = tempDir();
    const data = ok(await runWrite({ path: 'deep/er/still/x.md', content: '# x' }, ctx(ws)));
    expect(text(ws, 'deep/er/still/x.md')).toBe('# x');
    expect(data.changedPaths).toEqual(['deep/er/still/x.md']);
    await expectCredentialMatchesFile(ws, data.credential as ReadCredential);
  });

  it('accepts an absolute path inside the workspace and writes content verbatim (CRLF, no final newline)', async () => {
    const ws = tempDir();
    const content = 'a\r\nb';
    const data = ok(await runWrite({ path: join(ws, 'sub', 'c.txt'), content }, ctx(ws)));
    expect(data.path).toBe('sub/c.txt');
    expect(readFileSync(join(ws, 'sub/c.txt'))).toEqual(Buffer.from(content));
  });

  it('creates an empty file', async () => {
    const ws = tempDir();
    const data = ok(await runWrite({ path: 'empty', content: '' }, ctx(ws)));
    expect(readFileSync(join(ws, 'empty')).length).toBe(0);
    expect(data).toMatchObject({ bytes: 0, sha256: sha('') });
  });
});

describe('write: replacing files needs a fresh read credential (FT2, FT3 conflicts)', () => {
  it('refuses to replace an unread file with ReadRequired and changes nothing', async () => {
    const ws = tempDir();
    writeTree(ws, { 'a.txt': 'old\n' });
    const r = await runWrite({ path: 'a.txt', content: 'new\n' }, ctx(ws));
    expect(r).toMatchObject({ isError: true, errorCode: 'ReadRequired' });
    expect(r.output).toMatch(/^ReadRequired: a\.txt exists .*\nRequired action: Read a\.txt with the read tool/);
    expect(r.data).toMatchObject({
      status: 'conflict',
      conflict: 'ReadRequired',
      resource: 'a.txt',
      currentDigest: sha('old\n'),
    });
    expect(r.data!.operationDigest).toMatch(/^[0-9a-f]{64}$/);
    expect(text(ws, 'a.txt')).toBe('old\n');
    noTemps(ws);
  });

  it('treats a context without a credentials callback as holding no credentials', async () => {
    const ws = tempDir();
    writeTree(ws, { 'a.txt': 'old\n' });
    const r = await runWrite({ path: 'a.txt', content: 'new\n' }, { workspace: ws });
    expect(r.errorCode).toBe('ReadRequired');
    expect(text(ws, 'a.txt')).toBe('old\n');
  });

  it('refuses a stale credential with StaleRead and changes nothing', async () => {
    const ws = tempDir();
    writeTree(ws, { 'a.txt': 'old\n' });
    const store = await new CredentialStore().read(ws, 'a.txt');
    writeFileSync(join(ws, 'a.txt'), 'edited elsewhere\n');
    const r = await runWrite({ path: 'a.txt', content: 'new\n' }, ctx(ws, store));
    expect(r).toMatchObject({ isError: true, errorCode: 'StaleRead' });
    expect(r.data).toMatchObject({
      conflict: 'StaleRead',
      resource: 'a.txt',
      currentDigest: sha('edited elsewhere\n'),
    });
    expect(r.output).toContain('Required action: Read a.txt again');
    expect(text(ws, 'a.txt')).toBe('edited elsewhere\n');
  });

  it('replaces a file read in this session, keeps its permission bits and returns the new credential', async () => {
    const ws = tempDir();
    writeTree(ws, { 'bin/run.sh': 'echo old\n' });
    chmodSync(join(ws, 'bin/run.sh'), 0o750);
    const store = await new CredentialStore().read(ws, 'bin/run.sh');
    const data = ok(await runWrite({ path: 'bin/run.sh', content: 'echo new\n' }, ctx(ws, store)));
    expect(text(ws, 'bin/run.sh')).toBe('echo new\n');
    expect(statSync(join(ws, 'bin/run.sh')).mode & 0o777).toBe(0o750);
    expect(data).toMatchObject({ op: 'replace', changedPaths: ['bin/run.sh'], sha256: sha('echo new\n') });
    expect(data.diff).toBe('--- a/bin/run.sh\n+++ b/bin/run.sh\n@@ -1 +1 @@\n-echo old\n+echo new\n');
    await expectCredentialMatchesFile(ws, data.credential as ReadCredential);
    noTemps(ws);
  });

  it("the write's credential lets apply_patch and a second write go ahead without a re-read", async () => {
    const ws = tempDir();
    const store = new CredentialStore();
    const first = ok(await runWrite({ path: 'f.ts', content: 'one\ntwo\n' }, ctx(ws, store)));
    const cred = first.credential as ReadCredential;
    store.byPath.set(cred.path, cred);
    const r = await applyPatch(parsePatch(patch('*** Update File: f.ts', '@@', ' one', '-two', '+TWO')), {
      workspace: ws,
      credentials: store.lookup,
    });
    expect(r.status, JSON.stringify(r)).toBe('applied');
    expect(text(ws, 'f.ts')).toBe('one\nTWO\n');
    if (r.status === 'applied') store.record(r.changes);
    const second = ok(await runWrite({ path: 'f.ts', content: 'three\n' }, ctx(ws, store)));
    expect(second.op).toBe('replace');
    expect(text(ws, 'f.ts')).toBe('three\n');
    // the credential of the first write is stale now
    store.byPath.set(cred.path, cred);
    expect((await runWrite({ path: 'f.ts', content: 'four\n' }, ctx(ws, store))).errorCode).toBe('StaleRead');
  });

  it('writing the content the file already has is a success that writes nothing', async () => {
    const ws = tempDir();
    writeTree(ws, { 'a.txt': 'same\n' });
    const before = statSync(join(ws, 'a.txt'));
    const store = await new CredentialStore().read(ws, 'a.txt');
    const data = ok(await runWrite({ path: 'a.txt', content: 'same\n' }, ctx(ws, store)));
    expect(data).toMatchObject({ op: 'unchanged', changedPaths: [], writtenPaths: [] });
    expect(statSync(join(ws, 'a.txt')).ino).toBe(before.ino);
    await expectCredentialMatchesFile(ws, data.credential as ReadCredential);
  });

  it('replaces a binary file (no diff) when it was read', async () => {
    const ws = tempDir();
    writeTree(ws, { 'b.bin': Buffer.from([0, 1, 2, 0xff]) });
    const store = await new CredentialStore().read(ws, 'b.bin');
    const data = ok(await runWrite({ path: 'b.bin', content: 'text now' }, ctx(ws, store)));
    expect(data).toMatchObject({ op: 'replace', diff: null, diffOmitted: 'not_text' });
    expect(text(ws, 'b.bin')).toBe('text now');
  });

  it('follows a final-segment symlink inside the workspace once: the target is replaced, the link survives', async () => {
    const ws = tempDir();
    writeTree(ws, { 'real/t.txt': 'old\n' });
    symlinkSync('real/t.txt', join(ws, 'link.txt'));
    expect((await runWrite({ path: 'link.txt', content: 'new\n' }, ctx(ws))).errorCode).toBe('ReadRequired');
    const store = await new CredentialStore().read(ws, 'link.txt'); // credential is for the canonical path
    const data = ok(await runWrite({ path: 'link.txt', content: 'new\n' }, ctx(ws, store)));
    expect(data.path).toBe('real/t.txt');
    expect(text(ws, 'real/t.txt')).toBe('new\n');
    expect(snapshot(ws)['link.txt']).toBe('file:new\n');
    expect(readdirSync(ws).sort()).toEqual(['link.txt', 'real']);
  });

  it('a file that changes between the check and the rename is a conflict and nothing is published', async () => {
    const ws = tempDir();
    writeTree(ws, { 'a.txt': 'old\n' });
    const store = await new CredentialStore().read(ws, 'a.txt');
    const r = await runWrite(
      { path: 'a.txt', content: 'new\n' },
      ctx(ws, store, { hooks: { afterPrepare: () => writeFileSync(join(ws, 'a.txt'), 'raced\n') } }),
    );
    expect(r.errorCode).toBe('StaleRead');
    expect(text(ws, 'a.txt')).toBe('raced\n');
    noTemps(ws);

    const r2 = await runWrite(
      { path: 'new/b.txt', content: 'mine\n' },
      ctx(ws, store, { hooks: { afterPrepare: () => writeFileSync(join(ws, 'new/b.txt'), 'theirs\n') } }),
    );
    expect(r2.errorCode).toBe('ReadRequired');
    expect(text(ws, 'new/b.txt')).toBe('theirs\n');
    noTemps(ws);
  });

  it('a failure of the publishing rename is uncertain, with the paths observed changed', async () => {
    const ws = tempDir();
    writeTree(ws, { 'd/a.txt': 'old\n' });
    const store = await new CredentialStore().read(ws, 'd/a.txt');
    const r = await runWrite(
      { path: 'd/a.txt', content: 'new\n' },
      ctx(ws, store, {
        hooks: {
          beforePublishStep: () => {
            for (const f of readdirSync(join(ws, 'd'))) if (f.endsWith('.zuno-tmp')) unlinkSync(join(ws, 'd', f));
          },
        },
      }),
    );
    expect(r).toMatchObject({ isError: true, errorCode: 'uncertain', data: { changedPaths: [] } });
    expect(r.output).toMatch(/do not resend the write unchanged/);
    expect(text(ws, 'd/a.txt')).toBe('old\n');
  });
});

describe('write: refusals', () => {
  it('rejects paths escaping the workspace with a typed error and writes nothing outside', async () => {
    const parent = tempDir();
    const ws = join(parent, 'ws');
    mkdirSync(ws);
    mkdirSync(join(parent, 'outside'));
    symlinkSync(join(parent, 'outside'), join(ws, 'out'));
    for (const path of ['../escape.txt', join(parent, 'outside', 'abs.txt'), 'out/via-link.txt', 'a/../../x.txt']) {
      const r = await runWrite({ path, content: 'x' }, ctx(ws));
      expect(r, path).toMatchObject({ isError: true, errorCode: 'path_outside_workspace' });
    }
    expect(readdirSync(join(parent, 'outside'))).toEqual([]);
    expect(existsSync(join(parent, 'escape.txt'))).toBe(false);
    expect(existsSync(join(parent, 'x.txt'))).toBe(false);
  });

  it('rejects a symlinked final segment leading outside the workspace', async () => {
    const parent = tempDir();
    const ws = join(parent, 'ws');
    mkdirSync(ws);
    writeFileSync(join(parent, 'secret.txt'), 'keep\n');
    symlinkSync(join(parent, 'secret.txt'), join(ws, 's.txt'));
    const r = await runWrite({ path: 's.txt', content: 'x' }, ctx(ws));
    expect(r.errorCode).toBe('path_outside_workspace');
    expect(readFileSync(join(parent, 'secret.txt'), 'utf8')).toBe('keep\n');
  });

  it('rejects directories, the root, trailing separators and a file used as a directory', async () => {
    const ws = tempDir();
    writeTree(ws, { 'dir/x.txt': 'x', 'file.txt': 'f' });
    expect((await runWrite({ path: 'dir', content: 'x' }, ctx(ws))).errorCode).toBe('not_a_file');
    expect((await runWrite({ path: 'dir/', content: 'x' }, ctx(ws))).errorCode).toBe('invalid_path');
    expect((await runWrite({ path: '.', content: 'x' }, ctx(ws))).errorCode).toBe('invalid_path');
    expect((await runWrite({ path: 'file.txt/y', content: 'x' }, ctx(ws))).errorCode).toBe('not_a_directory');
    expect((await runWrite({ path: 'a\0b', content: 'x' }, ctx(ws))).errorCode).toBe('invalid_path');
    expect(snapshot(ws)).toEqual({ dir: 'dir', 'dir/x.txt': 'file:x', 'file.txt': 'file:f' });
  });

  it('rejects malformed arguments and honours an aborted signal', async () => {
    const ws = tempDir();
    const bad = await runWrite({ path: 'a.txt' } as never, ctx(ws));
    expect(bad).toMatchObject({ isError: true, errorCode: 'invalid_arguments' });
    const ac = new AbortController();
    ac.abort();
    const r = await runWrite({ path: 'a.txt', content: 'x' }, ctx(ws, undefined, { signal: ac.signal }));
    expect(r).toMatchObject({ isError: true, errorCode: 'cancelled' });
    expect(readdirSync(ws)).toEqual([]);
  });

  it('reports an unusable workspace root', async () => {
    const ws = join(tempDir(), 'missing');
    expect((await runWrite({ path: 'a', content: 'x' }, ctx(ws))).errorCode).toBe('workspace_unavailable');
  });
});
