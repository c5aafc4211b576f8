import { createHash } from 'node:crypto';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  applyPatch,
  createMutationLock,
  parsePatch,
  renderApplyPatchResult,
  type ApplyPatchContext,
  type ApplyPatchResult,
  type PatchApplied,
  type PatchConflictResult,
} from '../../../activities/tools/apply-patch/index.js';
import { CredentialStore, listFiles, patch, snapshot, tempDir, writeTree } from './helpers.js';

const sha = (b: string | Buffer) => createHash('sha256').update(b).digest('hex');
const read = (ws: string, p: string) => readFileSync(join(ws, p), 'utf8');

async function apply(ws: string, text: string, store: CredentialStore, extra: Partial<ApplyPatchContext> = {}) {
  return applyPatch(parsePatch(text), { workspace: ws, credentials: store.lookup, ...extra });
}
function applied(r: ApplyPatchResult): PatchApplied {
  expect(r.status, JSON.stringify(r)).toBe('applied');
  return r as PatchApplied;
}
function conflict(r: ApplyPatchResult): PatchConflictResult {
  expect(r.status, JSON.stringify(r)).toBe('conflict');
  return r as PatchConflictResult;
}
const noTemps = (ws: string) => expect(listFiles(ws).filter((f) => f.includes('.zuno-tmp'))).toEqual([]);

describe('applyPatch: success and change records (FT3, FT6)', () => {
  it('applies add/update/delete/move and reports diffs, digests and fresh credentials', async () => {
    const ws = tempDir();
    writeTree(ws, { 'src/a.ts': 'one\ntwo\nthree\n', 'gone.txt': 'bye\n', 'old/name.txt': 'x\n' });
    const store = await new CredentialStore().read(ws, 'src/a.ts', 'gone.txt', 'old/name.txt');
    const r = applied(
      await apply(
        ws,
        patch(
          '*** Add File: src/new/b.ts',
          '+hello',
          '*** Update File: src/a.ts',
          '@@',
          ' one',
          '-two',
          '+TWO',
          '*** Delete File: gone.txt',
          '*** Update File: old/name.txt',
          '*** Move to: renamed/dir/name.txt',
          '@@',
          '-x',
          '+y',
        ),
        store,
      ),
    );
    expect(snapshot(ws)).toEqual({
      src: 'dir',
      'src/a.ts': 'file:one\nTWO\nthree\n',
      'src/new': 'dir',
      'src/new/b.ts': 'file:hello\n',
      old: 'dir',
      renamed: 'dir',
      'renamed/dir': 'dir',
      'renamed/dir/name.txt': 'file:y\n',
    });
    expect(r.changes.map((c) => [c.op, c.path, c.from])).toEqual([
      ['add', 'src/new/b.ts', undefined],
      ['update', 'src/a.ts', undefined],
      ['delete', 'gone.txt', undefined],
      ['move', 'renamed/dir/name.txt', 'old/name.txt'],
    ]);
    expect(r.changes[0]!.diff).toBe('--- /dev/null\n+++ b/src/new/b.ts\n@@ -0,0 +1 @@\n+hello\n');
    expect(r.changes[1]!.diff).toBe('--- a/src/a.ts\n+++ b/src/a.ts\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n');
    expect(r.changes[2]!.diff).toBe('--- a/gone.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n');
    expect(r.changes[3]!.diff).toBe('--- a/old/name.txt\n+++ b/renamed/dir/name.txt\n@@ -1 +1 @@\n-x\n+y\n');
    expect(r.changes[1]!.newSha256).toBe(sha('one\nTWO\nthree\n'));
    expect(r.changes[2]!.newSha256).toBeUndefined();
    expect(r.changes[1]!.operationDigest).toMatch(/^[0-9a-f]{64}$/);
    expect(r.changes[1]!.credential).toMatchObject({ path: 'src/a.ts', sha256: sha('one\nTWO\nthree\n'), bytes: 14 });
    expect(r.changes[2]!.credential).toBeUndefined();
    noTemps(ws);
    const rendered = renderApplyPatchResult(r);
    expect(rendered).toMatchObject({ isError: false });
    expect(rendered.output).toBe(
      'Success. Updated the following files:\nA src/new/b.ts\nM src/a.ts\nD gone.txt\nR old/name.txt -> renamed/dir/name.txt',
    );
  });

  it('diffs only the changed regions of a large file, with 3 lines of context', async () => {
    const ws = tempDir();
    const lines = Array.from({ length: 5000 }, (_, i) => `line ${i + 1}`);
    writeTree(ws, { 'big.txt': `${lines.join('\n')}\n` });
    const store = await new CredentialStore().read(ws, 'big.txt');
    const r = applied(
      await apply(
        ws,
        patch('*** Update File: big.txt', '@@', '-line 10', '+ten', '@@', '-line 4000', '+four thousand'),
        store,
      ),
    );
    expect(r.changes[0]!.diff).toBe(
      [
        '--- a/big.txt',
        '+++ b/big.txt',
        '@@ -7,7 +7,7 @@',
        ' line 7',
        ' line 8',
        ' line 9',
        '-line 10',
        '+ten',
        ' line 11',
        ' line 12',
        ' line 13',
        '@@ -3997,7 +3997,7 @@',
        ' line 3997',
        ' line 3998',
        ' line 3999',
        '-line 4000',
        '+four thousand',
        ' line 4001',
        ' line 4002',
        ' line 4003',
        '',
      ].join('\n'),
    );
  });

  it('a pure rename moves the bytes as they are (even a binary file)', async () => {
    const ws = tempDir();
    const bin = Buffer.from([0, 1, 2, 255, 0]);
    writeTree(ws, { 'a.bin': bin });
    const store = await new CredentialStore().read(ws, 'a.bin');
    const r = applied(await apply(ws, patch('*** Update File: a.bin', '*** Move to: b/c.bin'), store));
    expect(readFileSync(join(ws, 'b/c.bin'))).toEqual(bin);
    expect(listFiles(ws)).toEqual(['b/c.bin']);
    expect(r.changes[0]).toMatchObject({
      op: 'move',
      from: 'a.bin',
      path: 'b/c.bin',
      diff: '--- a/a.bin\n+++ b/b/c.bin\n',
    });
  });

  it('fuzzy matching (trailing space, indentation, typographic punctuation) keeps the file’s own context lines', async () => {
    const ws = tempDir();
    writeTree(ws, { 'f.py': 'def f():   \n    x = “hi” – ok\n    return x\n' });
    const store = await new CredentialStore().read(ws, 'f.py');
    const r = applied(
      await apply(
        ws,
        patch('*** Update File: f.py', '@@ def f():', ' x = "hi" - ok', '-return x', '+    return x + 1'),
        store,
      ),
    );
    expect(read(ws, 'f.py')).toBe('def f():   \n    x = “hi” – ok\n    return x + 1\n');
    expect(r.changes[0]!.fuzz).toBe(3);
  });

  it('a hunk without old lines inserts after its header, or at the end without one', async () => {
    const ws = tempDir();
    writeTree(ws, { 'a.txt': 'head\nbody\ntail\n' });
    const store = await new CredentialStore().read(ws, 'a.txt');
    applied(await apply(ws, patch('*** Update File: a.txt', '@@ head', '+after head', '@@', '+at end'), store));
    expect(read(ws, 'a.txt')).toBe('head\nafter head\nbody\ntail\nat end\n');
  });

  it('follows a final-segment symlink once: the target changes, the link survives', async () => {
    const ws = tempDir();
    writeTree(ws, { 'real.txt': 'a\n' });
    symlinkSync('real.txt', join(ws, 'link.txt'));
    const store = await new CredentialStore().read(ws, 'link.txt'); // read reports the canonical path real.txt
    expect([...store.byPath.keys()]).toEqual(['real.txt']);
    applied(await apply(ws, patch('*** Update File: link.txt', '@@', '-a', '+b'), store));
    expect(read(ws, 'real.txt')).toBe('b\n');
    expect(lstatSync(join(ws, 'link.txt')).isSymbolicLink()).toBe(true);
  });
});

describe('formatting is kept: BOM, CRLF, final newline (FT3)', () => {
  it('keeps a BOM and CRLF line endings', async () => {
    const ws = tempDir();
    writeTree(ws, { 'w.cs': '\uFEFFusing A;\r\nclass B {\r\n  int x;\r\n}\r\n' });
    const store = await new CredentialStore().read(ws, 'w.cs');
    applied(
      await apply(ws, patch('*** Update File: w.cs', '@@ class B {', '-  int x;', '+  int y;', '+  int z;'), store),
    );
    expect(readFileSync(join(ws, 'w.cs'))).toEqual(
      Buffer.from('\uFEFFusing A;\r\nclass B {\r\n  int y;\r\n  int z;\r\n}\r\n'),
    );
  });

  it('keeps a missing final newline, LF and CRLF, also when appending at the end', async () => {
    const ws = tempDir();
    writeTree(ws, { 'lf.txt': 'a\nb', 'crlf.txt': 'a\r\nb', 'tail.txt': 'x\ny' });
    const store = await new CredentialStore().read(ws, 'lf.txt', 'crlf.txt', 'tail.txt');
    const r = applied(
      await apply(
        ws,
        patch(
          '*** Update File: lf.txt',
          '@@',
          '-b',
          '+B',
          '*** Update File: crlf.txt',
          '@@',
          ' a',
          '-b',
          '+B',
          '*** End of File',
          '*** Update File: tail.txt',
          '@@',
          '+z',
        ),
        store,
      ),
    );
    expect(readFileSync(join(ws, 'lf.txt'), 'latin1')).toBe('a\nB');
    expect(readFileSync(join(ws, 'crlf.txt'), 'latin1')).toBe('a\r\nB');
    expect(readFileSync(join(ws, 'tail.txt'), 'latin1')).toBe('x\ny\nz');
    expect(r.changes[0]!.diff).toBe(
      '--- a/lf.txt\n+++ b/lf.txt\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+B\n\\ No newline at end of file\n',
    );
  });

  it('a file that has a final newline keeps it; an Add overwriting a CRLF file writes CRLF', async () => {
    const ws = tempDir();
    writeTree(ws, { 'n.txt': 'a\n', 'w.txt': 'old\r\ntext\r\n' });
    const store = await new CredentialStore().read(ws, 'n.txt', 'w.txt');
    applied(
      await apply(ws, patch('*** Update File: n.txt', '@@', '-a', '+b', '*** Add File: w.txt', '+new', '+text'), store),
    );
    expect(read(ws, 'n.txt')).toBe('b\n');
    expect(read(ws, 'w.txt')).toBe('new\r\ntext\r\n');
  });
});

describe('line endings are kept per line, the BOM once per file (FT3)', () => {
  it('a replaced line keeps the ending of the line it replaces in a mixed CRLF/LF file, matched exactly', async () => {
    const ws = tempDir();
    writeTree(ws, { 'm.txt': 'a\r\nb\r\nc\r\nd\n' });
    const store = await new CredentialStore().read(ws, 'm.txt');
    const r = applied(await apply(ws, patch('*** Update File: m.txt', '@@', ' a', '-b', '+B', ' c'), store));
    expect(readFileSync(join(ws, 'm.txt'), 'latin1')).toBe('a\r\nB\r\nc\r\nd\n');
    expect(r.changes[0]!.fuzz).toBe(0);
  });

  it('an added line takes the ending of the line it follows (or, at the top, of the line it precedes)', async () => {
    const ws = tempDir();
    writeTree(ws, { 'm.txt': 'a\r\nb\nc\r\nd\n' });
    const store = await new CredentialStore().read(ws, 'm.txt');
    applied(
      await apply(
        ws,
        patch('*** Update File: m.txt', '@@', '+top', ' a', '-b', '+B', '+B2', ' c', '+c2', ' d', '+e'),
        store,
      ),
    );
    // top precedes a (CRLF); B replaces b (LF); B2 follows B (LF); c2 follows c (CRLF); e follows d (LF)
    expect(readFileSync(join(ws, 'm.txt'), 'latin1')).toBe('top\r\na\r\nB\nB2\nc\r\nc2\r\nd\ne\n');
  });

  it('a hunk whose first lines carry the BOM edits a BOM file exactly and keeps one BOM', async () => {
    const ws = tempDir();
    writeTree(ws, { 'b.txt': '\uFEFFfirst\nnext\n' });
    const store = await new CredentialStore().read(ws, 'b.txt');
    const r = applied(
      await apply(ws, patch('*** Update File: b.txt', '@@', '-\uFEFFfirst', '+\uFEFFFIRST', ' next'), store),
    );
    expect(readFileSync(join(ws, 'b.txt'))).toEqual(Buffer.from('\uFEFFFIRST\nnext\n'));
    expect(r.changes[0]!.fuzz).toBe(0);
    expect(renderApplyPatchResult(r).output).toBe('Success. Updated the following files:\nM b.txt');
  });
});

describe('conflicts are typed and write nothing (FT3)', () => {
  it('ReadRequired: updating a file that was never read', async () => {
    const ws = tempDir();
    writeTree(ws, { 'a.txt': 'a\n' });
    const text = patch('*** Update File: a.txt', '@@', '-a', '+b');
    const c = conflict(await apply(ws, text, new CredentialStore()));
    expect(c).toMatchObject({
      conflict: 'ReadRequired',
      resource: 'a.txt',
      currentDigest: sha('a\n'),
      others: [],
    });
    expect(c.operationDigest).toMatch(/^[0-9a-f]{64}$/);
    expect(c.requiredAction).toMatch(/^Read a\.txt with the read tool/);
    expect(c.hunk).toBeUndefined();
    expect(read(ws, 'a.txt')).toBe('a\n');
    const rendered = renderApplyPatchResult(c);
    expect(rendered).toMatchObject({ isError: true, errorCode: 'ReadRequired' });
    expect(rendered.output).toContain('Required action: Read a.txt');
  });

  it('ReadRequired lists every unread file at once, and deletes need credentials too', async () => {
    const ws = tempDir();
    writeTree(ws, { 'a.txt': 'a\n', 'b.txt': 'b\n', 'c.txt': 'c\n' });
    const store = await new CredentialStore().read(ws, 'b.txt');
    const c = conflict(
      await apply(
        ws,
        patch('*** Delete File: a.txt', '*** Update File: b.txt', '@@', '-b', '+B', '*** Delete File: c.txt'),
        store,
      ),
    );
    expect([c.conflict, c.resource]).toEqual(['ReadRequired', 'a.txt']);
    expect(c.others.map((o) => [o.conflict, o.resource])).toEqual([['ReadRequired', 'c.txt']]);
    expect(listFiles(ws).sort()).toEqual(['a.txt', 'b.txt', 'c.txt']);
    expect(read(ws, 'b.txt')).toBe('b\n');
  });

  it('StaleRead: the file changed after it was read', async () => {
    const ws = tempDir();
    writeTree(ws, { 'a.txt': 'a\n' });
    const store = await new CredentialStore().read(ws, 'a.txt');
    const readDigest = store.byPath.get('a.txt')!.sha256;
    writeFileSync(join(ws, 'a.txt'), 'a\nmore\n');
    const c = conflict(await apply(ws, patch('*** Update File: a.txt', '@@', '-a', '+b'), store));
    expect(c).toMatchObject({ conflict: 'StaleRead', resource: 'a.txt', currentDigest: sha('a\nmore\n') });
    expect(c.currentDigest).not.toBe(readDigest);
    expect(c.requiredAction).toMatch(/Read a\.txt again/);
    expect(read(ws, 'a.txt')).toBe('a\nmore\n');
  });

  it('ContextMismatch names the hunk (number, header) when its lines are not found', async () => {
    const ws = tempDir();
    writeTree(ws, { 'a.ts': 'function a() {\n  return 1;\n}\nfunction b() {\n  return 2;\n}\n' });
    const store = await new CredentialStore().read(ws, 'a.ts');
    const c = conflict(
      await apply(
        ws,
        patch(
          '*** Update File: a.ts',
          '@@ function a() {',
          '-  return 1;',
          '+  return 10;',
          '@@ function b() {',
          '-  return 3;',
          '+  return 30;',
        ),
        store,
      ),
    );
    expect(c).toMatchObject({
      conflict: 'ContextMismatch',
      resource: 'a.ts',
      currentDigest: sha(read(ws, 'a.ts')),
      hunk: { index: 2, header: 'function b() {', patchLine: 6, reason: 'context_not_found' },
    });
    expect(c.requiredAction).toMatch(/smaller patch with fresh context/);
    expect(read(ws, 'a.ts')).toContain('return 1;'); // hunk 1 matched but nothing was written
  });

  it('ContextMismatch for ambiguous context; a header disambiguates', async () => {
    const ws = tempDir();
    const src = 'class A {\n  x = 1;\n}\nclass B {\n  x = 1;\n}\n';
    writeTree(ws, { 'm.ts': src });
    const store = await new CredentialStore().read(ws, 'm.ts');
    const c = conflict(await apply(ws, patch('*** Update File: m.ts', '@@', '-  x = 1;', '+  x = 2;'), store));
    expect(c.hunk).toEqual({ index: 1, patchLine: 3, reason: 'ambiguous', candidates: [2, 5] });
    expect(c.requiredAction).toMatch(/unique/);
    expect(read(ws, 'm.ts')).toBe(src);
    applied(await apply(ws, patch('*** Update File: m.ts', '@@ class B {', '-  x = 1;', '+  x = 2;'), store));
    expect(read(ws, 'm.ts')).toBe('class A {\n  x = 1;\n}\nclass B {\n  x = 2;\n}\n');
  });

  it('a header that itself repeats does not disambiguate', async () => {
    const ws = tempDir();
    writeTree(ws, { 'p.py': 'class A:\n  def f():\n    pass\nclass B:\n  def f():\n    pass\n' });
    const store = await new CredentialStore().read(ws, 'p.py');
    const c = conflict(
      await apply(ws, patch('*** Update File: p.py', '@@ def f():', '-    pass', '+    return 1'), store),
    );
    expect(c.hunk).toMatchObject({ reason: 'ambiguous', header: 'def f():', candidates: [3, 6] });
  });

  it('IdenticalReplay: the same operation again on the content it produced (credential stamp)', async () => {
    const ws = tempDir();
    writeTree(ws, { 'log.txt': 'start\n' });
    const store = await new CredentialStore().read(ws, 'log.txt');
    const text = patch('*** Update File: log.txt', '@@', '+appended'); // pure addition: would apply again
    const first = applied(await apply(ws, text, store));
    store.record(first.changes); // the session keeps the credential apply_patch issued
    const c = conflict(await apply(ws, text, store));
    expect(c).toMatchObject({
      conflict: 'IdenticalReplay',
      resource: 'log.txt',
      operationDigest: first.changes[0]!.operationDigest,
      currentDigest: sha('start\nappended\n'),
    });
    expect(c.requiredAction).toMatch(/^Do not resend this operation unchanged/);
    expect(read(ws, 'log.txt')).toBe('start\nappended\n');
    // after a fresh read the same operation is a new, deliberate one
    await store.read(ws, 'log.txt');
    applied(await apply(ws, text, store));
    expect(read(ws, 'log.txt')).toBe('start\nappended\nappended\n');
  });

  it('IdenticalReplay: hunks found already applied, and an Add with identical content', async () => {
    const ws = tempDir();
    writeTree(ws, { 'a.txt': 'x\nold\ny\n', 'b.txt': 'same\n' });
    const store = await new CredentialStore().read(ws, 'a.txt', 'b.txt');
    const text = patch('*** Update File: a.txt', '@@', ' x', '-old', '+new', ' y');
    applied(await apply(ws, text, store));
    await store.read(ws, 'a.txt'); // even with a fresh read (no stamp)
    const c = conflict(await apply(ws, text, store));
    expect(c).toMatchObject({ conflict: 'IdenticalReplay', resource: 'a.txt', currentDigest: sha('x\nnew\ny\n') });
    expect(c.message).toMatch(/already applied/);
    const add = conflict(await apply(ws, patch('*** Add File: b.txt', '+same'), store));
    expect(add).toMatchObject({ conflict: 'IdenticalReplay', resource: 'b.txt' });
    // a bare deletion of a line that is not there is no evidence of a replay
    const gone = conflict(await apply(ws, patch('*** Update File: a.txt', '@@', '-never there'), store));
    expect(gone).toMatchObject({ conflict: 'ContextMismatch', hunk: { index: 1, reason: 'context_not_found' } });
  });

  it('moving onto an existing file needs its credential', async () => {
    const ws = tempDir();
    writeTree(ws, { 'src.txt': 'from\n', 'dst/t.txt': 'existing\n' });
    const store = await new CredentialStore().read(ws, 'src.txt');
    const text = patch('*** Update File: src.txt', '*** Move to: dst/t.txt', '@@', '-from', '+new');
    const c = conflict(await apply(ws, text, store));
    expect(c).toMatchObject({ conflict: 'ReadRequired', resource: 'dst/t.txt', currentDigest: sha('existing\n') });
    expect(snapshot(ws)).toEqual({ 'src.txt': 'file:from\n', dst: 'dir', 'dst/t.txt': 'file:existing\n' });
    await store.read(ws, 'dst/t.txt');
    const r = applied(await apply(ws, text, store));
    expect(snapshot(ws)).toEqual({ dst: 'dir', 'dst/t.txt': 'file:new\n' });
    expect(r.changes[0]).toMatchObject({ op: 'move', from: 'src.txt', path: 'dst/t.txt' });
  });

  it('adding a file that exists overwrites it only with a credential', async () => {
    const ws = tempDir();
    writeTree(ws, { 'dup.txt': 'old\n' });
    const text = patch('*** Add File: dup.txt', '+new');
    expect(conflict(await apply(ws, text, new CredentialStore()))).toMatchObject({
      conflict: 'ReadRequired',
      resource: 'dup.txt',
    });
    expect(read(ws, 'dup.txt')).toBe('old\n');
    applied(await apply(ws, text, await new CredentialStore().read(ws, 'dup.txt')));
    expect(read(ws, 'dup.txt')).toBe('new\n');
  });

  it('zero writes when the 2nd of 3 files conflicts', async () => {
    const ws = tempDir();
    writeTree(ws, { 'one.txt': '1\n', 'two.txt': '2\n', 'three.txt': '3\n' });
    const store = await new CredentialStore().read(ws, 'one.txt', 'two.txt', 'three.txt');
    writeFileSync(join(ws, 'two.txt'), '2 changed\n');
    const before = snapshot(ws);
    const c = conflict(
      await apply(
        ws,
        patch(
          '*** Update File: one.txt',
          '@@',
          '-1',
          '+one',
          '*** Update File: two.txt',
          '@@',
          '-2',
          '+two',
          '*** Delete File: three.txt',
          '*** Add File: four/new.txt',
          '+4',
        ),
        store,
      ),
    );
    expect([c.conflict, c.resource]).toEqual(['StaleRead', 'two.txt']);
    expect(snapshot(ws)).toEqual(before);
    noTemps(ws);
  });

  it('a file changed by another process between pre-check and publish is StaleRead, zero writes', async () => {
    const ws = tempDir();
    writeTree(ws, { 'a.txt': 'a\n', 'b.txt': 'b\n' });
    const store = await new CredentialStore().read(ws, 'a.txt', 'b.txt');
    const c = conflict(
      await apply(
        ws,
        patch('*** Update File: a.txt', '@@', '-a', '+A', '*** Update File: b.txt', '@@', '-b', '+B'),
        store,
        {
          hooks: { afterPrepare: () => writeFileSync(join(ws, 'b.txt'), 'b, edited elsewhere\n') },
        },
      ),
    );
    expect(c).toMatchObject({ conflict: 'StaleRead', resource: 'b.txt', currentDigest: sha('b, edited elsewhere\n') });
    expect(snapshot(ws)).toEqual({ 'a.txt': 'file:a\n', 'b.txt': 'file:b, edited elsewhere\n' });
  });

  it('concurrent patches on one workspace are serialized by the mutation lock', async () => {
    const ws = tempDir();
    writeTree(ws, { 'a.txt': 'v0\n' });
    const store = await new CredentialStore().read(ws, 'a.txt');
    const [r1, r2] = await Promise.all([
      apply(ws, patch('*** Update File: a.txt', '@@', '-v0', '+v1'), store),
      apply(ws, patch('*** Update File: a.txt', '@@', '-v0', '+v2'), store),
    ]);
    // Whichever takes the lock first applies; the other then sees a stale read and writes nothing.
    const results = [r1, r2];
    const winner = results.findIndex((r) => r.status === 'applied');
    expect(winner).toBeGreaterThanOrEqual(0);
    expect(conflict(results[1 - winner]!).conflict).toBe('StaleRead');
    expect(read(ws, 'a.txt')).toBe(winner === 0 ? 'v1\n' : 'v2\n');
  });
});

describe('failures before writing and the uncertain outcome', () => {
  it('path escapes are refused: .., absolute outside, symlink leading out', async () => {
    const outer = tempDir();
    const ws = join(outer, 'ws');
    mkdirSync(ws);
    writeTree(outer, { 'secret.txt': 's\n' });
    symlinkSync(outer, join(ws, 'up'));
    const store = new CredentialStore();
    for (const p of ['../secret.txt', 'a/../../secret.txt', join(outer, 'secret.txt'), 'up/secret.txt', 'up/new.txt']) {
      const r = await apply(ws, patch(`*** Add File: ${p}`, '+x'), store);
      expect(r, p).toMatchObject({ status: 'failed', code: 'path_outside_workspace', path: p });
    }
    const del = await apply(ws, patch('*** Delete File: ../secret.txt'), store);
    expect(del).toMatchObject({ status: 'failed', code: 'path_outside_workspace' });
    expect(read(outer, 'secret.txt')).toBe('s\n');
    expect(readdirSync(outer).sort()).toEqual(['secret.txt', 'ws']);
    // an absolute path inside the workspace is fine
    applied(await apply(ws, patch(`*** Add File: ${join(ws, 'in.txt')}`, '+x'), store));
    expect(read(ws, 'in.txt')).toBe('x\n');
  });

  it('not_found, not_a_file, binary_file are ordinary failures with zero writes', async () => {
    const ws = tempDir();
    writeTree(ws, { 'dir/f.txt': 'f\n', 'bin.dat': Buffer.from([1, 0, 2]), 'ok.txt': 'ok\n' });
    const store = await new CredentialStore().read(ws, 'ok.txt', 'bin.dat');
    const before = snapshot(ws);
    const cases: Array<[string, string]> = [
      [patch('*** Add File: new.txt', '+n', '*** Update File: missing.txt', '@@', '-a', '+b'), 'not_found'],
      [patch('*** Update File: ok.txt', '@@', '-ok', '+OK', '*** Delete File: dir'), 'not_a_file'],
      [patch('*** Update File: bin.dat', '@@', '-a', '+b'), 'binary_file'],
      [patch('*** Add File: ok.txt/inner.txt', '+x'), 'not_a_directory'],
    ];
    for (const [text, code] of cases) {
      expect(await apply(ws, text, store), code).toMatchObject({ status: 'failed', code });
      expect(snapshot(ws)).toEqual(before);
    }
  });

  it('an I/O failure after publishing began is uncertain and lists the paths observed changed', async () => {
    const ws = tempDir();
    writeTree(ws, { 'a.txt': 'a\n', 'b.txt': 'b\n' });
    const store = await new CredentialStore().read(ws, 'a.txt', 'b.txt');
    const r = await apply(
      ws,
      patch('*** Update File: a.txt', '@@', '-a', '+A', '*** Update File: b.txt', '@@', '-b', '+B'),
      store,
      {
        hooks: {
          // a real failure: the temp file of the second rename disappears
          beforePublishStep: (index) => {
            if (index !== 1) return;
            for (const f of readdirSync(ws))
              if (f.startsWith('.b.txt.') && f.endsWith('.zuno-tmp')) unlinkSync(join(ws, f));
          },
        },
      },
    );
    expect(r).toMatchObject({ status: 'uncertain', uncertain: { changedPaths: ['a.txt'] } });
    if (r.status !== 'uncertain') return;
    expect(r.uncertain.cause).toMatch(/^ENOENT while publishing b\.txt \(step 2 of 2\)/);
    expect(r.message).toMatch(/do not resend the patch unchanged/);
    expect(snapshot(ws)).toEqual({ 'a.txt': 'file:A\n', 'b.txt': 'file:b\n' });
    noTemps(ws);
    expect(renderApplyPatchResult(r)).toMatchObject({ isError: true, errorCode: 'uncertain' });
  });
});

describe('stale temp files of an interrupted publish (FT3, FT4)', () => {
  const hex = '0123456789ab';
  const minutesAgo = (m: number) => new Date(Date.now() - m * 60_000);

  it('the next apply_patch removes stale temp files of Zuno naming in the directories it writes to, and nothing else', async () => {
    const ws = tempDir();
    const stale = `src/.a.txt.${hex}.zuno-tmp`;
    const staleOther = `src/.gone.md.${hex.replace('0', 'f')}.zuno-tmp`;
    const keep = [
      `src/.a.txt.${hex}.zuno-tmp.bak`,
      'src/a.txt.zuno-tmp',
      `src/.a.txt.${hex.toUpperCase()}.zuno-tmp`,
      'src/.a.txt.0123.zuno-tmp',
      `src/.${hex}.zuno-tmp`,
      `other/.a.txt.${hex}.zuno-tmp`, // a directory the patch does not write to
    ];
    const fresh = `src/.b.txt.${hex}.zuno-tmp`; // may belong to another process writing right now
    writeTree(ws, { 'src/a.txt': 'a\n', [stale]: 'half', [staleOther]: 'half', [fresh]: 'x' });
    for (const k of keep) writeTree(ws, { [k]: 'user data' });
    mkdirSync(join(ws, `src/.dir.${hex}.zuno-tmp`));
    for (const p of [stale, staleOther, ...keep]) utimesSync(join(ws, p), minutesAgo(5), minutesAgo(5));
    utimesSync(join(ws, `src/.dir.${hex}.zuno-tmp`), minutesAgo(5), minutesAgo(5));
    const store = await new CredentialStore().read(ws, 'src/a.txt');
    applied(await apply(ws, patch('*** Update File: src/a.txt', '@@', '-a', '+A'), store));
    expect(read(ws, 'src/a.txt')).toBe('A\n');
    expect(existsSync(join(ws, stale))).toBe(false);
    expect(existsSync(join(ws, staleOther))).toBe(false);
    for (const k of [...keep, fresh]) expect(read(ws, k), k).not.toBe('');
    expect(lstatSync(join(ws, `src/.dir.${hex}.zuno-tmp`)).isDirectory()).toBe(true);
  });

  it('never removes the temp file an apply_patch running now in this process holds', async () => {
    const ws = tempDir();
    writeTree(ws, { 'a.txt': 'a\n', 'b.txt': 'b\n' });
    const store = await new CredentialStore().read(ws, 'a.txt', 'b.txt');
    let second: ApplyPatchResult | undefined;
    const first = await apply(ws, patch('*** Update File: a.txt', '@@', '-a', '+A'), store, {
      lock: createMutationLock(),
      hooks: {
        afterPrepare: async () => {
          // make the held temp file look old, then publish another patch into the same directory
          const mine = readdirSync(ws).filter((f) => f.startsWith('.a.txt.') && f.endsWith('.zuno-tmp'));
          expect(mine).toHaveLength(1);
          utimesSync(join(ws, mine[0]!), minutesAgo(5), minutesAgo(5));
          second = await apply(ws, patch('*** Update File: b.txt', '@@', '-b', '+B'), store, {
            lock: createMutationLock(),
          });
          expect(existsSync(join(ws, mine[0]!))).toBe(true);
        },
      },
    });
    applied(first);
    applied(second!);
    expect(snapshot(ws)).toEqual({ 'a.txt': 'file:A\n', 'b.txt': 'file:B\n' });
  });
});
