import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, inject, it } from 'vitest';
import { DEFAULT_ACTIVITY_DEFAULTS } from '../../core/activity-defaults.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { spawnWorker, waitFor, type WorkerProcess, writeTestTemporalYaml } from '../helpers/worker-process.js';

let h: Harness | undefined;
const workers: WorkerProcess[] = [];
afterAll(async () => {
  for (const w of workers) await w.crash();
  await h?.close();
});

it('a worker killed during a tool activity: a new worker retries the Safe call and the session completes once', async () => {
  const home = mkdtempSync(join(tmpdir(), 'zuno-crash-'));
  const taskQueue = `zuno-crash-${Date.now()}`;
  const address = inject('temporalAddress');
  writeTestTemporalYaml(home, address, taskQueue);
  mkdirSync(join(home, '.zuno'));
  h = await createHarness({ address, withWorker: false, stateDir: join(home, '.zuno'), taskQueue });
  const workspace = mkdtempSync(join(tmpdir(), 'zuno-crash-ws-'));
  // grep opens this named pipe and blocks until a writer appears: the tool
  // activity is reliably "in the middle" when the worker dies.
  execFileSync('mkfifo', [join(workspace, 'slow.txt')]);

  const first = spawnWorker(home);
  workers.push(first);
  const run = await h.startScripted({
    workspace,
    prompt: 'find the needle',
    activityDefaults: {
      ...DEFAULT_ACTIVITY_DEFAULTS,
      tool: { startToCloseTimeoutMs: 60_000, heartbeatTimeoutMs: 2_000 },
      safeRetry: { ...DEFAULT_ACTIVITY_DEFAULTS.safeRetry, initialIntervalMs: 200 },
    },
    script: {
      replies: [
        { text: 'Looking.', toolCalls: [{ name: 'grep', arguments: { pattern: 'needle', path: 'slow.txt' } }] },
        { text: 'Found the needle in slow.txt.' },
      ],
    },
  });
  const started = await waitFor(
    async () => (await h!.store.listEvents(run.sessionId, 0, 100)).find((e) => e.type === 'tool.started'),
    60_000,
    'the first tool attempt to start',
  );
  expect(started.data.attempt).toBe(1);
  await new Promise((r) => setTimeout(r, 300));
  await first.crash();

  // The pipe becomes an ordinary file; only a retried attempt can see it.
  rmSync(join(workspace, 'slow.txt'));
  writeFileSync(join(workspace, 'slow.txt'), 'a needle in a haystack\n');
  const second = spawnWorker(home);
  workers.push(second);
  const result = await Promise.race([
    run.result(),
    new Promise<never>((_, rej) =>
      setTimeout(() => rej(new Error(`no result; worker stderr:\n${second.stderr()}`)), 90_000),
    ),
  ]);
  await run.closeProvider();
  expect(result.status).toBe('completed');

  const t = (await h.store.loadTranscript(run.sessionId))!;
  const ids = t.parts.map((p) => p.id);
  expect(new Set(ids).size).toBe(ids.length);
  expect(t.parts.filter((p) => p.kind === 'tool_result')).toHaveLength(1);
  expect(t.parts.filter((p) => p.kind === 'tool_call')).toHaveLength(1);
  expect(t.toolCalls).toHaveLength(1);
  expect(t.toolCalls[0]!.outcome).toBe('ok');
  expect(t.toolCalls[0]!.attempts).toBe(2);
  expect(t.toolCalls[0]!.output).toContain('needle');
  expect(t.session.finalText).toBe('Found the needle in slow.txt.');
  const events = await h.store.listEvents(run.sessionId, 0, 1000);
  expect(events.filter((e) => e.type === 'tool.started').map((e) => e.data.attempt)).toEqual([1, 2]);
  expect(events.filter((e) => e.type === 'tool.completed')).toHaveLength(1);
  // Temporal itself recorded the retry of the Safe activity.
  const history = await h.client.workflow.getHandle(run.workflowId).fetchHistory();
  const attempts = (history.events ?? [])
    .filter((e) => e.activityTaskStartedEventAttributes)
    .map((e) => e.activityTaskStartedEventAttributes!.attempt);
  expect(attempts).toContain(2);
  await second.stop();
}, 180_000);
