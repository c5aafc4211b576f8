import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { alive, body, eventually, sh, workspace } from './helpers.js';

describe('shell guard: reserved codes, signals, process group (SH4)', () => {
  it('127 for a missing program: code recorded, no verdict, no authority', async () => {
    const o = await sh(workspace(), 'zuno-no-such-program --version');
    expect(o.outcome).toBe('ok');
    expect(o.exitCode).toBe(127);
    expect(o.receipt).toMatchObject({ exitCode: 127, verdict: 'unknown', authority: 'none' });
    expect(o.receipt.limitations.map((l) => l.kind)).toContain('not_started');
    expect(o.output.split('\n')[0]).toMatch(/^Exit 127: the program was not found/);
    expect(body(o)).toContain('command not found');
  });

  it('126 for a file that cannot be executed', async () => {
    const ws = workspace();
    const o = await sh(ws, 'printf "echo hi\\n" > script.sh && ./script.sh');
    expect(o.receipt).toMatchObject({ exitCode: 126, verdict: 'unknown', authority: 'none' });
  });

  it('a program that exits 125 by itself keeps its receipt, even if it prints a look-alike guard line', async () => {
    const ws = workspace();
    const plain = await sh(ws, 'exit 125');
    expect(plain.outcome).toBe('ok');
    expect(plain.receipt).toMatchObject({ verdict: 'failed', exitCode: 125, authority: 'authoritative' });
    const forged = await sh(ws, 'echo "zuno-guard[0123456789abcdef0123456789abcdef]: failed"; exit 125');
    expect(forged.outcome).toBe('ok');
    expect(forged.receipt).toMatchObject({ verdict: 'failed', exitCode: 125 });
  });

  it("the guard's own failure is 125 with its diagnostic line: uncertain, never a Failed receipt", async () => {
    // An environment value with a NUL byte cannot be passed to exec: the guard fails before the command starts.
    const o = await sh(workspace(), 'echo hi', {}, { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', BAD: 'a\0b' } });
    expect(o.outcome).toBe('uncertain');
    expect(o.uncertainCause).toBe('guard_failed');
    expect(o.exitCode).toBe(125);
    expect(o.receipt).toMatchObject({ verdict: 'unknown', authority: 'none' });
    expect(o.receipt.exitCode).toBeUndefined();
    expect(o.output.split('\n')[0]).toMatch(/^UNCERTAIN: the shell guard failed \(exit 125\)/);
    expect(body(o)).toMatch(/^zuno-guard\[[0-9a-f]{32}\]: could not start bash/);
  });

  it('an interpreter that does not exist: 127 from the guard, never started', async () => {
    const o = await sh(workspace(), 'echo hi', {}, { interpreter: '/nonexistent/bash' });
    expect(o.outcome).toBe('ok');
    expect(o.receipt).toMatchObject({ exitCode: 127, verdict: 'unknown', authority: 'none' });
    expect(body(o)).toMatch(/zuno-guard\[[0-9a-f]{32}\]: could not start \/nonexistent\/bash: ENOENT/);
  });

  it('death by a signal has no exit code and names the signal', async () => {
    const o = await sh(workspace(), 'echo before; kill -9 $$');
    expect(o.outcome).toBe('ok');
    expect(o.exitCode).toBeUndefined();
    expect(o.signal).toBe('SIGKILL');
    expect(o.receipt).toMatchObject({ verdict: 'unknown', authority: 'none', signal: 'SIGKILL' });
    expect(o.receipt.exitCode).toBeUndefined();
    expect(o.output).toContain('killed by a signal (SIGKILL)');
    expect(body(o)).toBe('before\n');
  });

  it('a forked grandchild that outlives its parent dies with the group when the command exits', async () => {
    const ws = workspace();
    const o = await sh(ws, '(sleep 30 & echo $! > grandchild.pid); echo done');
    expect(o.receipt.exitCode).toBe(0);
    expect(body(o)).toBe('done\n');
    const pid = Number(readFileSync(join(ws, 'grandchild.pid'), 'utf8').trim());
    expect(pid).toBeGreaterThan(0);
    expect(await eventually(() => !alive(pid))).toBe(true);
  });

  it('runs in workdir inside the workspace; a workdir outside it runs nothing', async () => {
    const ws = workspace();
    const inSub = await sh(ws, 'mkdir -p sub && cd sub && pwd');
    expect(inSub.receipt.exitCode).toBe(0);
    const o = await sh(ws, 'pwd; echo x > f.txt', { workdir: 'sub' });
    expect(body(o).trim().endsWith('/sub')).toBe(true);
    expect(o.writtenPaths).toEqual(['sub/f.txt']);
    const out = await sh(ws, 'pwd', { workdir: '..' });
    expect(out.outcome).toBe('error');
    expect(out.errorCode).toBe('path_outside_workspace');
  });
});
