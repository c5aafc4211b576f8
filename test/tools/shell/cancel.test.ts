import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { alive, body, eventually, sh, workspace } from './helpers.js';

/** Aborts `controller` once `file` exists under `ws` (the command is known to be running). */
async function abortWhenExists(controller: AbortController, ws: string, file: string): Promise<number> {
  const seen = await eventually(() => {
    try {
      readFileSync(join(ws, file));
      return true;
    } catch {
      return false;
    }
  }, 10_000);
  if (!seen) throw new Error(`${file} never appeared`);
  controller.abort();
  return Date.now();
}

describe('shell cancellation and time limit (SH5, TD10)', () => {
  it('cancelled while running, settling inside the 2 s window: output kept, receipt unknown, uncertain', async () => {
    const ws = workspace();
    const controller = new AbortController();
    const [o] = await Promise.all([
      sh(ws, 'echo started; touch running; sleep 30; echo never', {}, { signal: controller.signal }),
      abortWhenExists(controller, ws, 'running'),
    ]);
    expect(o.outcome).toBe('uncertain'); // settled in the window: `mode: 'cooperative'` below, not 'forced'
    expect(o.uncertainCause).toBe('cancelled');
    expect(o.stop).toEqual({ reason: 'cancelled', mode: 'cooperative', commandHadExited: false });
    expect(o.receipt).toMatchObject({ verdict: 'unknown', authority: 'none', cancelled: true });
    expect(o.receipt.exitCode).toBeUndefined();
    expect(o.output.split('\n')[0]).toMatch(
      /^UNCERTAIN: the call was cancelled while the command was still running.*inspect state first/,
    );
    expect(body(o)).toBe('started\n');
  });

  it('cancelled while running, ignoring SIGTERM: SIGKILL after the 2 s window, forced', async () => {
    const ws = workspace();
    const controller = new AbortController();
    const [o, abortedAt] = await Promise.all([
      sh(
        ws,
        "trap '' TERM; (sleep 30 & echo $! > child.pid); sleep 30 & echo $! > sleeper.pid; touch running; wait",
        {},
        { signal: controller.signal },
      ),
      abortWhenExists(controller, ws, 'running'),
    ]);
    const elapsed = Date.now() - abortedAt;
    expect(elapsed).toBeGreaterThanOrEqual(2_000);
    expect(o.outcome).toBe('uncertain');
    expect(o.stop).toEqual({ reason: 'cancelled', mode: 'forced', commandHadExited: false });
    expect(o.receipt).toMatchObject({ verdict: 'unknown', authority: 'none', cancelled: true });
    expect(o.output).toContain('stopped with SIGKILL after the 2 s window');
    for (const f of ['child.pid', 'sleeper.pid']) {
      const pid = Number(readFileSync(join(ws, f), 'utf8').trim());
      expect(await eventually(() => !alive(pid))).toBe(true);
    }
  });

  it('cancelled after the command already exited: its own receipt stands, marked cancelled', async () => {
    const controller = new AbortController();
    const o = await sh(
      workspace(),
      'echo out; exit 3',
      {},
      { signal: controller.signal, onCommandExit: () => controller.abort() },
    );
    expect(o.outcome).toBe('ok');
    expect(o.stop).toEqual({ reason: 'cancelled', mode: 'cooperative', commandHadExited: true });
    expect(o.receipt).toMatchObject({ verdict: 'failed', exitCode: 3, authority: 'authoritative', cancelled: true });
    expect(o.output.split('\n')[0]).toBe(
      'Command had already exited with code 3 when the call was cancelled; its own status stands.',
    );
    expect(body(o)).toBe('out\n');
  });

  it('a cancelled command that wrote nothing shows (no output)', async () => {
    const ws = workspace();
    const controller = new AbortController();
    const [o] = await Promise.all([
      sh(ws, 'touch running; sleep 30', {}, { signal: controller.signal }),
      abortWhenExists(controller, ws, 'running'),
    ]);
    expect(body(o)).toBe('(no output)');
  });

  it('cancelled before it started: nothing runs', async () => {
    const ws = workspace();
    const controller = new AbortController();
    controller.abort();
    const o = await sh(ws, 'touch ran', {}, { signal: controller.signal });
    expect(o.outcome).toBe('error');
    expect(o.errorCode).toBe('cancelled');
    expect(() => readFileSync(join(ws, 'ran'))).toThrow();
  });

  it('hitting timeoutMs stops the group: uncertain, no verdict', async () => {
    const o = await sh(workspace(), 'echo begun; sleep 30', { timeoutMs: 300 });
    expect(o.outcome).toBe('uncertain');
    expect(o.uncertainCause).toBe('timeout');
    expect(o.stop).toMatchObject({ reason: 'timeout', commandHadExited: false });
    expect(o.receipt).toMatchObject({ verdict: 'unknown', authority: 'none' });
    expect(o.receipt.cancelled).toBeUndefined();
    expect(o.output.split('\n')[0]).toMatch(
      /^UNCERTAIN: the command timed out after 300 ms \(the call's time limit; pass timeoutMs to change it\)/,
    );
    expect(o.timeLimitMs).toBe(300);
    expect(body(o)).toBe('begun\n');
  });
});
