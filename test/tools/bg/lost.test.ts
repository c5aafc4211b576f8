import { type ChildProcess, spawn } from 'node:child_process';
import { statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runBackground, runBg } from '../../../activities/tools/bg/index.js';
import { eventually, exists, SESSION, statusOf, toolCtx, workspace } from './helpers.js';
import { pidAlive, taskOutputPath } from '../../../activities/tools/bg/store.js';
import { viewTask } from '../../../activities/tools/bg/view.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/run-background.ts', import.meta.url));

/**
 * Starts a worker process (the fixture) holding background task `taskId`
 * running `command`, and waits until the file `marker` exists and the
 * task's guard process is recorded. Returns the worker process.
 */
async function holdTask(ws: string, taskId: string, command: string, marker: string): Promise<ChildProcess> {
  const worker = spawn(process.execPath, ['--import', 'tsx', FIXTURE, ws, SESSION, taskId, command], {
    stdio: 'ignore',
  });
  try {
    expect(await eventually(() => exists(ws, marker) && (statusOf(ws, taskId)?.guardPid ?? 0) > 0, 20_000)).toBe(true);
  } catch (err) {
    worker.kill('SIGKILL');
    throw err;
  }
  return worker;
}

describe('a task whose process died reads as lost (BG2, TD4)', () => {
  it('the worker holding the task is SIGKILLed: its guard group dies, bg reads lost, nothing re-runs', async () => {
    const ws = workspace();
    const worker = await holdTask(
      ws,
      'bg_1_0_0',
      'echo started; touch running; echo $$ > shell.pid; sleep 60',
      'running',
    );
    try {
      const status = statusOf(ws, 'bg_1_0_0')!;
      expect(status).toMatchObject({ state: 'running', workerPid: worker.pid });
      const ctx = toolCtx(ws);

      // Held by another live process: running, read from disk, cancel only observes.
      const seen = await runBg({ action: 'output', taskID: 'bg_1_0_0' }, ctx);
      expect(seen.data).toMatchObject({ state: 'running', terminal: false, fromDisk: true, totalWritten: 8 });
      const list = await runBg({ action: 'list' }, ctx);
      expect(list.data).toMatchObject({ tasks: [{ taskID: 'bg_1_0_0', state: 'running' }] });

      worker.kill('SIGKILL');
      expect(await eventually(() => !pidAlive(status.guardPid), 5_000)).toBe(true);

      const lost = await runBg({ action: 'output', taskID: 'bg_1_0_0' }, ctx);
      expect(lost.isError).toBe(false);
      expect(lost.data).toMatchObject({
        taskID: 'bg_1_0_0',
        terminal: true,
        state: 'lost',
        uncertain: true,
        outcome: 'uncertain',
        receipt: { verdict: 'unknown', authority: 'none' },
      });
      expect(lost.output).toMatch(/^Task bg_1_0_0 \(lost \(uncertain\)\)/);
      expect(lost.output.endsWith('\n\nstarted\n')).toBe(true);
      const waited = await runBg({ action: 'wait', taskID: 'bg_1_0_0', timeoutMs: 5_000 }, ctx);
      expect(waited.data).toMatchObject({ terminal: true, state: 'lost', timedOut: false });
      const cancelled = await runBg({ action: 'cancel', taskID: 'bg_1_0_0' }, ctx);
      expect(cancelled.data).toMatchObject({ terminal: true, state: 'lost', alreadyEnded: true });
      expect(cancelled.output).toContain('was lost');

      // Running the same task again never re-runs it.
      const again = await runBackground(
        { command: 'touch rerun' },
        { workspace: ws, sessionId: SESSION, rowId: 'tc_1_0_0', callId: 'call_fixture', taskID: 'bg_1_0_0' },
      );
      expect(again).toMatchObject({ state: 'lost', outcome: 'uncertain', uncertainCause: 'lost' });
      expect(exists(ws, 'rerun')).toBe(false);
    } finally {
      worker.kill('SIGKILL');
    }
  });

  it('its report gives the bytes on disk and how long it stood until the loss was seen, not the output file mtime', async () => {
    // Issue 25 item 7.4: a task lost 4.4 s in reported "0 bytes of output in 0.0 s".
    const ws = workspace();
    const worker = await holdTask(
      ws,
      'bg_2_0_0',
      'printf "first\\n"; sleep 1; printf "second\\n"; touch second; sleep 60',
      'second',
    );
    try {
      const status = statusOf(ws, 'bg_2_0_0')!;
      // Quiet after its last output: the time it stood lost is not the time it last wrote.
      await new Promise((r) => setTimeout(r, 300));
      const killedAtMs = Date.now();
      worker.kill('SIGKILL');
      expect(await eventually(() => !pidAlive(status.guardPid), 5_000)).toBe(true);

      const view = await viewTask(ws, SESSION, 'bg_2_0_0');
      const c = view!.completion!;
      expect(c).toMatchObject({ state: 'lost', outcome: 'uncertain' });
      const onDisk = statSync(taskOutputPath(ws, SESSION, 'bg_2_0_0')).size;
      expect(onDisk).toBe('first\nsecond\n'.length);
      expect(c.totalWritten).toBe(onDisk);
      // From its recorded start to when the loss was seen: at least until the kill.
      expect(c.durationMs).toBeGreaterThanOrEqual(killedAtMs - status.startedAtMs);
      const head = c.report.split('\n')[0]!;
      const m = /was lost \(seen lost (\d+\.\d) s after its start; last output (\d+\.\d) s after its start\)/.exec(
        head,
      );
      expect(m, head).not.toBeNull();
      expect(Number(m![1])).toBe(Number((c.durationMs / 1000).toFixed(1)));
      // The second line was written after a 1 s sleep.
      expect(Number(m![2])).toBeGreaterThanOrEqual(1);
      expect(c.report).toContain(`Output (all ${onDisk} bytes):`);
    } finally {
      worker.kill('SIGKILL');
    }
  });
});
