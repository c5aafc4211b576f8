import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { DEFAULT_ACTIVITY_DEFAULTS } from '../../core/activity-defaults.js';
import { createProcessHarness, resultWithin, useCleanups } from '../helpers/session.js';
import { waitFor } from '../helpers/worker-process.js';

const cleanups = useCleanups();

it('a worker killed during a tool activity: a new worker retries the Safe call and the session completes once', async () => {
  const { h, spawnWorker } = await createProcessHarness('zuno-crash', cleanups);
  const workspace = mkdtempSync(join(tmpdir(), 'zuno-crash-ws-'));
  const first = spawnWorker();
  // `bg wait` (Safe) blocks for up to 60 s on a background task that prints and then sleeps:
  // the tool activity is reliably "in the middle" when the worker dies.
  const run = await h.startScripted({
    workspace,
    prompt: 'find the needle',
    activityDefaults: {
      ...DEFAULT_ACTIVITY_DEFAULTS,
      tool: { startToCloseTimeoutMs: 90_000, heartbeatTimeoutMs: 2_000 },
      safeRetry: { ...DEFAULT_ACTIVITY_DEFAULTS.safeRetry, initialIntervalMs: 200 },
    },
    script: {
      replies: [
        { toolCalls: [{ name: 'shell', arguments: { command: 'echo needle; sleep 600', background: true } }] },
        {
          text: 'Waiting.',
          toolCalls: [{ name: 'bg', arguments: { action: 'wait', taskID: 'bg_0_0_0', timeoutMs: 60_000 } }],
        },
        { text: 'The task printed the needle before its worker was lost.' },
      ],
    },
  });
  const started = await waitFor(
    async () =>
      (await h.store.listEvents(run.sessionId, 0, 100)).find((e) => e.type === 'tool.started' && e.data.tool === 'bg'),
    60_000,
    'the bg wait to start',
  );
  expect(started.data.attempt).toBe(1);
  await new Promise((r) => setTimeout(r, 300));
  await first.crash();

  const second = spawnWorker();
  const result = await resultWithin(run, second, 90_000);
  await run.closeProvider();
  expect(result.status).toBe('completed');

  const t = (await h.store.loadTranscript(run.sessionId))!;
  const ids = t.parts.map((p) => p.id);
  expect(new Set(ids).size).toBe(ids.length);
  expect(t.parts.filter((p) => p.kind === 'tool_result')).toHaveLength(2);
  expect(t.parts.filter((p) => p.kind === 'tool_call')).toHaveLength(2);
  expect(t.toolCalls.map((c) => [c.tool, c.outcome, c.attempts])).toEqual([
    ['shell', 'ok', 1],
    ['bg', 'ok', 2],
  ]);
  // The retried wait saw the task's output and that its worker is gone.
  expect(t.toolCalls[1]!.output).toContain('needle');
  expect(t.toolCalls[1]!.result).toMatchObject({ taskID: 'bg_0_0_0', terminal: true, state: 'lost' });
  expect(t.session.finalText).toBe('The task printed the needle before its worker was lost.');
  // The wait consumed the completion: no report turn followed.
  expect(t.inputs).toHaveLength(1);
  const events = await h.store.listEvents(run.sessionId, 0, 1000);
  const bgStarts = events.filter((e) => e.type === 'tool.started' && e.data.tool === 'bg');
  expect(bgStarts.map((e) => e.data.attempt)).toEqual([1, 2]);
  expect(events.filter((e) => e.type === 'tool.completed')).toHaveLength(2);
  // Temporal itself recorded the retry of the Safe activity.
  const history = await h.client.workflow.getHandle(run.workflowId).fetchHistory();
  const attempts = (history.events ?? [])
    .filter((e) => e.activityTaskStartedEventAttributes)
    .map((e) => e.activityTaskStartedEventAttributes!.attempt);
  expect(attempts).toContain(2);
  await second.stop();
}, 180_000);
