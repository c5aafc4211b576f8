/**
 * The shell sandbox (SH10, SB1, SB3, SB4) with the real bubblewrap, real
 * files and a real TCP server; nothing is mocked. Needs `bwrap` (the
 * bootstrap installs it: scripts/bootstrap.mjs).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runBackground } from '../../../activities/tools/bg/index.js';
import { runShellTool } from '../../../activities/tools/shell/index.js';
import type { SandboxPolicy } from '../../../core/sandbox.js';
import { bgCtx } from '../bg/helpers.js';
import { body, sh, workspace } from './helpers.js';

const READ_ONLY: SandboxPolicy = { mode: 'read-only', network: 'allow', writableRoots: [], explicit: true };
const WORKSPACE_WRITE: SandboxPolicy = { mode: 'workspace-write', network: 'allow', writableRoots: [], explicit: true };
const NO_NETWORK: SandboxPolicy = { ...WORKSPACE_WRITE, network: 'deny' };

/** Directories outside the workspace and outside the system temp dir (writable by default), removed after each test. */
const outside: string[] = [];
function outsideDir(): string {
  const d = mkdtempSync('/var/tmp/zuno-sbx-outside-');
  outside.push(d);
  return d;
}
afterEach(() => {
  while (outside.length) rmSync(outside.pop()!, { recursive: true, force: true });
  delete process.env.ZUNO_BWRAP;
});

describe('shell sandbox: bubblewrap (SH10)', () => {
  it('read-only: a write to the workspace fails as the command’s own failure, and the result says the sandbox was in force', async () => {
    const ws = workspace();
    const o = await sh(ws, 'echo x > made.txt', {}, { sandbox: READ_ONLY });
    expect(o.outcome).toBe('ok');
    expect(o.receipt).toMatchObject({
      verdict: 'failed',
      exitCode: 1,
      sandbox: { backend: 'bubblewrap', mode: 'read-only', network: 'allow' },
    });
    expect(existsSync(join(ws, 'made.txt'))).toBe(false);
    expect(body(o)).toContain('Read-only file system');
    expect(o.output).toContain('· sandbox bubblewrap read-only, network allowed');
    expect(o.output).toContain(
      'Sandbox (bubblewrap, read-only): the whole filesystem is read-only except a private /tmp',
    );
  });

  it('read-only: reads work and /tmp is private to the call', async () => {
    const ws = workspace();
    writeFileSync(join(ws, 'in.txt'), 'hello\n');
    const name = `zuno-sbx-private-${process.pid}`;
    const o = await sh(ws, `cat in.txt && echo t > /tmp/${name} && cat /tmp/${name}`, {}, { sandbox: READ_ONLY });
    expect(o.receipt).toMatchObject({ verdict: 'passed', exitCode: 0 });
    expect(body(o)).toBe('hello\nt\n');
    expect(existsSync(`/tmp/${name}`)).toBe(false);
  });

  it('workspace-write: the workspace and writable roots are writable, a directory outside them is not', async () => {
    const ws = workspace();
    const elsewhere = outsideDir();
    const root = outsideDir();
    const policy = { ...WORKSPACE_WRITE, writableRoots: [root] };
    const ok = await sh(ws, `echo a > in-ws.txt && echo b > ${root}/in-root.txt`, {}, { sandbox: policy });
    expect(ok.receipt).toMatchObject({
      verdict: 'passed',
      sandbox: { backend: 'bubblewrap', mode: 'workspace-write' },
    });
    expect(readFileSync(join(ws, 'in-ws.txt'), 'utf8')).toBe('a\n');
    expect(readFileSync(join(root, 'in-root.txt'), 'utf8')).toBe('b\n');
    expect(ok.output).toContain(root);

    const refused = await sh(ws, `echo c > ${elsewhere}/out.txt`, {}, { sandbox: policy });
    expect(refused.receipt).toMatchObject({ verdict: 'failed', exitCode: 1 });
    expect(existsSync(join(elsewhere, 'out.txt'))).toBe(false);
    expect(body(refused)).toContain('Read-only file system');
    expect(refused.output).toContain('a write anywhere else fails with "Read-only file system"');
  });

  it("workspace-write: the workspace's .zuno/ stays read-only; a symlinked workspace is bound by its real path", async () => {
    const real = workspace();
    const link = join(outsideDir(), 'ws-link');
    symlinkSync(real, link);
    mkdirSync(join(real, '.zuno'), { recursive: true });
    const o = await sh(link, 'echo ok > f.txt && echo x > .zuno/forged', {}, { sandbox: WORKSPACE_WRITE });
    expect(readFileSync(join(real, 'f.txt'), 'utf8')).toBe('ok\n');
    expect(existsSync(join(real, '.zuno', 'forged'))).toBe(false);
    expect(o.receipt).toMatchObject({ verdict: 'failed' });
  });

  it('workspace-write: a commit in a linked git worktree works (its gitdir and common dir are writable)', async () => {
    const repo = outsideDir();
    const git = (cwd: string, ...args: string[]) =>
      execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd, stdio: 'pipe' });
    git(repo, 'init', '-q');
    git(repo, 'commit', '-q', '--allow-empty', '-m', 'first');
    const wt = join(workspace(), 'wt');
    git(repo, 'worktree', 'add', '-q', wt);
    const o = await sh(
      wt,
      'echo x > f.txt && git add f.txt && git -c user.name=t -c user.email=t@t commit -q -m second',
      {},
      { sandbox: WORKSPACE_WRITE },
    );
    expect(o.receipt).toMatchObject({ verdict: 'passed', exitCode: 0 });
    expect(git(repo, 'log', '--oneline', '--all').toString()).toContain('second');
  });

  it('a SIGTERM trap inside the sandbox still gets its cooperative window and its own exit status', async () => {
    const ws = workspace();
    const controller = new AbortController();
    const pending = sh(
      ws,
      "trap 'echo got TERM; exit 3' TERM; touch running; sleep 30 & wait",
      {},
      { sandbox: WORKSPACE_WRITE, signal: controller.signal },
    );
    while (!existsSync(join(ws, 'running'))) await new Promise((r) => setTimeout(r, 20));
    controller.abort();
    const o = await pending;
    expect(o.stop).toMatchObject({ reason: 'cancelled', mode: 'cooperative' });
    expect(body(o)).toContain('got TERM');
  });
});

describe('shell sandbox: network deny (SB4)', () => {
  let server: Server;
  let port = 0;
  let accepted = 0;
  beforeAll(async () => {
    server = createServer((s) => {
      accepted++;
      s.end('hi\n');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('a connection to a server on the host’s 127.0.0.1 is refused; with the network allowed it connects', async () => {
    const ws = workspace();
    const connect = `exec 3<>/dev/tcp/127.0.0.1/${port} && head -n1 <&3`;
    const denied = await sh(ws, connect, {}, { sandbox: NO_NETWORK });
    expect(denied.receipt).toMatchObject({ verdict: 'failed', sandbox: { network: 'deny' } });
    expect(body(denied)).toMatch(/Connection refused/);
    expect(denied.output).toContain('Network denied: a private network namespace');
    expect(accepted).toBe(0);

    const allowed = await sh(ws, connect, {}, { sandbox: WORKSPACE_WRITE });
    expect(allowed.receipt).toMatchObject({ verdict: 'passed', sandbox: { network: 'allow' } });
    expect(body(allowed)).toBe('hi\n');
    expect(accepted).toBe(1);
  });
});

describe('shell sandbox: no working bubblewrap (SB1, SB3)', () => {
  it('an explicit mode is refused before anything runs, naming what to install', async () => {
    const ws = workspace();
    process.env.ZUNO_BWRAP = '/nonexistent/bwrap';
    const o = await sh(ws, 'touch ran', {}, { sandbox: WORKSPACE_WRITE });
    expect(o.outcome).toBe('error');
    expect(o.errorCode).toBe('sandbox_unavailable');
    expect(o.output).toContain('apt-get install bubblewrap');
    expect(o.output).toContain('ZUNO_BWRAP=/nonexistent/bwrap');
    expect(o.receipt.sandbox).toBeUndefined();
    expect(existsSync(join(ws, 'ran'))).toBe(false);

    // The failure was not cached: with the helper back, the same policy runs confined.
    delete process.env.ZUNO_BWRAP;
    const again = await sh(ws, 'touch ran', {}, { sandbox: WORKSPACE_WRITE });
    expect(again.receipt).toMatchObject({ verdict: 'passed', sandbox: { backend: 'bubblewrap' } });
    expect(existsSync(join(ws, 'ran'))).toBe(true);
  });

  it('a background call with an explicit mode is refused at the call, and by the background engine', async () => {
    const ws = workspace();
    process.env.ZUNO_BWRAP = '/nonexistent/bwrap';
    const started = await runShellTool(
      { command: 'touch ran', background: true },
      {
        workspace: ws,
        sessionId: 'ses_test',
        rowId: 'tc_1_0_0',
        callId: 'call_bg_refused',
        backgroundTaskID: 'bg_0_0_0',
        sandbox: READ_ONLY,
      },
    );
    expect(started).toMatchObject({ isError: true, errorCode: 'sandbox_unavailable' });
    const c = await runBackground({ command: 'touch ran' }, bgCtx(ws, 'bg_0_0_1', { sandbox: READ_ONLY }));
    expect(c).toMatchObject({ state: 'not_started', outcome: 'error' });
    expect(c.report).toContain('install the bubblewrap package');
    expect(existsSync(join(ws, 'ran'))).toBe(false);
  });

  it('the auto default runs unconfined instead, and the receipt says so (platform_native)', async () => {
    const ws = workspace();
    process.env.ZUNO_BWRAP = '/nonexistent/bwrap';
    const o = await sh(ws, 'touch ran');
    expect(o.receipt).toMatchObject({
      verdict: 'passed',
      sandbox: { backend: 'platform_native', mode: 'workspace-write', network: 'allow' },
    });
    expect(o.output).toContain('unconfined (platform_native)');
    expect(o.output).toContain('ran unconfined as your user');
    expect(existsSync(join(ws, 'ran'))).toBe(true);
  });

  it('danger-full-access never needs bubblewrap (trusted_native)', async () => {
    const ws = workspace();
    process.env.ZUNO_BWRAP = '/nonexistent/bwrap';
    const elsewhere = outsideDir();
    const policy: SandboxPolicy = { mode: 'danger-full-access', network: 'allow', writableRoots: [], explicit: false };
    const o = await sh(ws, `touch ${elsewhere}/ran`, {}, { sandbox: policy });
    expect(o.receipt).toMatchObject({ verdict: 'passed', sandbox: { backend: 'trusted_native' } });
    expect(existsSync(join(elsewhere, 'ran'))).toBe(true);
  });
});

describe('shell sandbox: background commands (BG2)', () => {
  it('a background command is confined like a foreground one and its report names the sandbox', async () => {
    const ws = workspace();
    const c = await runBackground({ command: 'echo x > made.txt' }, bgCtx(ws, 'bg_1_0_0', { sandbox: READ_ONLY }));
    expect(c).toMatchObject({ state: 'exited', exitCode: 1 });
    expect(c.receipt.sandbox).toEqual({ backend: 'bubblewrap', mode: 'read-only', network: 'allow' });
    expect(existsSync(join(ws, 'made.txt'))).toBe(false);
    expect(c.report).toContain('sandbox bubblewrap read-only');
    expect(c.report).toContain('Read-only file system');
  });

  it('by default (no policy) a background command runs in bubblewrap workspace-write', async () => {
    const ws = workspace();
    const elsewhere = outsideDir();
    const c = await runBackground(
      { command: `echo a > in-ws.txt; echo b > ${elsewhere}/out.txt` },
      bgCtx(ws, 'bg_1_0_1'),
    );
    expect(c.receipt.sandbox).toEqual({ backend: 'bubblewrap', mode: 'workspace-write', network: 'allow' });
    expect(readFileSync(join(ws, 'in-ws.txt'), 'utf8')).toBe('a\n');
    expect(existsSync(join(elsewhere, 'out.txt'))).toBe(false);
  });
});
