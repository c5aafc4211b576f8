/** `zuno --version`, `zuno run -` (the prompt from standard input), outcome marks that follow the outcome, and a clean `git status` after a run. */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { openProjectionStore } from '../../activities/projection/open.js';
import { ROOT } from '../helpers/dev-server.js';
import {
  expectTypedFailure,
  makeHome,
  makeWorkspace,
  projectionCounts,
  runZuno,
  tempDir,
  writeJson,
} from './helpers.js';

let address: string;
beforeAll(() => {
  address = inject('temporalAddress');
});

describe('zuno --version', () => {
  it('prints the version of package.json', async () => {
    const { home } = makeHome();
    const version = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
    for (const flag of ['--version', '-V']) {
      const r = await runZuno([flag], { home });
      expect({ code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({
        code: 0,
        stdout: `${version}\n`,
        stderr: '',
      });
    }
  });
});

describe('zuno run -', () => {
  it('reads the prompt from standard input', async () => {
    const { home } = makeHome({ address });
    const script = writeJson(tempDir('zuno-stdin-script-'), 's.json', { replies: [{ text: 'read it' }] });
    const r = await runZuno(['run', '-', '--dir', makeWorkspace(), '--script', script, '--json'], {
      home,
      env: { TEMPORAL_ADDRESS: address },
      stdin: 'explain the\nretry policy\n',
    });
    expect(r.code, r.stderr).toBe(0);
    const end = JSON.parse(r.stdout.trim().split('\n').at(-1)!) as { type: string; sessionId: string };
    expect(end.type).toBe('session.completed');
    const store = await openProjectionStore({ zunoDir: home });
    try {
      const t = (await store.loadTranscript(end.sessionId))!;
      expect(t.inputs.map((i) => i.text)).toEqual(['explain the\nretry policy']);
    } finally {
      await store.close();
    }
  });

  it('empty standard input is a typed error and starts nothing', async () => {
    const { home } = makeHome({ address });
    const script = writeJson(tempDir('zuno-stdin-script-'), 's.json', { replies: [{ text: 'never' }] });
    for (const stdin of ['', '  \n']) {
      const r = await runZuno(['run', '-', '--dir', makeWorkspace(), '--script', script], {
        home,
        env: { TEMPORAL_ADDRESS: address },
        stdin,
      });
      expect(expectTypedFailure(r, 'input_rejected')).toContain('standard input was empty');
    }
    expect(projectionCounts(home)).toBeNull();
  });
});

describe('the workspace stays clean in git', () => {
  it("after a run that withheld shell output in the workspace, the workspace's git status shows nothing", async () => {
    const ws = makeWorkspace();
    const git = (...args: string[]) => execFileSync('git', args, { cwd: ws, encoding: 'utf8' });
    git('init', '-q');
    git('-c', 'user.email=t@example.com', '-c', 'user.name=t', 'add', '.');
    git('-c', 'user.email=t@example.com', '-c', 'user.name=t', 'commit', '-qm', 'init');
    // Zuno's own state lives in ZUNO_HOME; the workspace gets only .zuno/artifacts (withheld output), git-ignored.
    const { home } = makeHome({ address });
    const script = writeJson(tempDir('zuno-git-script-'), 's.json', {
      replies: [
        { toolCalls: [{ name: 'shell', arguments: { command: 'head -c 60000 /dev/zero | tr "\\0" x' } }] },
        { text: 'done' },
      ],
    });
    const r = await runZuno(['run', 'make output', '--dir', ws, '--script', script], { home, cwd: ws });
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(join(ws, '.zuno', 'artifacts'))).toBe(true);
    expect(existsSync(join(ws, '.zuno', 'zuno.db'))).toBe(false);
    expect(existsSync(join(home, 'zuno.db'))).toBe(true);
    expect(git('status', '--porcelain')).toBe('');
  });
});

describe('outcome marks follow the outcome', () => {
  it('a shell command that exits 1 is a failure mark with its exit code, in zuno run and in session show', async () => {
    const { home } = makeHome({ address });
    const script = writeJson(tempDir('zuno-marks-script-'), 's.json', {
      replies: [
        { toolCalls: [{ name: 'shell', arguments: { command: 'echo nope; exit 1' } }] },
        { text: 'It failed.' },
      ],
    });
    const r = await runZuno(['run', 'try it', '--dir', makeWorkspace(), '--script', script], {
      home,
      env: { TEMPORAL_ADDRESS: address },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^✗ shell failed, exit 1, \d+ bytes, \d+ ms$/m);
    expect(r.stderr).not.toMatch(/✓ shell/);
    const sessionId = /ses_[0-9a-z]+/.exec(r.stderr)?.[0] ?? '';
    const show = await runZuno(['session', 'show', sessionId], { home, env: { TEMPORAL_ADDRESS: address } });
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).toMatch(/^tool shell: echo nope; exit 1 → failed \(exit 1\)$/m);
    expect(show.stdout).not.toMatch(/^tool shell: .* → ok/m);
  });
});
