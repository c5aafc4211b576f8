import { mkdirSync, mkdtempSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { evaluatePermission } from '../../core/permission/evaluate.js';
import type { PermissionRule } from '../../core/permission/types.js';
import { subjectCommands } from '../../activities/permission/commands.js';
import { subjectPath } from '../../activities/permission/paths.js';
import { callSubject, patchSubjectPaths } from '../../activities/permission/subject.js';
import { partsLine } from '../../client/approval-words.js';
import { shownSubject } from '../../core/permission/shown.js';

/**
 * A real workspace: src/a.ts, docs/, a link to src inside, a link to a
 * directory outside, a link to a file outside; the workspace itself is
 * reached through a symlink too.
 */
let base: string;
let ws: string;
let wsLink: string;
let outside: string;
beforeAll(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'zuno-perm-')));
  ws = join(base, 'ws');
  outside = join(base, 'outside');
  mkdirSync(join(ws, 'src'), { recursive: true });
  mkdirSync(join(ws, 'docs'));
  mkdirSync(outside);
  writeFileSync(join(ws, 'src', 'a.ts'), '');
  writeFileSync(join(outside, 'secret'), '');
  symlinkSync(join(ws, 'src'), join(ws, 'src-link'));
  symlinkSync(outside, join(ws, 'out-link'));
  symlinkSync(join(outside, 'secret'), join(ws, 'secret-link'));
  symlinkSync('../ws/docs', join(outside, 'back-in'));
  wsLink = join(base, 'ws-link');
  symlinkSync(ws, wsLink);
});

describe('paths: one spelling per file (real, workspace-relative)', () => {
  it.each<[string, (ws: string, outside: string) => string, (ws: string, outside: string) => string]>([
    ['plain', () => 'src/a.ts', () => 'src/a.ts'],
    ['./ and repeated separators', () => './src//./a.ts', () => 'src/a.ts'],
    ['.. that stays inside', () => 'docs/../src/a.ts', () => 'src/a.ts'],
    ['the root itself', () => '.', () => '.'],
    ['the root, empty', () => '', () => '.'],
    ['.. escaping the workspace', () => '../outside/secret', (_w, o) => join(o, 'secret')],
    ['.. escaping and re-entering', () => '../ws/src/a.ts', () => 'src/a.ts'],
    ['absolute inside', (w) => join(w, 'src/a.ts'), () => 'src/a.ts'],
    ['absolute outside', () => '/etc/passwd', () => realpathSync('/etc/passwd')],
    ['a new file', () => 'src/new/deep.ts', () => 'src/new/deep.ts'],
    ['a new file with .. in its missing part', () => 'src/new/../b.ts', () => 'src/b.ts'],
    ['symlink into the workspace', () => 'src-link/a.ts', () => 'src/a.ts'],
    ['a new file under a symlinked directory', () => 'src-link/new.ts', () => 'src/new.ts'],
    ['symlinked directory out of the workspace', () => 'out-link/secret', (_w, o) => join(o, 'secret')],
    ['a new file under a link out of the workspace', () => 'out-link/x/new', (_w, o) => join(o, 'x/new')],
    ['symlinked file out of the workspace', () => 'secret-link', (_w, o) => join(o, 'secret')],
    ['out through a link and back in through another', () => 'out-link/back-in/../src/a.ts', () => 'src/a.ts'],
    ['.. after a symlink is taken from its target', () => 'out-link/../ws/src/a.ts', () => 'src/a.ts'],
  ])('%s', async (_name, input, expected) => {
    expect(await subjectPath(ws, input(ws, outside))).toBe(expected(ws, outside));
  });

  it('a workspace given through a symlink gives the same spellings', async () => {
    expect(await subjectPath(wsLink, 'src/a.ts')).toBe('src/a.ts');
    expect(await subjectPath(wsLink, join(wsLink, 'src-link/a.ts'))).toBe('src/a.ts');
    expect(await subjectPath(wsLink, join(wsLink, 'docs/new.md'))).toBe('docs/new.md');
  });

  it('callSubject: read, write, glob and grep (default path: the root)', async () => {
    expect(await callSubject('read', { path: './src-link/a.ts' }, ws)).toEqual({ kind: 'paths', paths: ['src/a.ts'] });
    expect(await callSubject('write', { path: 'out-link/x', content: '' }, ws)).toEqual({
      kind: 'paths',
      paths: [join(outside, 'x')],
    });
    expect(await callSubject('glob', { pattern: '**/*.ts' }, ws)).toEqual({ kind: 'paths', paths: ['.'] });
    expect(await callSubject('grep', { pattern: 'x', path: 'docs/' }, ws)).toEqual({ kind: 'paths', paths: ['docs'] });
  });

  it('callSubject: no subject for tools without one, undeclared tools, refused arguments', async () => {
    expect(await callSubject('plan_update', { steps: [] }, ws)).toEqual({ kind: 'none' });
    expect(await callSubject('mcp_browser', { url: 'x' }, ws)).toEqual({ kind: 'none' });
    expect(await callSubject('read', { nope: 1 }, ws)).toEqual({ kind: 'none' });
  });
});

describe('apply_patch: every file of the patch, Move targets included', () => {
  const patch = [
    '*** Begin Patch',
    '*** Add File: docs/new.md',
    '+hello',
    '*** Delete File: src-link/old.ts',
    '*** Update File: src/a.ts',
    '*** Move to: ../outside/moved.ts',
    '@@',
    '-a',
    '+b',
    '*** End Patch',
  ].join('\n');

  it('normalized like any path', async () => {
    expect(await callSubject('apply_patch', { patch }, ws)).toEqual({
      kind: 'paths',
      paths: ['docs/new.md', 'src/old.ts', 'src/a.ts', join(outside, 'moved.ts')],
    });
  });

  it('CRLF, and text the parser refuses: the section headers are read', () => {
    expect(patchSubjectPaths(patch.replace(/\n/g, '\r\n'))).toEqual([
      'docs/new.md',
      'src-link/old.ts',
      'src/a.ts',
      '../outside/moved.ts',
    ]);
    const broken = '*** Begin Patch\r\n*** Update File: a.ts\r\n*** Move to: b.ts\r\nnot a hunk line\r\n';
    expect(patchSubjectPaths(broken)).toEqual(['a.ts', 'b.ts']);
  });
});

describe('shell: the simple commands of a call', () => {
  it.each<[string, string[], string[]?]>([
    ['rm -rf build', ['rm -rf build']],
    ['rm "-rf" x', ['rm -rf x']],
    ['rm \'-rf\' "x y"', ['rm -rf x y']],
    ['r\\m -r"f" a', ['rm -rf a']],
    ["$'\\x72m' -rf q", ['rm -rf q']],
    ["bash -c 'rm -rf x'", ['bash -c rm -rf x', 'rm -rf x']],
    ["sh -ec 'git push' arg0", ['sh -ec git push arg0', 'git push']],
    ['bash -c "bash -c \'rm -rf deep\'"', ["bash -c bash -c 'rm -rf deep'", 'bash -c rm -rf deep', 'rm -rf deep']],
    ["eval 'rm -rf z'", ['eval rm -rf z', 'rm -rf z']],
    ['bash -c "$CMD"', ['bash -c $CMD']],
    ['cat a | sh', ['cat a', 'sh']],
    ['make && make install || echo failed', ['make', 'make install', 'echo failed']],
    ['cd a; ls', ['cd a', 'ls']],
    ['(cd a && rm -rf b)', ['cd a', 'rm -rf b']],
    ['{ echo; rm x; }', ['echo', 'rm x']],
    ['if test -f x; then rm x; fi', ['test -f x', 'rm x']],
    ['for f in *.o; do rm "$f"; done', ['rm $f']],
    ['echo $(rm -rf y) "$HOME/x" *.ts', ['echo $(rm -rf y) $HOME/x *.ts', 'rm -rf y']],
    ['diff <(sort a) b', ['diff <(sort a) b', 'sort a']],
    ['cat <<EOF\n$(rm hd)\nEOF', ['cat', 'rm hd']],
    ['export A=$(whoami) B', ['export A=$(whoami) B', 'whoami']],
    ['echo hi > out.txt 2>&1', ['echo hi']],
    ['FOO=1 make', ['FOO=1 make'], ['make']],
    ['sudo -u root rm -rf /', ['sudo -u root rm -rf /'], ['rm -rf /']],
    [
      'env -i A=1 timeout 10 bash -c "rm -rf /"',
      ['env -i A=1 timeout 10 bash -c rm -rf /', 'rm -rf /'],
      ['bash -c rm -rf /'],
    ],
    ['find . | xargs -n 1 rm -f', ['find .', 'xargs -n 1 rm -f'], ['rm -f', 'rm -f <input>']],
    // `xargs rm` runs `rm` with arguments from its input: a rule `rm *` must see them.
    ['echo x | xargs rm', ['echo x', 'xargs rm'], ['rm', 'rm <input>']],
    // A path-qualified program is its base name to a rule.
    ['/bin/rm x', ['/bin/rm x'], ['rm x']],
    ['sudo /usr/bin/rm -rf y', ['sudo /usr/bin/rm -rf y'], ['/usr/bin/rm -rf y', 'rm -rf y']],
    // Wrappers only the permission subjects look through, with their positional arguments.
    ['ionice rm x', ['ionice rm x'], ['rm x']],
    ['flock /tmp/lk rm x', ['flock /tmp/lk rm x'], ['rm x']],
    ['chrt 0 rm x', ['chrt 0 rm x'], ['rm x']],
    ['busybox rm x', ['busybox rm x'], ['rm x']],
    ['ls &&', ['ls &&']],
  ])('%j', async (command, commands, unwrapped = []) => {
    expect(await subjectCommands(command)).toEqual({ commands, unwrapped });
  });

  it('callSubject: shell', async () => {
    expect(await callSubject('shell', { command: 'sudo make | sh' }, ws)).toEqual({
      kind: 'commands',
      commands: ['sudo make', 'sh'],
      unwrapped: ['make'],
      dynamic: [{ kind: 'interpreter_input', text: 'sh' }],
    });
  });
});

describe('subjects through the gate', () => {
  const deny: PermissionRule[] = [{ tool: 'shell', pattern: 'rm -rf*', action: 'deny' }];
  it.each([
    "bash -c 'rm -rf x'",
    'rm "-rf" x',
    'echo ok && rm -rf x',
    '(rm -rf x)',
    'ls $(rm -rf x)',
    'sudo rm -rf x',
    'FOO=1 rm -rf x',
    "sh -c 'cd /; rm -rf x'",
  ])('rm -rf* denies %j', async (command) => {
    const subject = await callSubject('shell', { command }, ws);
    expect(
      evaluatePermission({ mode: 'allow_all', rules: deny }, { tool: 'shell', effect: 'SideEffecting', subject }, []),
    ).toMatchObject({ action: 'deny', reason: 'rule shell "rm -rf*" → deny' });
  });

  it('a deny on a workspace path holds through .. and symlinks', async () => {
    const rules: PermissionRule[] = [{ tool: 'edit', pattern: 'src/*', action: 'deny' }];
    for (const path of ['src/a.ts', './src//a.ts', 'docs/../src/a.ts', 'src-link/a.ts', join(wsLink, 'src/b.ts')]) {
      const subject = await callSubject('write', { path, content: '' }, ws);
      const d = evaluatePermission(
        { mode: 'standard', rules },
        { tool: 'write', effect: 'SideEffecting', subject },
        [],
      );
      expect(d.action, path).toBe('deny');
    }
  });
});

describe('a part shows the words as bash reads them', () => {
  it('a carriage return between words is not a space: the part keeps it and the parts line shows it escaped', async () => {
    const command = 'echo visible\rrm -f victim.txt #';
    const subject = await callSubject('shell', { command }, ws);
    expect(subject).toMatchObject({ kind: 'commands', commands: ['echo visible\rrm -f victim.txt'] });
    const parts = shownSubject('shell', { command }, subject).parts;
    expect(partsLine({ tool: 'shell', subjectText: command, subjectKind: 'command', subjectParts: parts })).toBe(
      'parts: echo visible\\rrm -f victim.txt',
    );
    // plain blanks and line continuations between words still read as one space
    expect(await callSubject('shell', { command: 'echo  a \\\n\tb' }, ws)).toMatchObject({ commands: ['echo a b'] });
  });
});
