import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { DEFAULT_ACTIVITY_DEFAULTS } from '../../core/activity-defaults.js';
import { interruptSession, submitInput } from '../../client/session-start.js';
import { localProvider } from '../../client/zuno-config.js';
import { interruptVerdict } from '../../core/session/interrupt-verdict.js';
import { toolRecordFacts } from '../../client/commands/tool-record-view.js';
import type { SessionMeta } from '../../core/session/meta.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { alive, createProcessHarness, pidWritten, resultWithin, useCleanups } from '../helpers/session.js';
import { waitFor } from '../helpers/worker-process.js';

const cleanups = useCleanups();

describe('hard interrupt (TD10, SH5)', () => {
  it('cancels a running shell command cooperatively, records its own report, and leaves later calls not run', async () => {
    const h: Harness = await createHarness({ address: inject('temporalAddress') });
    cleanups.push(() => h.close());
    const ws = mkdtempSync(join(tmpdir(), 'zuno-int-ws-'));
    const run = await h.startScripted({
      workspace: ws,
      prompt: 'run the long job',
      script: {
        replies: [
          {
            toolCalls: [
              { name: 'shell', arguments: { command: 'echo $$ > pid.txt; echo started; sleep 60; echo finished' } },
              { name: 'shell', arguments: { command: 'echo second > second.txt' } },
            ],
          },
          { text: 'never reached' },
        ],
      },
    });
    cleanups.push(() => run.closeProvider());
    await waitFor(async () => pidWritten(ws), 60_000, 'the command to start');
    const pid = Number(readFileSync(join(ws, 'pid.txt'), 'utf8').trim());
    const receipt = await interruptSession(h.client, run.sessionId, 'test');
    expect(receipt).toMatchObject({ sessionId: run.sessionId, interrupted: true, alreadyRequested: false, turn: 0 });
    expect(receipt.phase).toBe('tools');
    const again = await interruptSession(h.client, run.sessionId, 'test');
    expect(again.alreadyRequested).toBe(true);
    const result = await run.result();
    expect(result.status).toBe('interrupted');
    // The command's group is gone and the second call never ran.
    expect(alive(pid)).toBe(false);
    expect(existsSync(join(ws, 'second.txt'))).toBe(false);
    const t = (await h.store.loadTranscript(run.sessionId))!;
    const [first, second] = t.toolCalls;
    // SH5: the command had not exited → its own report, output kept, receipt unknown, uncertain.
    expect(first!.outcome).toBe('uncertain');
    expect(first!.output).toContain('started');
    expect(first!.output).not.toContain('finished');
    const data = first!.result as {
      receipt: { verdict: string };
      cancellation: { kind: string; reachedAtMs: number; settledAtMs: number };
    };
    expect(data.receipt.verdict).toBe('unknown');
    expect(data.cancellation.kind).toBe('cooperative');
    // Settled inside the cooperative window, never the forced path (a SIGKILL after 2 s is `forced`).
    expect(data.cancellation.settledAtMs).toBeGreaterThanOrEqual(data.cancellation.reachedAtMs);
    expect(second).toMatchObject({ outcome: 'error', errorCode: 'not_run' });
    expect(second!.output).toContain('did not run');
    expect(t.session.status).toBe('interrupted');
    expect(t.inputs.map((i) => i.state)).toEqual(['cancelled']);
    // Only the first model request was made.
    expect(run.providerRequests).toHaveLength(1);
    // SF13: each stopped call's verdict is published before the turn's end, in session show's words.
    const events = await h.store.listEvents(run.sessionId, 0, 1000);
    const verdicts = events.filter((e) => e.type === 'tool.dispatch.interrupted').map((e) => e.data);
    const cause = (first!.result as { uncertainCause: string }).uncertainCause;
    expect(verdicts).toEqual([
      expect.objectContaining({
        rowId: first!.id,
        outcome: 'uncertain',
        cause,
        verdict: interruptVerdict({ outcome: 'uncertain', cause }),
      }),
      expect.objectContaining({
        rowId: second!.id,
        outcome: 'error',
        cause: 'not_run',
        verdict: 'not run: the turn was interrupted before it ran',
      }),
    ]);
    expect(toolRecordFacts(first!.result)).toContain(verdicts[0]!.verdict);
    const end = events.findIndex((e) => e.type === 'session.interrupted');
    expect(events.findLastIndex((e) => e.type === 'tool.dispatch.interrupted')).toBeLessThan(end);
    expect(events[end]!.data.inputIds).toEqual([t.inputs[0]!.id]);
  }, 120_000);

  it('a command that ignores SIGTERM outlives the 2 s window: its own report is labelled forced and uncertain, as its stop was (TD10, TD15)', async () => {
    const h: Harness = await createHarness({ address: inject('temporalAddress') });
    cleanups.push(() => h.close());
    const ws = mkdtempSync(join(tmpdir(), 'zuno-int-ws-'));
    const run = await h.startScripted({
      workspace: ws,
      prompt: 'run the stubborn job',
      script: {
        replies: [
          { toolCalls: [{ name: 'shell', arguments: { command: "trap '' TERM; echo $$ > pid.txt; sleep 60" } }] },
          { text: 'never reached' },
        ],
      },
    });
    cleanups.push(() => run.closeProvider());
    await waitFor(async () => pidWritten(ws), 60_000, 'the command to start');
    await interruptSession(h.client, run.sessionId, 'test');
    expect((await run.result()).status).toBe('interrupted');
    const [call] = (await h.store.loadTranscript(run.sessionId))!.toolCalls;
    const data = call!.result as {
      stop: { mode: string };
      cancellation: { kind: string; reachedAtMs: number; settledAtMs: number; windowMs: number };
    };
    expect(call!.outcome).toBe('uncertain');
    expect(data.stop.mode).toBe('forced');
    expect(data.cancellation.kind).toBe('forced');
    expect(data.cancellation.windowMs).toBe(2_000);
    expect(data.cancellation.settledAtMs - data.cancellation.reachedAtMs).toBeGreaterThan(2_000);
  }, 120_000);

  it('an idle session reports nothing to interrupt; a long-lived session takes the next input after an interrupt', async () => {
    const h: Harness = await createHarness({ address: inject('temporalAddress') });
    cleanups.push(() => h.close());
    const ws = mkdtempSync(join(tmpdir(), 'zuno-int-live-'));
    const run = await h.startScripted({
      workspace: ws,
      prompt: 'first',
      exitWhenIdle: false,
      script: {
        replies: [
          { toolCalls: [{ name: 'shell', arguments: { command: 'touch started; sleep 60' } }] },
          { text: 'after the interrupt' },
        ],
      },
    });
    cleanups.push(() => run.closeProvider());
    cleanups.push(() => h.client.workflow.getHandle(run.workflowId).terminate('test over'));
    await waitFor(async () => existsSync(join(ws, 'started')), 60_000, 'the command to start');
    await interruptSession(h.client, run.sessionId, 'test');
    const settled = await waitFor(
      async () => {
        const s = await h.store.getSession(run.sessionId);
        return s?.status === 'interrupted' ? s : null;
      },
      30_000,
      'the session to record the interrupt',
    );
    expect(settled.status).toBe('interrupted');
    const idle = await interruptSession(h.client, run.sessionId, 'test');
    expect(idle.interrupted).toBe(false);
    // The next input drives a new turn whose request carries the interrupted call's result.
    const receipt = await submitInput(h.client, run.sessionId, { text: 'carry on' });
    expect(receipt.status).toBe('driven');
    await waitFor(
      async () => (await h.store.getSession(run.sessionId))?.status === 'completed',
      30_000,
      'the second turn to complete',
    );
    const second = run.providerRequests[1] as { messages: { role: string; content: string }[] };
    const toolMsg = second.messages.find((m) => m.role === 'tool');
    expect(toolMsg?.content).toMatch(/cancel/i);
    expect(second.messages.at(-1)).toMatchObject({ role: 'user', content: 'carry on' });
  }, 120_000);

  it('a call that does not settle within the window is recorded forced + uncertain; its late report does not overwrite it', async () => {
    const { h, workers, spawnWorker } = await createProcessHarness('zuno-int-forced', cleanups);
    const ws = mkdtempSync(join(tmpdir(), 'zuno-int-forced-ws-'));
    // Thaw a worker left frozen before the harness crashes it.
    cleanups.push(async () => {
      for (const w of workers) if (w.child.pid) process.kill(-w.child.pid, 'SIGCONT');
    });
    spawnWorker();
    const run = await h.startScripted({
      workspace: ws,
      prompt: 'append',
      activityDefaults: {
        ...DEFAULT_ACTIVITY_DEFAULTS,
        tool: { startToCloseTimeoutMs: 300_000, heartbeatTimeoutMs: 120_000 },
      },
      script: {
        replies: [
          { toolCalls: [{ name: 'shell', arguments: { command: 'echo appended >> log.txt; sleep 60' } }] },
          { text: 'never reached' },
        ],
      },
    });
    cleanups.push(() => run.closeProvider());
    await waitFor(async () => existsSync(join(ws, 'log.txt')), 60_000, 'the command to append its line');
    // Freeze the worker that runs the call (and its command): it can neither heartbeat nor report.
    const frozen = workers[0]!;
    process.kill(-frozen.child.pid!, 'SIGSTOP');
    spawnWorker();
    // The frozen worker holds the session's sticky queue: delivery waits for Temporal's workflow-task timeout.
    await interruptSession(h.client, run.sessionId, 'test', 90_000);
    const result = await resultWithin(run, workers[1]!, 90_000);
    expect(result.status).toBe('interrupted');
    const [call] = (await h.store.loadTranscript(run.sessionId))!.toolCalls;
    expect(call!.outcome).toBe('uncertain');
    expect((call!.result as { uncertain: { cause: string } }).uncertain.cause).toBe('interrupted');
    expect(call!.errorCode).toBe('forced_interrupt');
    expect(call!.output).toContain('Inspect the authoritative state');
    const verdict = (await h.store.eventsOfType(run.sessionId, 'tool.dispatch.interrupted')).map((e) => e.data.verdict);
    expect(verdict).toEqual(['uncertain: an interrupt stopped it before it reported']);
    // Thaw it: the frozen call now settles and reports late; the forced record stands.
    process.kill(-frozen.child.pid!, 'SIGCONT');
    await waitFor(
      async () => (await h.store.listEvents(run.sessionId, 0, 1000)).find((e) => e.type === 'tool.late_result'),
      30_000,
      'the late report',
    );
    const [after] = (await h.store.loadTranscript(run.sessionId))!.toolCalls;
    expect(after!.outcome).toBe('uncertain');
    expect(after!.errorCode).toBe('forced_interrupt');
    expect(readFileSync(join(ws, 'log.txt'), 'utf8')).toBe('appended\n');
  }, 180_000);

  it('typed errors: an unknown session, an ended one, and a session no worker serves', async () => {
    const h: Harness = await createHarness({ address: inject('temporalAddress') });
    cleanups.push(() => h.close());
    await expect(interruptSession(h.client, 'ses_doesnotexist', 'test')).rejects.toMatchObject({
      code: 'session_not_found',
    });
    const ws = mkdtempSync(join(tmpdir(), 'zuno-int-typed-'));
    const done = await h.runSession({ workspace: ws, prompt: 'hi', script: { replies: [{ text: 'hello' }] } });
    await expect(interruptSession(h.client, done.sessionId, 'test')).rejects.toMatchObject({
      code: 'session_not_running',
    });
    // A session on a task queue no worker polls: the interrupt cannot be delivered; say so instead of hanging.
    const sessionId = `ses_noworker${Date.now().toString(36)}`;
    const meta: SessionMeta = {
      sessionId,
      workspace: ws,
      provider: localProvider('http://127.0.0.1:9/v1'),
      model: 'scripted',
      title: 'no worker',
      toolConcurrency: 1,
      activityDefaults: DEFAULT_ACTIVITY_DEFAULTS,
    };
    const handle = await h.client.workflow.start('sessionWorkflow', {
      workflowId: `session/${sessionId}`,
      taskQueue: `zuno-no-worker-${Date.now()}`,
      args: [{ meta, exitWhenIdle: true }],
    });
    cleanups.push(() => handle.terminate('test over'));
    await expect(interruptSession(h.client, sessionId, 'test', 1_500)).rejects.toMatchObject({ code: 'no_worker' });
  }, 90_000);
});
