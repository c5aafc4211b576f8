import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { interruptSession } from '../../client/session-start.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { alive, pidWritten, useCleanups } from '../helpers/session.js';
import { waitFor } from '../helpers/worker-process.js';

const cleanups = useCleanups();
let h: Harness;
beforeAll(async () => {
  h = await createHarness({ address: inject('temporalAddress') });
  cleanups.push(() => h.close());
});

type Request = { messages: { role: string; content: string | null }[] };

/** Every message text of every captured provider request, joined. */
function allRequestText(requests: unknown[]): string {
  return (requests as Request[]).flatMap((r) => r.messages.map((m) => m.content ?? '')).join('\n');
}

describe('background commands in sessions (BG1–BG6)', () => {
  it('a completion is admitted as a report and drives a turn of its own, once', async () => {
    const ws = mkdtempSync(join(tmpdir(), 'zuno-bg-report-'));
    const run = await h.runSession({
      workspace: ws,
      prompt: 'start the build in the background',
      script: {
        replies: [
          {
            toolCalls: [
              {
                name: 'shell',
                arguments: { command: 'for i in 1 2 3; do echo line$i; sleep 0.3; done', background: true },
              },
            ],
          },
          { text: 'Started bg_0_0_0; I will report when it ends.' },
          { text: 'The background build printed line1..line3 and exited 0.' },
        ],
      },
    });
    expect(run.result).toMatchObject({ status: 'completed', turns: 2 });
    const t = (await h.store.loadTranscript(run.sessionId))!;
    const [start] = t.toolCalls;
    expect(start!.outcome).toBe('ok');
    expect(start!.output).toContain('bg_0_0_0');
    expect((start!.result as { taskID: string; background: boolean }).taskID).toBe('bg_0_0_0');
    // The report is its own input and user message, carried by the third request.
    expect(t.inputs).toHaveLength(2);
    expect(t.inputs[1]!.text).toMatch(/^<background_report taskID="bg_0_0_0">/);
    expect(t.inputs[1]!.text).toContain('line3');
    const third = run.providerRequests[2] as Request;
    const last = third.messages.at(-1)!;
    expect(last.role).toBe('user');
    expect(last.content).toContain('<background_report taskID="bg_0_0_0">');
    expect(allRequestText(run.providerRequests).split('<background_report').length - 1).toBe(1);
    expect(run.providerRequests).toHaveLength(3);
    const events = await h.store.listEvents(run.sessionId, 0, 1000);
    expect(events.filter((e) => e.type === 'bg.completed')).toHaveLength(1);
    expect(events.find((e) => e.type === 'bg.completed')!.data).toMatchObject({ taskID: 'bg_0_0_0', exitCode: 0 });
  }, 90_000);

  it('bg wait that observes the end consumes the completion: no report follows (BG5, BG6)', async () => {
    const ws = mkdtempSync(join(tmpdir(), 'zuno-bg-wait-'));
    const run = await h.runSession({
      workspace: ws,
      prompt: 'run and wait',
      script: {
        replies: [
          { toolCalls: [{ name: 'shell', arguments: { command: 'sleep 1.5; echo fin', background: true } }] },
          // A short wait times out and hands back the same task, still running (BG5).
          { toolCalls: [{ name: 'bg', arguments: { action: 'wait', taskID: 'bg_0_0_0', timeoutMs: 200 } }] },
          { toolCalls: [{ name: 'bg', arguments: { action: 'wait', taskID: 'bg_0_0_0', timeoutMs: 30_000 } }] },
          { text: 'It printed fin and exited 0.' },
        ],
      },
    });
    expect(run.result).toMatchObject({ status: 'completed', turns: 1 });
    const t = (await h.store.loadTranscript(run.sessionId))!;
    const [, early, late] = t.toolCalls;
    expect(early!.outcome).toBe('ok');
    expect(early!.result).toMatchObject({ taskID: 'bg_0_0_0', timedOut: true, terminal: false });
    expect(late!.result).toMatchObject({ taskID: 'bg_0_0_0', terminal: true });
    expect(late!.output).toContain('fin');
    // Consumed by the wait: the completion never became a report.
    expect(t.inputs).toHaveLength(1);
    expect(allRequestText(run.providerRequests)).not.toContain('<background_report');
    expect(run.providerRequests).toHaveLength(4);
  }, 90_000);

  /** A plain background task runs in one `bgCommand` activity; a remote observer's wait is held by the workflow (start, timers, polls). */
  const kinds = [
    { title: '', args: {}, activity: 'bgCommand', absent: 'bgObserverStart' },
    {
      title: ' (a remote observer: its wait held by the workflow)',
      args: { backgroundPurpose: 'remoteObserver' },
      activity: 'bgObserverStart',
      absent: 'bgCommand',
    },
  ].map((k) => ({
    ...k,
    /** The task ran through the activities of its kind. */
    async check(sessionId: string) {
      const history = await h.client.workflow.getHandle(`session/${sessionId}`).fetchHistory();
      const types = (history.events ?? []).map((e) => e.activityTaskScheduledEventAttributes?.activityType?.name);
      expect(types).toContain(k.activity);
      expect(types).not.toContain(k.absent);
    },
  }));
  for (const kind of kinds) {
    it(`bg cancel stops the task and its whole process group; the session ends without a report${kind.title}`, async () => {
      const ws = mkdtempSync(join(tmpdir(), 'zuno-bg-cancel-'));
      const run = await h.startScripted({
        workspace: ws,
        prompt: 'start and stop',
        script: {
          replies: [
            {
              toolCalls: [
                {
                  name: 'shell',
                  arguments: { command: 'echo $$ > pid.txt; sleep 120', background: true, ...kind.args },
                },
              ],
            },
            { toolCalls: [{ name: 'bg', arguments: { action: 'wait', taskID: 'bg_0_0_0', timeoutMs: 1500 } }] },
            { toolCalls: [{ name: 'bg', arguments: { action: 'cancel', taskID: 'bg_0_0_0' } }] },
            { text: 'Cancelled it.' },
          ],
        },
      });
      cleanups.push(() => run.closeProvider());
      await waitFor(async () => pidWritten(ws), 60_000, 'the task to start');
      const pid = Number(readFileSync(join(ws, 'pid.txt'), 'utf8').trim());
      const result = await run.result();
      expect(result).toMatchObject({ status: 'completed', turns: 1 });
      expect(alive(pid)).toBe(false);
      const t = (await h.store.loadTranscript(run.sessionId))!;
      const cancel = t.toolCalls[2]!;
      expect(cancel.tool).toBe('bg');
      expect(cancel.result).toMatchObject({ taskID: 'bg_0_0_0', terminal: true, state: 'cancelled' });
      expect(t.inputs).toHaveLength(1);
      expect(allRequestText(run.providerRequests)).not.toContain('<background_report');
      await kind.check(run.sessionId);
    }, 90_000);

    it(`after the final answer the session waits for its task (waiting_background); an interrupt then stops it and ends the run${kind.title}`, async () => {
      const ws = mkdtempSync(join(tmpdir(), 'zuno-bg-idle-'));
      const run = await h.startScripted({
        workspace: ws,
        prompt: 'watch it',
        script: {
          replies: [
            {
              toolCalls: [
                {
                  name: 'shell',
                  arguments: { command: 'echo $$ > pid.txt; sleep 120', background: true, ...kind.args },
                },
              ],
            },
            { text: 'Watching bg_0_0_0; I will report when it ends.' },
          ],
        },
      });
      cleanups.push(() => run.closeProvider());
      // The workflow's own phase, not the projection row: finishTurn writes the row before the workflow has
      // taken the turn's end, and an interrupt in between still finds the turn running.
      await waitFor(
        async () =>
          (await h.client.workflow.getHandle(`session/${run.sessionId}`).query<{ phase: string }>('state')).phase ===
          'waiting_background',
        30_000,
        'the session to wait for its background task',
      );
      // The task's activity may start a moment after the turn ended.
      await waitFor(async () => pidWritten(ws), 30_000, 'the background command to start');
      const pid = Number(readFileSync(join(ws, 'pid.txt'), 'utf8').trim());
      expect(alive(pid)).toBe(true);
      const completed = (await h.store.listEvents(run.sessionId, 0, 1000)).find((e) => e.type === 'session.completed');
      expect(completed!.data.background).toEqual(['bg_0_0_0']);
      const receipt = await interruptSession(h.client, run.sessionId, 'test');
      expect(receipt).toMatchObject({ interrupted: true, phase: 'idle', backgroundCancelled: ['bg_0_0_0'] });
      const result = await run.result();
      expect(result.status).toBe('interrupted');
      expect(alive(pid)).toBe(false);
      const events = await h.store.listEvents(run.sessionId, 0, 1000);
      expect(events.find((e) => e.type === 'bg.completed')!.data).toMatchObject({
        taskID: 'bg_0_0_0',
        state: 'cancelled',
      });
      expect(events.at(-1)!.type).toBe('session.interrupted');
      // Stopped by the interrupt: its outcome is recorded, but no report turn followed.
      expect((await h.store.loadTranscript(run.sessionId))!.inputs).toHaveLength(1);
      expect(run.providerRequests).toHaveLength(2);
      await kind.check(run.sessionId);
    }, 90_000);
  }
});
