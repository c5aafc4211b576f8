import { mkdirSync, mkdtempSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { callSubject } from '../../activities/permission/subject.js';
import { PermissionConfigSchema } from '../../client/permission-config.js';
import { evaluatePermission } from '../../core/permission/evaluate.js';
import type { PermissionAction, PermissionPolicy } from '../../core/permission/types.js';

/**
 * Issue 26 item 2: the files a shell command writes are subjects of the
 * `edit` rules, normalized by the path authority the file tools use. A real
 * workspace: secrets/ (with a file), a/ (with a file), a link to secrets/, a
 * dangling link to secrets/k, a link to a/.
 */
let ws: string;
beforeAll(() => {
  ws = realpathSync(mkdtempSync(join(tmpdir(), 'zuno-writes-')));
  mkdirSync(join(ws, 'secrets'));
  mkdirSync(join(ws, 'a'));
  writeFileSync(join(ws, 'secrets', 'existing'), 'key');
  writeFileSync(join(ws, 'a', 'f'), 'data');
  symlinkSync(join(ws, 'secrets'), join(ws, 'link'));
  symlinkSync('secrets/k', join(ws, 'kfile'));
  symlinkSync('a', join(ws, 'a-link'));
});

/** The real config syntax (zuno.json `permission`): shell allowed, writes under secrets/ denied. */
const DENY_SECRETS: PermissionPolicy = PermissionConfigSchema.parse({
  mode: 'standard',
  rules: { shell: { '*': 'allow' }, edit: { 'secrets/**': 'deny' } },
});

async function decideShell(policy: PermissionPolicy, command: string, workdir?: string) {
  const subject = await callSubject('shell', { command, ...(workdir ? { workdir } : {}) }, ws);
  return evaluatePermission(policy, { tool: 'shell', effect: 'SideEffecting', subject }, []);
}

describe('a deny on writes under secrets/ stops shell writes as it stops `write`', () => {
  it.each<[string, string, string?]>([
    ['echo x > secrets/k', 'secrets/k'],
    ['tee secrets/k', 'secrets/k'],
    ['echo x | tee -a out.log secrets/k', 'secrets/k'],
    ['cp a/f secrets/k', 'secrets/k'],
    ['echo x > a/../secrets/k', 'secrets/k'],
    ['echo x > a-link/../secrets/k', 'secrets/k'],
    ['echo x > link/k', 'secrets/k'], // a redirect through a symlinked directory
    ['echo x > kfile', 'secrets/k'], // through a dangling symlink: the write creates its target
    ['echo x >> secrets/k', 'secrets/k'],
    ['echo x &> secrets/k', 'secrets/k'],
    ['echo x >| secrets/k', 'secrets/k'],
    ['ls 2> secrets/k', 'secrets/k'],
    ['> secrets/k echo x', 'secrets/k'],
    ['echo ok && { echo x > secrets/k; }', 'secrets/k'],
    ["bash -c 'echo x > secrets/k'", 'secrets/k'],
    ['echo $(echo x > secrets/k)', 'secrets/k'],
    ['dd if=a/f of=secrets/k', 'secrets/k'],
    ['cp a/f secrets', 'secrets/f'], // an existing directory: the file lands inside it
    ['cp a/f link/', 'secrets/f'],
    ['cp -t secrets a/f', 'secrets/f'],
    ['install -m 600 a/f secrets/', 'secrets/f'],
    ['ln -s ../a/f secrets/l', 'secrets/l'],
    ['mv secrets/existing a/', 'secrets/existing/**'], // moved away: removed from secrets/
    ['mv a/f secrets/', 'secrets/f/**'],
    ['touch secrets/new', 'secrets/new'],
    ['truncate -s 0 secrets/existing', 'secrets/existing'],
    ['rm -f secrets/existing', 'secrets/existing'],
    ['rm -rf secrets', 'secrets/**'], // the directory and everything under it
    ['rm -rf .', '**'],
    ['sed -i s/key/x/ secrets/existing', 'secrets/existing'],
    ['find a -fprint secrets/list', 'secrets/list'],
    ['sudo tee secrets/k', 'secrets/k'],
    ['exec 3> secrets/k', 'secrets/k'],
    [': <> secrets/kC', 'secrets/kC'], // read-write opens the file for writing
    ['exec 3<>secrets/kD; echo x >&3', 'secrets/kD'],
    ['cat 0<> secrets/k', 'secrets/k'],
    ['cat > secrets/k <<EOF\nx\nEOF', 'secrets/k'],
    ['{ echo a; echo b; } > secrets/k', 'secrets/k'],
    ['echo x > /proc/self/cwd/secrets/k', 'secrets/k'], // the shell's own working directory
    ['curl -fsSLo secrets/k https://example.com/k', 'secrets/k'],
    ['curl --output-dir secrets -o k https://example.com/k', 'secrets/k'],
    ['wget -qO secrets/k https://example.com/k', 'secrets/k'],
    ['ln secrets/existing hl && echo PWNED > hl', 'secrets/existing'], // a hard link's source is written through it
    ['ln -t a secrets/existing', 'secrets/existing'],
    ['link secrets/existing h2', 'secrets/existing'],
    ['cp -l secrets/existing a/', 'secrets/existing'],
    ['echo x > k', 'secrets/k', 'secrets'], // relative to the call's workdir
    ['echo x > ../secrets/k', 'secrets/k', 'a'],
  ])('%j → denied, naming the write', async (command, written, workdir) => {
    const d = await decideShell(DENY_SECRETS, command, workdir);
    expect(d.action).toBe('deny');
    expect(d.reason).toBe(`rule edit "secrets/**" → deny: the command writes ${written}`);
  });

  it('the same spellings through the write tool are denied by the same rule', async () => {
    for (const path of ['secrets/k', 'a/../secrets/k', 'link/k', 'kfile']) {
      const subject = await callSubject('write', { path, content: 'x' }, ws);
      const d = evaluatePermission(DENY_SECRETS, { tool: 'write', effect: 'SideEffecting', subject }, []);
      expect(d.action, path).toBe('deny');
    }
  });

  it.each([
    'echo x > out.txt',
    'echo x > secrets-other',
    'echo x 2>/dev/null',
    'echo x 2>&1 >&2',
    'cat secrets/existing', // reading is not a write
    'cp secrets/existing a/', // copying out of secrets/ writes a/existing
    'rm -rf a',
    'cp a/f a/g',
    'tee < secrets/existing',
    'ln -s secrets lnB', // a link alone writes only itself
    'ln -s ../secrets/existing a/l',
    'cp -r a b',
  ])('%j → allowed', async (command) => {
    expect((await decideShell(DENY_SECRETS, command)).action).toBe('allow');
  });

  it.each([
    ['echo x > "$F"', 'the path it writes is chosen at run time: > "$F"'],
    ['tee $OUT', 'the path it writes is chosen at run time: tee $OUT'],
    ['cd secrets && echo x > k', 'the path it writes is chosen at run time: > k'],
    ['ls | xargs rm', 'the path it writes is chosen at run time: xargs rm'],
    ['cp a/f "$DEST"', 'the path it writes is chosen at run time: cp a/f $DEST'],
    ['touch secrets/{a,b}', 'the path it writes is chosen at run time: touch secrets/{a,b}'],
    ['echo x > sec*/k', 'the path it writes is chosen at run time: > sec*/k'],
    ['env -C secrets tee k', 'the path it writes is chosen at run time: env -C secrets tee k'],
    ['echo x > /proc/1/cwd/k', 'the path it writes is chosen at run time: > /proc/1/cwd/k'],
  ])('a write target known only at run time asks: %j', async (command, reason) => {
    expect(await decideShell(DENY_SECRETS, command)).toMatchObject({ action: 'ask', reason });
  });

  it.each([
    ['ln -s secrets lnB && echo x > lnB/kB', 'ln -s secrets lnB'],
    ['ln -s secrets/kA lnA && echo x > lnA', 'ln -s secrets/kA lnA'],
    ['ln -s . self && echo x > self/secrets/k5', 'ln -s . self'],
    ['mkdir -p d && ln -s ../secrets d/up && echo x > d/up/k6', 'ln -s ../secrets d/up'],
    ['ln -sf secrets lnB; tee lnB/k', 'ln -sf secrets lnB'],
    ['cp -s secrets/existing a/s && echo x > a/s', 'cp -s secrets/existing a/s'],
    ['cp -a link cp-link && echo x > cp-link/k', 'cp -a link cp-link'], // copies the link as a link
    ['mv a-link moved && echo x > moved/k', 'mv a-link moved'],
  ])('a link made by the same command makes its other writes ask: %j', async (command, link) => {
    expect(await decideShell(DENY_SECRETS, command)).toMatchObject({
      action: 'ask',
      reason: `a link the same command makes can send its other writes anywhere: ${link}`,
    });
  });

  it('a source chosen at run time copied into secrets/ is a write anywhere under it', async () => {
    expect(await decideShell(DENY_SECRETS, 'cp "$SRC" secrets/')).toMatchObject({
      action: 'deny',
      reason: 'rule edit "secrets/**" → deny: the command writes secrets/**',
    });
  });
});

describe('writes follow the edit rules: order, modes, trees', () => {
  const policy = (mode: PermissionPolicy['mode'], rules: unknown): PermissionPolicy =>
    PermissionConfigSchema.parse({ mode, rules });
  it.each<[string, PermissionPolicy, string, PermissionAction]>([
    [
      'no edit rule: a write adds nothing',
      policy('standard', { shell: { '*': 'allow' } }),
      'echo x > secrets/k',
      'allow',
    ],
    ['an edit ask rule asks', policy('standard', { edit: { 'docs/*': 'ask' } }), 'echo x > docs/a.md', 'ask'],
    [
      'allow_all: an edit ask does not ask',
      policy('allow_all', { edit: { 'docs/*': 'ask' } }),
      'echo x > docs/a',
      'allow',
    ],
    [
      'allow_all: an edit deny still denies',
      policy('allow_all', { edit: { 'secrets/*': 'deny' } }),
      'tee secrets/k',
      'deny',
    ],
    [
      'a later allow rule wins for its path',
      policy('standard', [
        { tool: 'edit', pattern: 'secrets/*', action: 'deny' },
        { tool: 'edit', pattern: 'secrets/public/*', action: 'allow' },
      ]),
      'echo x > secrets/public/a',
      'allow',
    ],
    [
      'a tree meets every rule that can match under it',
      policy('standard', [
        { tool: 'edit', pattern: '*', action: 'allow' },
        { tool: 'edit', pattern: '*.key', action: 'deny' },
      ]),
      'rm -rf a',
      'deny',
    ],
    [
      'a tree stops at the last rule that covers all of it',
      policy('standard', [
        { tool: 'edit', pattern: '*.key', action: 'deny' },
        { tool: 'edit', pattern: 'a/*', action: 'allow' },
      ]),
      'rm -rf a',
      'allow',
    ],
    [
      'the write key alone is an edit rule',
      policy('standard', { write: { 'secrets/*': 'deny' } }),
      'touch secrets/x',
      'deny',
    ],
    ['* rules speak for writes too', policy('standard', { '*': { 'secrets/*': 'deny' } }), 'touch secrets/x', 'deny'],
    ['strict: the command asks anyway', policy('strict', { edit: { 'secrets/*': 'allow' } }), 'touch secrets/x', 'ask'],
  ])('%s', async (_name, p, command, action) => {
    expect((await decideShell(p, command)).action).toBe(action);
  });
});

describe('bounds', () => {
  it('more write targets than a subject carries fail closed as one part', async () => {
    const files = Array.from({ length: 300 }, (_, i) => `f${i}`).join(' ');
    const subject = await callSubject('shell', { command: `touch ${files}` }, ws);
    expect(subject.kind === 'commands' && subject.writes?.length).toBe(256);
    expect(await decideShell(DENY_SECRETS, `touch ${files}`)).toMatchObject({
      action: 'ask',
      reason: 'the path it writes is chosen at run time: more than 256 files written',
    });
  });
});
