import { mkdirSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { liveTaskCount, runBackground, runBg, taskDir } from '../../../activities/tools/bg/index.js';
import { runShell, runShellTool } from '../../../activities/tools/shell/index.js';
import { alive, bgCtx, eventually, exists, SESSION, statusOf, toolCtx, workspace } from './helpers.js';

describe('runBackground lifecycle (BG2, SH1–SH6, SH9)', () => {
  it('wait until exit: terminal, exit code, receipt and report; status.json settled atomically', async () => {
    const ws = workspace();
    const running = runBackground({ command: 'sleep 0.3 && echo hello && exit 3' }, bgCtx(ws, 'bg_2_0_0'));
    const r = await runBg({ action: 'wait', taskID: 'bg_2_0_0', timeoutMs: 20_000 }, toolCtx(ws));
    expect(r.isError).toBe(false);
    expect(r.data).toMatchObject({
      taskID: 'bg_2_0_0',
      terminal: true,
      timedOut: false,
      state: 'exited',
      exitCode: 3,
      outcome: 'ok',
      receipt: { verdict: 'failed', exitCode: 3, authority: 'authoritative' },
      totalWritten: 6,
      hasEarlier: false,
      hasMore: false,
    });
    expect(r.output).toMatch(/^Task bg_2_0_0 \(exited 3\): sleep 0\.3 && echo hello && exit 3\n/);
    expect(r.output).toMatch(/\[verification rcp_[0-9a-f]{16}\] failed · exit 3 · authoritative/);
    expect(r.output.endsWith('\n\nhello\n')).toBe(true);
    const c = await running;
    expect(c).toMatchObject({ state: 'exited', exitCode: 3, outcome: 'ok', totalWritten: 6 });
    expect(c.report).toContain('Output (all 6 bytes):\nhello\n');
    expect(c.report).toMatch(/^Background task bg_2_0_0 ended after [\d.]+ s: sleep 0\.3 && echo hello && exit 3\n/);
    const status = statusOf(ws, 'bg_2_0_0');
    expect(status).toMatchObject({
      taskID: 'bg_2_0_0',
      sessionId: SESSION,
      command: 'sleep 0.3 && echo hello && exit 3',
      state: 'exited',
      exitCode: 3,
      totalWritten: 6,
      workerPid: process.pid,
      receipt: { id: c.receipt.id },
    });
    expect(status!.guardPid).toBeGreaterThan(0);
    expect(status!.startedAtMs).toBeLessThanOrEqual((status as { endedAtMs: number }).endedAtMs);
    expect(liveTaskCount()).toBe(0);
  });

  it("a finished task's output never changes: an escaped grandchild writing after the end changes nothing", async () => {
    const ws = workspace();
    const pidFile = join(ws, 'late.pid');
    const c = await runBackground(
      { command: `setsid bash -c 'echo $$ > ${pidFile}; sleep 2; echo LATE >&1' & sleep 0.5; echo done` },
      bgCtx(ws, 'bg_2_9_0'),
    );
    expect(c).toMatchObject({ state: 'exited', exitCode: 0, totalWritten: 5 });
    // the escaped grandchild still holds the output file open; wait until it has written and exited
    expect(await eventually(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8').trim() !== '', 10_000)).toBe(
      true,
    );
    const pid = Number(readFileSync(pidFile, 'utf8').trim());
    expect(await eventually(() => !alive(pid), 5_000)).toBe(true);

    const ctx = toolCtx(ws);
    const out = await runBg({ action: 'output', taskID: 'bg_2_9_0' }, ctx);
    expect(out.data).toMatchObject({ terminal: true, totalWritten: 5, nextCursor: 5, hasMore: false });
    expect(out.output.endsWith('\n\ndone\n')).toBe(true);
    const fromStart = await runBg({ action: 'output', taskID: 'bg_2_9_0', cursor: 0 }, ctx);
    expect(fromStart.data).toMatchObject({ totalWritten: 5, bytes: 5, hasMore: false });
    expect(fromStart.output.endsWith('\n\ndone\n')).toBe(true);
    const waited = await runBg({ action: 'wait', taskID: 'bg_2_9_0' }, ctx);
    expect(waited.data).toMatchObject({ terminal: true, totalWritten: 5 });
    expect(waited.output.endsWith('\n\ndone\n')).toBe(true);
    const art = await runBg({ action: 'artifact', outputPath: c.outputPath }, ctx);
    expect(art.data).toMatchObject({ totalWritten: 5, hasMore: false });
    expect(art.output.endsWith('\n\ndone\n')).toBe(true);
    expect(readFileSync(c.outputPath, 'utf8')).toBe('done\n');
    expect(statusOf(ws, 'bg_2_9_0')).toMatchObject({ state: 'exited', totalWritten: 5 });
  });

  it('a wait returns as soon as the task ends, and stops early when its own call is cancelled', async () => {
    const ws = workspace();
    const running = runBackground({ command: 'sleep 0.5; echo late; sleep 30' }, bgCtx(ws, 'bg_2_1_0'));
    try {
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 200);
      const aborted = await runBg(
        { action: 'wait', taskID: 'bg_2_1_0', timeoutMs: 20_000 },
        toolCtx(ws, { signal: controller.signal }),
      );
      // Stopped by its call's cancellation (`cancelled`), not by the wait's own 20 s limit (`timedOut`).
      expect(aborted).toMatchObject({
        isError: true,
        errorCode: 'cancelled',
        data: { taskID: 'bg_2_1_0', terminal: false },
      });
    } finally {
      const [r] = await Promise.all([
        runBg({ action: 'wait', taskID: 'bg_2_1_0', timeoutMs: 20_000 }, toolCtx(ws)),
        runBg({ action: 'cancel', taskID: 'bg_2_1_0' }, toolCtx(ws)),
      ]);
      // Returned because the task ended (terminal), not at the wait's 20 s limit.
      expect(r.data).toMatchObject({ terminal: true, state: 'cancelled' });
      expect(r.data).not.toMatchObject({ timedOut: true });
      await running;
    }
  });

  it('a cancel that arrives after the command exited keeps its exit code, marked cancelled (SH5)', async () => {
    const ws = workspace();
    const controller = new AbortController();
    const c = await runBackground(
      { command: 'echo done; exit 7' },
      bgCtx(ws, 'bg_3_0_0', { signal: controller.signal, onCommandExit: () => controller.abort() }),
    );
    expect(c).toMatchObject({
      state: 'exited',
      exitCode: 7,
      outcome: 'ok',
      receipt: { verdict: 'failed', exitCode: 7, cancelled: true },
    });
    expect(c.report).toContain('had already exited with code 7 when the call was cancelled');
  });

  it('a command that hits its time limit is timed_out: uncertain, no verdict', async () => {
    const ws = workspace();
    const c = await runBackground({ command: 'echo start; sleep 30', timeoutMs: 300 }, bgCtx(ws, 'bg_4_0_0'));
    expect(c).toMatchObject({
      state: 'timed_out',
      outcome: 'uncertain',
      uncertainCause: 'timeout',
      receipt: { verdict: 'unknown', authority: 'none' },
      totalWritten: 6,
    });
    expect(c.exitCode).toBeUndefined();
  });

  it('a guard killed from outside while this process holds the task: failed, uncertain (SH4)', async () => {
    const ws = workspace();
    const running = runBackground({ command: 'echo up; sleep 30' }, bgCtx(ws, 'bg_5_0_0'));
    expect(await eventually(() => (statusOf(ws, 'bg_5_0_0')?.guardPid ?? 0) > 0, 10_000)).toBe(true);
    process.kill(-statusOf(ws, 'bg_5_0_0')!.guardPid!, 'SIGKILL');
    const c = await running;
    expect(c).toMatchObject({ state: 'failed', outcome: 'uncertain', uncertainCause: 'guard_lost' });
    expect(c.report).toContain('UNCERTAIN');
  });

  it('nothing runs for a bad workdir or task id: not_started, typed code, no throw', async () => {
    const ws = workspace();
    const bad = await runBackground({ command: 'touch ran', workdir: 'missing' }, bgCtx(ws, 'bg_6_0_0'));
    expect(bad).toMatchObject({ state: 'not_started', outcome: 'error', errorCode: 'not_found', totalWritten: 0 });
    expect(bad.report).toContain('did not start');
    expect(exists(ws, 'ran')).toBe(false);
    expect(statusOf(ws, 'bg_6_0_0')).toMatchObject({ state: 'not_started', errorCode: 'not_found' });
    const out = await runBg({ action: 'output', taskID: 'bg_6_0_0' }, toolCtx(ws));
    expect(out.data).toMatchObject({ terminal: true, state: 'not_started', bytes: 0, totalWritten: 0 });

    const badId = await runBackground({ command: 'touch ran' }, bgCtx(ws, 'bg_../../x'));
    expect(badId).toMatchObject({ state: 'not_started', errorCode: 'invalid_task_id' });
    expect(existsSync(join(ws, '.zuno'))).toBe(true); // only from the first task
    expect(exists(ws, 'ran')).toBe(false);

    const badArgs = await runBackground({ command: '' }, bgCtx(ws, 'bg_6_1_0'));
    expect(badArgs).toMatchObject({ state: 'not_started', errorCode: 'invalid_arguments' });
  });

  it('a task id that already ran is never run again: its stored completion comes back', async () => {
    const ws = workspace();
    const first = await runBackground({ command: 'echo x >> count' }, bgCtx(ws, 'bg_7_0_0'));
    const second = await runBackground({ command: 'echo x >> count' }, bgCtx(ws, 'bg_7_0_0'));
    expect(second).toEqual(first);
    expect(readFileSync(join(ws, 'count'), 'utf8')).toBe('x\n');
    // Two calls at once for one new task share one run.
    const [a, b] = await Promise.all([
      runBackground({ command: 'echo y >> count2' }, bgCtx(ws, 'bg_7_1_0')),
      runBackground({ command: 'echo y >> count2' }, bgCtx(ws, 'bg_7_1_0')),
    ]);
    expect(a).toEqual(b);
    expect(readFileSync(join(ws, 'count2'), 'utf8')).toBe('y\n');
  });

  it('ZUNO_* is stripped in the background too; other variables pass (SH6)', async () => {
    const ws = workspace();
    const c = await runBackground(
      { command: 'printf "%s|%s|%s" "${ZUNO_FOO-unset}" "${zuno_bar-unset}" "$KEEP_ME"' },
      bgCtx(ws, 'bg_8_0_0', { env: { ...process.env, ZUNO_FOO: 'secret', zuno_bar: 'x', KEEP_ME: 'kept' } }),
    );
    expect(readFileSync(c.outputPath, 'utf8')).toBe('unset|unset|kept');
  });

  it('backgroundPurpose remoteObserver is persisted and shown; it changes nothing else (SH9)', async () => {
    const ws = workspace();
    const c = await runBackground(
      { command: 'echo watching', backgroundPurpose: 'remoteObserver' },
      bgCtx(ws, 'bg_9_0_0'),
    );
    expect(c).toMatchObject({ state: 'exited', exitCode: 0, backgroundPurpose: 'remoteObserver' });
    expect(c.report).toContain('remoteObserver');
    expect(statusOf(ws, 'bg_9_0_0')).toMatchObject({ backgroundPurpose: 'remoteObserver' });
    const l = await runBg({ action: 'list' }, toolCtx(ws));
    expect(l.data).toMatchObject({ tasks: [{ taskID: 'bg_9_0_0', backgroundPurpose: 'remoteObserver' }] });
  });

  it('list shows the tasks of this session only; the same task id in two sessions does not collide', async () => {
    const ws = workspace();
    await runBackground({ command: 'echo a1' }, bgCtx(ws, 'bg_1_0_0'));
    await runBackground({ command: 'exit 2' }, bgCtx(ws, 'bg_1_1_0'));
    await runBackground({ command: 'echo other' }, bgCtx(ws, 'bg_1_0_0', { sessionId: 'ses_other' }));
    const running = runBackground({ command: 'echo live; sleep 30' }, bgCtx(ws, 'bg_1_2_0'));
    try {
      expect(await eventually(() => (statusOf(ws, 'bg_1_2_0')?.guardPid ?? 0) > 0, 10_000)).toBe(true);
      const l = await runBg({ action: 'list' }, toolCtx(ws));
      expect(l.isError).toBe(false);
      expect((l.data as { tasks: unknown[] }).tasks).toEqual([
        expect.objectContaining({
          taskID: 'bg_1_0_0',
          state: 'exited',
          exitCode: 0,
          command: 'echo a1',
          totalWritten: 3,
        }),
        expect.objectContaining({ taskID: 'bg_1_1_0', state: 'exited', exitCode: 2, totalWritten: 0 }),
        expect.objectContaining({ taskID: 'bg_1_2_0', state: 'running', command: 'echo live; sleep 30' }),
      ]);
      expect(l.output).toContain('bg_1_1_0  exited 2  0 bytes  exit 2');
      const other = await runBg({ action: 'list' }, toolCtx(ws, { sessionId: 'ses_other' }));
      expect(other.data).toEqual({ tasks: [expect.objectContaining({ taskID: 'bg_1_0_0', command: 'echo other' })] });
      const mine = await runBg({ action: 'output', taskID: 'bg_1_0_0' }, toolCtx(ws));
      expect(mine.output.endsWith('\n\na1\n')).toBe(true);
      const empty = await runBg({ action: 'list' }, toolCtx(ws, { sessionId: 'ses_none' }));
      expect(empty.output).toBe('No background tasks in this session.');
    } finally {
      await runBg({ action: 'cancel', taskID: 'bg_1_2_0' }, toolCtx(ws));
      await running;
    }
  });

  it('the foreground shell refuses background: true instead of running it in the foreground', async () => {
    const ws = workspace();
    const o = await runShell(
      { command: 'touch ran', background: true },
      {
        workspace: ws,
        sessionId: SESSION,
        rowId: 'tc_1_0_0',
        callId: 'call_fg',
        artifactDir: join(ws, '.zuno', 'artifacts'),
      },
    );
    expect(o).toMatchObject({ outcome: 'error', errorCode: 'background_not_routed' });
    expect(exists(ws, 'ran')).toBe(false);
  });

  it('the shell tool answers a background call at once with its task id; nothing runs until the session runs it', async () => {
    const ws = workspace();
    const args = { command: 'touch ran', background: true, backgroundPurpose: 'remoteObserver' as const };
    const started = await runShellTool(args, toolCtx(ws, { backgroundTaskID: 'bg_4_2_1' }));
    expect(started).toMatchObject({
      isError: false,
      data: { taskID: 'bg_4_2_1', background: true, timeoutMs: 3_600_000, backgroundPurpose: 'remoteObserver' },
    });
    expect(started.output).toMatch(/^Started background task bg_4_2_1: touch ran\n/);
    expect(exists(ws, 'ran')).toBe(false);
    const badDir = await runShellTool({ ...args, workdir: 'nope' }, toolCtx(ws, { backgroundTaskID: 'bg_4_2_2' }));
    expect(badDir).toMatchObject({ isError: true, errorCode: 'not_found' });
    const noId = await runShellTool(args, toolCtx(ws));
    expect(noId).toMatchObject({ isError: true, errorCode: 'background_unavailable' });
  });

  it('unknown task ids are typed errors; malformed ones are invalid arguments', async () => {
    const ws = workspace();
    mkdirSync(taskDir(ws, SESSION, 'bg_0_0_0'), { recursive: true }); // a directory without status
    for (const action of ['output', 'wait', 'cancel'] as const) {
      const r = await runBg({ action, taskID: 'bg_0_0_0' }, toolCtx(ws));
      expect(r).toMatchObject({
        isError: true,
        errorCode: 'unknown_task',
        data: { taskID: 'bg_0_0_0', terminal: false },
      });
      expect(r.output).toContain('No background task bg_0_0_0 in this session');
    }
    const bad = await runBg({ action: 'output', taskID: '../etc' } as never, toolCtx(ws));
    expect(bad).toMatchObject({ isError: true, errorCode: 'invalid_arguments' });
  });
});
