import { describe, expect, it } from 'vitest';
import { receiptId } from '../../../activities/tools/shell/index.js';
import { body, sh, shellCtx, workspace } from './helpers.js';
import { runShell } from '../../../activities/tools/shell/index.js';

describe('shell receipts: exit policies and authority (SH1, SH2, SH3)', () => {
  it('pipefail is the default: `false | true` fails, authoritatively', async () => {
    const o = await sh(workspace(), 'false | true');
    expect(o.outcome).toBe('ok');
    expect(o.exitCode).toBe(1);
    expect(o.receipt).toMatchObject({
      verdict: 'failed',
      exitCode: 1,
      authority: 'authoritative',
      exitPolicy: 'pipefail',
      interpreter: 'bash',
    });
    expect(o.output.split('\n')[0]).toBe('Command exited with code 1.');
    expect(o.output).toContain(`[verification ${o.receipt.id}] failed · exit 1 · authoritative (bash, pipefail)`);
  });

  it('exitPolicy last: `false | true` passes, derived', async () => {
    const o = await sh(workspace(), 'false | true', { exitPolicy: 'last' });
    expect(o.receipt).toMatchObject({ verdict: 'passed', exitCode: 0, authority: 'derived', exitPolicy: 'last' });
    expect(o.receipt.limitations.map((l) => l.kind)).toEqual(['exit_policy_last']);
  });

  it('exitPolicy all stops at the first failing statement', async () => {
    const ws = workspace();
    const o = await sh(ws, 'echo one; false; echo two', { exitPolicy: 'all' });
    expect(o.receipt).toMatchObject({ verdict: 'failed', exitCode: 1, authority: 'authoritative' });
    expect(body(o)).toBe('one\n');
  });

  it('|| true runs as written but downgrades; the same text quoted does not', async () => {
    const ws = workspace();
    const masked = await sh(ws, 'false || true');
    expect(masked.receipt).toMatchObject({ verdict: 'passed', exitCode: 0, authority: 'derived' });
    expect(masked.receipt.limitations.map((l) => l.kind)).toEqual(['or_fallback']);
    expect(masked.output).toMatch(/Limitation \(or_fallback\): `false \|\| true` exits 0 .* Remedy: /);
    const quoted = await sh(ws, "echo 'a || true'");
    expect(quoted.receipt).toMatchObject({ verdict: 'passed', authority: 'authoritative', limitations: [] });
    expect(body(quoted)).toBe('a || true\n');
  });

  it('set +e, bash -c, if, loops and all-mode && chains each downgrade', async () => {
    const ws = workspace();
    const cases: [string, Record<string, unknown>, string][] = [
      ['set +e; false; true', { exitPolicy: 'all' }, 'errexit_off'],
      ["bash -c 'false | true'", {}, 'nested_shell'],
      ['if false; then echo no; fi', {}, 'condition'],
      ['for i in 1 2; do test $i = 2; done', {}, 'loop'],
      ['false && echo x; echo done', { exitPolicy: 'all' }, 'and_chain'],
    ];
    for (const [command, args, kind] of cases) {
      const o = await sh(ws, command, args);
      expect(o.receipt.verdict, command).toBe('passed');
      expect(o.receipt.authority, command).toBe('derived');
      expect(
        o.receipt.limitations.map((l) => l.kind),
        command,
      ).toContain(kind);
    }
  });

  it('a command under sh is only derived, and the receipt names the interpreter', async () => {
    const o = await sh(workspace(), 'false | true', {}, { interpreter: 'sh' });
    expect(o.receipt).toMatchObject({ interpreter: 'sh', verdict: 'passed', authority: 'derived' });
    expect(o.receipt.limitations.map((l) => l.kind)).toEqual(['interpreter']);
  });

  it('the receipt id is rcp_ + 16 hex, stable for the same session + row + call', async () => {
    const ws = workspace();
    const ctx = shellCtx(ws);
    const a = await runShell({ command: 'true' }, ctx);
    const b = await runShell({ command: 'false' }, ctx);
    expect(a.receipt.id).toMatch(/^rcp_[0-9a-f]{16}$/);
    expect(b.receipt.id).toBe(a.receipt.id);
    expect(a.receipt.id).toBe(receiptId(ctx.sessionId, ctx.rowId, ctx.callId));
    expect(receiptId(ctx.sessionId, ctx.rowId, 'other')).not.toBe(a.receipt.id);
    expect(receiptId('other', ctx.rowId, ctx.callId)).not.toBe(a.receipt.id);
  });

  it('the same provider call id in another row (another turn) gets another receipt (issue 26 item 5)', async () => {
    const ws = workspace();
    const first = await runShell({ command: 'exit 1' }, { ...shellCtx(ws), rowId: 'tc_1_0_0', callId: 'call_0' });
    const again = await runShell({ command: 'exit 3' }, { ...shellCtx(ws), rowId: 'tc_2_0_0', callId: 'call_0' });
    expect(first.receipt.id).not.toBe(again.receipt.id);
    expect([first.receipt.exitCode, again.receipt.exitCode]).toEqual([1, 3]);
  });

  it('invalid arguments run nothing', async () => {
    const o = await runShell({ command: '' }, shellCtx(workspace()));
    expect(o.outcome).toBe('error');
    expect(o.errorCode).toBe('invalid_arguments');
    expect(o.receipt.verdict).toBe('unknown');
  });
});
