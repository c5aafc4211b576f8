import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import type { GoalSnapshot } from '../../core/goal/contract.js';
import { startTestDevServer } from '../helpers/dev-server.js';
import { historyOf, quiescent, startedAttempts } from '../helpers/history.js';
import { createProcessHarness, useCleanups } from '../helpers/session.js';
import { waitFor } from '../helpers/worker-process.js';
import { watchedGoal } from '../helpers/watch.js';

/**
 * Issue 31 item 4, Must show: a release watch survives its worker being
 * SIGKILLed and its dev server restarted (same db) while it waits; the
 * checks go on from the workflow's timers, and the Goal wakes exactly once
 * when the registry publishes: one session start, one first turn, one
 * `waiting_watch → active` transition. The worker is a `zuno worker` child
 * process; the registry and the scripted provider run in this process.
 */
const cleanups = useCleanups();

it('a watch survives a worker SIGKILL and a dev-server restart, then wakes its goal once', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'zuno-watch-restart-'));
  const server = await startTestDevServer(join(dir, 'temporal.db'));
  cleanups.push(async () => {
    await server.kill();
    rmSync(dir, { recursive: true, force: true });
  });
  let published = false;
  let checks = 0;
  const registry = createServer((_req, res) => {
    checks += 1;
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ 'dist-tags': { latest: published ? '2.0.0' : '1.0.0' } }));
  });
  await new Promise<void>((r) => registry.listen(0, '127.0.0.1', r));
  cleanups.push(async () => registry.close());
  const url = `http://127.0.0.1:${(registry.address() as AddressInfo).port}/pkg`;

  const { h, spawnWorker } = await createProcessHarness('zuno-watch-crash', cleanups, { address: server.address });
  const ws = mkdtempSync(join(tmpdir(), 'zuno-watch-crash-ws-'));
  cleanups.unshift(async () => rmSync(ws, { recursive: true, force: true }));
  const first = spawnWorker();
  const g = await h.startScriptedGoal({
    workspace: ws,
    ...watchedGoal(url, 1_000, 3_600_000),
    script: {
      replies: [
        { toolCalls: [{ id: 'call_done', name: 'goal_update', arguments: { expected_revision: 2, complete: true } }] },
        { text: 'pkg 2.0.0 is out.' },
      ],
    },
  });
  cleanups.push(() => g.closeProvider());
  const goal = () => h.client.workflow.getHandle(g.workflowId).query<GoalSnapshot>('goal');

  await waitFor(async () => checks >= 2, 60_000, 'the watch to check twice');
  // Kill between checks: the next check is a started timer, nothing in flight.
  await waitFor(async () => quiescent(h.client, g.workflowId), 30_000, 'the goal to wait on its timer');
  await first.crash();
  const beforeOutage = checks;
  await server.kill();
  await new Promise((r) => setTimeout(r, 1_000));
  await server.start();
  const second = spawnWorker();
  expect((await goal()).state.status).toBe('waiting_watch');
  await waitFor(async () => checks >= beforeOutage + 2, 60_000, 'the checks to go on on the new worker');
  expect(g.providerRequests).toHaveLength(0); // no model request while waiting
  published = true;

  const final = await waitFor(
    async () => {
      const s = await goal();
      return s.state.status === 'completed' ? s : null;
    },
    90_000,
    `the goal to complete (worker stderr: ${second.stderr()})`,
  );
  expect(final.watch!.report).toMatchObject({ outcome: 'matched', value: '2.0.0' });
  expect(final.criteria[0]).toMatchObject({ status: 'satisfied', evidence: { receiptId: `wr_${g.goalId}` } });
  expect((await g.sessionResult()).status).toBe('completed');
  // Woken once: one session start, one first turn, the session's history begun once.
  const goalHistory = await historyOf(h.client, g.workflowId);
  expect(startedAttempts(goalHistory, 'startGoalSession')).toEqual([1]);
  expect(g.providerRequests).toHaveLength(2);
  const session = await historyOf(h.client, `session/${g.sessionId}`);
  expect(session.filter((e) => e.workflowExecutionStartedEventAttributes)).toHaveLength(1);
  const statuses = (await h.store.eventsOfType(g.sessionId, 'goal.status')).map(
    (e) => (e.data as { status: string }).status,
  );
  expect(statuses).toEqual(['waiting_watch', 'active', 'completed']);
  await second.stop();
}, 240_000);
