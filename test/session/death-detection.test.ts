import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { temporal } from '@temporalio/proto';
import { expect, it } from 'vitest';
import { createProcessHarness, useCleanups } from '../helpers/session.js';
import { waitFor } from '../helpers/worker-process.js';

/**
 * How fast a dead worker is noticed with the shipped activity defaults
 * (temporal.yaml: model heartbeat timeout 10 s, tool 8 s; issue 8 asks for
 * ≤ 15 s during a model step and ≤ 10 s during a tool call). The figures are
 * printed (on a quiet machine they meet those bounds); what is asserted is the
 * mechanism — the heartbeat timeout ended the attempt — and a bound far
 * below the alternative (the 10-minute start-to-close timeout) that a loaded
 * machine cannot break.
 */
const NOT_START_TO_CLOSE_MS = 60_000;
const cleanups = useCleanups();

it('a worker killed during a model step: the step is retried on another worker after its heartbeat timeout', async () => {
  const { h, spawnWorker } = await createProcessHarness('zuno-death-model', cleanups);
  const first = spawnWorker();
  const run = await h.startScripted({
    workspace: mkdtempSync(join(tmpdir(), 'zuno-death-ws-')),
    prompt: 'think slowly',
    script: { replies: [{ text: 'slow answer', fault: { delayMs: 120_000 } }] },
  });
  cleanups.push(() => run.closeProvider());
  const handle = h.client.workflow.getHandle(run.workflowId);
  cleanups.push(() => handle.terminate('test over'));
  const pendingModelStep = async () =>
    (await handle.describe()).raw.pendingActivities?.find((a) => a.activityType?.name === 'modelStep');
  await waitFor(async () => (await pendingModelStep())?.lastStartedTime, 60_000, 'the model step to start');
  const second = spawnWorker();
  await waitFor(async () => second.stderr().includes('polling task queue'), 60_000, 'the second worker to poll');
  const killedAt = Date.now();
  await first.crash();
  const retried = await waitFor(
    async () => {
      const p = await pendingModelStep();
      return (p?.attempt ?? 0) >= 2 && p?.lastStartedTime ? p : null;
    },
    60_000,
    'the model step to be retried',
  );
  const startedMs =
    Number(retried.lastStartedTime!.seconds) * 1000 + Math.round((retried.lastStartedTime!.nanos ?? 0) / 1e6);
  const detectedInMs = startedMs - killedAt;
  console.log(
    `worker death during a model step: attempt 2 started ${(detectedInMs / 1000).toFixed(1)} s after the kill`,
  );
  expect(retried.lastFailure?.message ?? '').toMatch(/heartbeat/i);
  expect(detectedInMs).toBeLessThan(NOT_START_TO_CLOSE_MS);
  await second.stop();
}, 180_000);

it('a worker killed during a tool call: the lost Never call is noticed by its heartbeat timeout and settled uncertain', async () => {
  const { h, spawnWorker } = await createProcessHarness('zuno-death-tool', cleanups);
  const workspace = mkdtempSync(join(tmpdir(), 'zuno-death-ws-'));
  const first = spawnWorker();
  const run = await h.startScripted({
    workspace,
    prompt: 'run it',
    script: {
      replies: [
        { toolCalls: [{ name: 'shell', arguments: { command: 'touch started; sleep 120' } }] },
        { text: 'The command’s outcome is uncertain; I will inspect before retrying.' },
      ],
    },
  });
  cleanups.push(() => run.closeProvider());
  await waitFor(async () => existsSync(join(workspace, 'started')), 60_000, 'the command to start');
  const killedAt = Date.now();
  await first.crash();
  const second = spawnWorker();
  const history = async () => (await h.client.workflow.getHandle(run.workflowId).fetchHistory()).events ?? [];
  const timedOut = await waitFor(
    async () => (await history()).find((e) => e.activityTaskTimedOutEventAttributes),
    60_000,
    'the tool activity to time out',
  );
  const at = Number(timedOut.eventTime!.seconds) * 1000 + Math.round((timedOut.eventTime!.nanos ?? 0) / 1e6);
  expect(timedOut.activityTaskTimedOutEventAttributes!.failure?.timeoutFailureInfo?.timeoutType).toBe(
    temporal.api.enums.v1.TimeoutType.TIMEOUT_TYPE_HEARTBEAT,
  );
  const detectedInMs = at - killedAt;
  console.log(`worker death during a tool call: noticed ${(detectedInMs / 1000).toFixed(1)} s after the kill`);
  expect(detectedInMs).toBeLessThan(NOT_START_TO_CLOSE_MS);
  const result = await run.result();
  expect(result.status).toBe('completed');
  const t = (await h.store.loadTranscript(run.sessionId))!;
  expect(t.toolCalls.map((c) => [c.tool, c.outcome])).toEqual([['shell', 'uncertain']]);
  await second.stop();
}, 180_000);
