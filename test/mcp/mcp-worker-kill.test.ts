/**
 * MC9 on Temporal (issue 30): the worker running an MCP call is SIGKILLed
 * mid-call. A side-effecting call (replay Never) is settled `uncertain` and
 * never re-run — one attempt in the history; a read-only call (Safe) is
 * retried by Temporal on the next worker, which opens its own connection,
 * and completes. Either way the dead worker's MCP server ends with it (its
 * stdio guard). Real dev server, `zuno worker` processes, server-everything
 * over stdio.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { DEFAULT_ACTIVITY_DEFAULTS } from '../../core/activity-defaults.js';
import { alive, createProcessHarness, resultWithin, useCleanups } from '../helpers/session.js';
import { waitFor } from '../helpers/worker-process.js';
import { everythingSpec, guardsOf, serverUnder, sessionConfig } from './helpers.js';

const cleanups = useCleanups();
const LONG = 'mcp__everything__trigger-long-running-operation';

const activityDefaults = {
  ...DEFAULT_ACTIVITY_DEFAULTS,
  tool: { startToCloseTimeoutMs: 90_000, heartbeatTimeoutMs: 2_000 },
  safeRetry: { ...DEFAULT_ACTIVITY_DEFAULTS.safeRetry, initialIntervalMs: 200 },
};

/** Starts a session calling the long operation, kills its worker once the call runs, finishes on a second worker. */
async function killDuringLongCall(prefix: string, annotations: 'trust' | 'ignore', how: 'group' | 'worker only') {
  const { h, spawnWorker } = await createProcessHarness(prefix, cleanups);
  const first = spawnWorker();
  const run = await h.startScripted({
    workspace: mkdtempSync(join(tmpdir(), `${prefix}-ws-`)),
    prompt: 'run the long operation',
    activityDefaults,
    mcp: sessionConfig([everythingSpec({ annotations })]),
    script: {
      replies: [{ toolCalls: [{ name: LONG, arguments: { duration: 4, steps: 4 } }] }, { text: 'Finished.' }],
    },
  });
  cleanups.push(() => run.closeProvider());
  await waitFor(
    async () => (await h.store.listEvents(run.sessionId, 0, 200)).find((e) => e.type === 'tool.started'),
    90_000,
    'the MCP call to start',
  );
  await new Promise((r) => setTimeout(r, 500));
  const servers = guardsOf(first.child.pid!).map(serverUnder);
  expect(servers.length).toBeGreaterThan(0);
  // 'worker only': the worker alone dies (kill -9 <pid>); the server's guard sees its parent gone and ends it.
  if (how === 'worker only') process.kill(first.child.pid!, 'SIGKILL');
  else await first.crash();
  await waitFor(async () => servers.every((pid) => !alive(pid)), 30_000, 'the dead worker’s MCP servers to end');
  await first.crash();
  const second = spawnWorker();
  const result = await resultWithin(run, second, 120_000);
  const t = (await h.store.loadTranscript(run.sessionId))!;
  const history = await h.client.workflow.getHandle(run.workflowId).fetchHistory();
  const scheduled = (history.events ?? []).filter(
    (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'tool_mcp',
  );
  const starts = (history.events ?? []).filter((e) =>
    scheduled.some((s) => s.eventId?.toString() === e.activityTaskStartedEventAttributes?.scheduledEventId?.toString()),
  );
  await second.stop();
  return { result, t, scheduled, starts };
}

it('SIGKILL during a side-effecting MCP call: uncertain, one attempt, never re-run', async () => {
  const { result, t, scheduled, starts } = await killDuringLongCall('zuno-mcp-kill-never', 'ignore', 'worker only');
  expect(result.status).toBe('completed');
  expect(t.toolCalls.map((c) => [c.tool, c.outcome, c.attempts])).toEqual([[LONG, 'uncertain', 1]]);
  expect(scheduled).toHaveLength(1);
  expect(scheduled[0]!.activityTaskScheduledEventAttributes!.retryPolicy!.maximumAttempts).toBe(1);
  // Temporal started it once; nobody ran it again.
  expect(starts.map((e) => e.activityTaskStartedEventAttributes!.attempt)).toEqual([1]);
}, 240_000);

it('SIGKILL during a read-only MCP call: retried on the next worker and completed', async () => {
  const { result, t, scheduled, starts } = await killDuringLongCall('zuno-mcp-kill-safe', 'trust', 'group');
  expect(result.status).toBe('completed');
  expect(t.toolCalls.map((c) => [c.tool, c.outcome])).toEqual([[LONG, 'ok']]);
  expect(t.toolCalls[0]!.attempts).toBeGreaterThanOrEqual(2);
  expect(t.toolCalls[0]!.output).toMatch(/Long running operation completed/i);
  expect(scheduled).toHaveLength(1);
  expect(scheduled[0]!.activityTaskScheduledEventAttributes!.retryPolicy!.maximumAttempts).toBe(
    DEFAULT_ACTIVITY_DEFAULTS.safeRetry.maximumAttempts,
  );
  // The retry is the same scheduled activity's later attempt (the history records the attempt that completed).
  expect(starts.map((e) => e.activityTaskStartedEventAttributes!.attempt).at(-1)).toBeGreaterThanOrEqual(2);
}, 240_000);
