/**
 * A rolling upgrade of two hosts under Worker Deployment Versioning (issue 33
 * item 4, docs/versioning.md), on the suite's real dev server: host A runs
 * build N, host B build N+1 (a build whose `upgradeWorkflow` adds a timer per
 * step, guarded by patched()). Each host is a routed worker of its own, as
 * `zuno worker` runs it: a versioned workflow side on the shared task queue
 * and an unversioned activity side on its host queue, with a home and a
 * projection of its own.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection, type WorkflowHandle } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openProjectionStore, type ProjectionStore } from '../../activities/projection/index.js';
import { workflowBuildId } from '../../worker/build-id.js';
import { readDeployment } from '../../worker/versioning.js';
import type { VersionStatus } from '../../worker/version-start.js';
import { createRoutedWorker, type RoutedWorker } from '../../worker/worker.js';
import { ROOT } from '../helpers/dev-server.js';
import { waitFor } from '../helpers/worker-process.js';
import { UPGRADE_PATCH, type UpgradeResult } from '../helpers/workflows/upgrade.js';

const ENTRY = {
  n: join(ROOT, 'test/helpers/workflows/build-n.ts'),
  n1: join(ROOT, 'test/helpers/workflows/build-n1.ts'),
};
const address = inject('temporalAddress');
const namespace = 'default';
const taskQueue = `upgrade-${Date.now()}-${process.pid}`;
const dirs: string[] = [];
const stores: ProjectionStore[] = [];
const running: { worker: RoutedWorker; run: Promise<void> }[] = [];
let connection: Connection;
let client: Client;

/** Starts host `host`'s worker on build `build` (its own home and projection), as `zuno worker` would. */
async function startHost(
  host: string,
  build: 'n' | 'n1',
  identity = host,
  opts: { queue?: string; versioned?: boolean } = {},
): Promise<{ worker: RoutedWorker; status: VersionStatus | null }> {
  const home = mkdtempSync(join(tmpdir(), `zuno-upgrade-${host}-`));
  dirs.push(home);
  const store = await openProjectionStore({ zunoDir: home });
  stores.push(store);
  const queue = opts.queue ?? taskQueue;
  const worker = await createRoutedWorker({
    address,
    namespace,
    taskQueue: queue,
    activityTaskQueue: `${queue}/host/${host}`,
    store,
    stateDir: home,
    identity,
    workflowsPath: ENTRY[build],
    versioning: opts.versioned === false ? false : { connection },
  });
  running.push({ worker, run: worker.run() });
  return { worker, status: await worker.settled() };
}

/** Stops a host's worker and waits until it has stopped. */
async function stopHost(worker: RoutedWorker): Promise<void> {
  const entry = running.find((r) => r.worker === worker)!;
  worker.shutdown();
  await entry.run;
  await worker.close();
  running.splice(running.indexOf(entry), 1);
}

/** Asks `h` for one more step with its activity on `host`'s queue and waits until the step ran. */
async function step(h: WorkflowHandle, host: string, queue = taskQueue): Promise<void> {
  const before = await h.query<number>('steps');
  await h.signal('step', `${queue}/host/${host}`);
  await waitFor(async () => (await h.query<number>('steps')) > before, 60_000, `a step of ${h.workflowId}`);
}

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** Who completed each workflow task of `h` (identity, build id, event time in s) and who ran each activity. */
async function tasksOf(h: WorkflowHandle): Promise<{
  tasks: { identity: string; buildId: string }[];
  activities: string[];
  failedTasks: number;
}> {
  const events: HistoryEvent[] = (await h.fetchHistory()).events ?? [];
  return {
    tasks: events
      .filter((e) => e.workflowTaskCompletedEventAttributes)
      .map((e) => ({
        identity: e.workflowTaskCompletedEventAttributes!.identity ?? '',
        buildId: e.workflowTaskCompletedEventAttributes!.deploymentVersion?.buildId ?? '',
      })),
    activities: events
      .filter((e) => e.activityTaskStartedEventAttributes)
      .map((e) => e.activityTaskStartedEventAttributes!.identity ?? ''),
    failedTasks: events.filter((e) => e.workflowTaskFailedEventAttributes).length,
  };
}

beforeAll(async () => {
  connection = await Connection.connect({ address });
  client = new Client({ connection, namespace });
});

afterAll(async () => {
  for (const r of [...running]) await stopHost(r.worker);
  for (const s of stores) await s.close();
  await connection?.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('a rolling upgrade from build N to build N+1 across two hosts (issue 33 item 4)', () => {
  const n = workflowBuildId(ENTRY.n);
  const n1 = workflowBuildId(ENTRY.n1);
  const started: WorkflowHandle[] = [];

  it('gives the two builds distinct, reproducible build ids', () => {
    expect(n).not.toBe(n1);
    expect(workflowBuildId(ENTRY.n)).toBe(n);
    expect(n).toMatch(/^\d+\.\d+\.\d+[^-]*-[0-9a-f]{12}$/);
  });

  it('runs build N on host A: new to the server, it makes itself current', async () => {
    const a = await startHost('host-a', 'n');
    expect(a.status).toMatchObject({ standing: 'promoted', buildId: n, deploymentName: taskQueue });
    console.log(`build N (a new deployment) made itself current in ${a.status?.promotionMs} ms, before it polled`);
    for (const i of [1, 2]) {
      const h = await client.workflow.start('upgradeWorkflow', { taskQueue, workflowId: `${taskQueue}-w${i}` });
      started.push(h);
      await step(h, 'host-a');
    }
  }, 180_000);

  it('starts build N+1 on host B: it makes itself current, and the open workflows move to it at their next task', async () => {
    const b = await startHost('host-b', 'n1');
    expect(b.status).toMatchObject({ standing: 'promoted', buildId: n1 });
    console.log(`build N+1 registered and made itself current ${b.status?.promotionMs} ms after it started polling`);
    const state = await readDeployment(connection, namespace, taskQueue);
    expect(state?.currentBuildId).toBe(n1);
    const [w1, w2] = started as [WorkflowHandle, WorkflowHandle];
    await step(w1, 'host-a');
    await step(w2, 'host-b');
    const w3 = await client.workflow.start('upgradeWorkflow', { taskQueue, workflowId: `${taskQueue}-w3` });
    started.push(w3);
    await step(w3, 'host-a');
  }, 180_000);

  it('does not let a restarted build N take the current version back', async () => {
    const a = running.find((r) => r.worker.version?.buildId === n)!.worker;
    await stopHost(a);
    const again = await startHost('host-a', 'n', 'host-a restarted');
    expect(again.status).toMatchObject({ standing: 'not_current', buildId: n, currentBuildId: n1 });
    expect((await readDeployment(connection, namespace, taskQueue))?.currentBuildId).toBe(n1);
    const w4 = await client.workflow.start('upgradeWorkflow', { taskQueue, workflowId: `${taskQueue}-w4` });
    started.push(w4);
    await step(w4, 'host-a');
  }, 180_000);

  it('finishes every workflow on N+1 with no failed workflow task: N+1 replayed the histories N wrote', async () => {
    const results: UpgradeResult[] = [];
    for (const h of started) {
      await h.signal('finish');
      results.push(await h.result());
    }
    // Started on N: the step N ran has N's shape (replayed by N+1 without the marker), the later one N+1's.
    expect(results).toEqual([{ steps: ['n', 'n1'] }, { steps: ['n', 'n1'] }, { steps: ['n1'] }, { steps: ['n1'] }]);
    for (const h of started) {
      const { tasks, activities, failedTasks } = await tasksOf(h);
      expect(failedTasks, h.workflowId).toBe(0);
      // Once a workflow task ran on N+1 (host B), every later one did: none went back to N, restarted or not.
      // (A task dispatched while the new routing propagates may still run on N: it replays only N's history.)
      const firstOnN1 = tasks.findIndex((t) => t.buildId === n1);
      expect(firstOnN1, h.workflowId).toBeGreaterThanOrEqual(0);
      for (const t of tasks.slice(firstOnN1))
        expect(t, h.workflowId).toMatchObject({ identity: 'host-b', buildId: n1 });
      // Activities stay on the host that owns them, whatever build runs the workflow.
      expect(activities.length).toBeGreaterThan(0);
    }
    expect((await tasksOf(started[0]!)).tasks[0]).toMatchObject({ identity: 'host-a', buildId: n });
    // Started after N+1 was current: every workflow task on N+1.
    for (const h of started.slice(2))
      for (const t of (await tasksOf(h)).tasks) expect(t).toMatchObject({ buildId: n1 });
    expect((await tasksOf(started[0]!)).activities).toEqual(['host-a', 'host-a']);
    expect((await tasksOf(started[1]!)).activities).toEqual(['host-a', 'host-b']);
    // The restarted N's workflow half is idle; its activity half serves host A.
    expect((await tasksOf(started[3]!)).activities).toEqual(['host-a restarted']);
    expect(UPGRADE_PATCH).toBe('upgrade-step-timer');
  }, 180_000);

  it('reports build N drained and no workflow on it', async () => {
    const drained = await waitFor(
      async () => {
        const res = await connection.workflowService.describeWorkerDeploymentVersion({
          namespace,
          deploymentVersion: { deploymentName: taskQueue, buildId: n },
        });
        const status = res.workerDeploymentVersionInfo?.drainageInfo?.status;
        return String(status) === 'VERSION_DRAINAGE_STATUS_DRAINED' || status === 2 ? res : null;
      },
      120_000,
      'build N reported drained',
    );
    expect(drained.workerDeploymentVersionInfo?.deploymentVersion?.buildId).toBe(n);
    const onN = async () => {
      let count = 0;
      for await (const _ of client.workflow.list({
        query: `TemporalWorkerDeploymentVersion="${taskQueue}:${n}"`,
      }))
        count++;
      return count;
    };
    await waitFor(async () => (await onN()) === 0, 60_000, 'no workflow listed on build N');
  }, 240_000);
});

describe('upgrading from unversioned workers (the Zuno before issue 33)', () => {
  it('moves a workflow an unversioned worker started to the first versioned build, which makes itself current', async () => {
    const queue = `${taskQueue}-from-unversioned`;
    const old = await startHost('host-a', 'n', 'host-a unversioned', { queue, versioned: false });
    expect(old.status).toBeNull();
    const h = await client.workflow.start('upgradeWorkflow', { taskQueue: queue, workflowId: `${queue}-w` });
    await step(h, 'host-a', queue);
    await stopHost(old.worker);
    const next = await startHost('host-a', 'n', 'host-a versioned', { queue });
    expect(next.status).toMatchObject({ standing: 'promoted', deploymentName: queue });
    await step(h, 'host-a', queue);
    await h.signal('finish');
    expect(await h.result()).toEqual({ steps: ['n', 'n'] });
    const { tasks, failedTasks } = await tasksOf(h);
    expect(failedTasks).toBe(0);
    expect(tasks[0]).toMatchObject({ identity: 'host-a unversioned', buildId: '' });
    expect(tasks.at(-1)).toMatchObject({ identity: 'host-a versioned', buildId: next.status!.buildId });
  }, 180_000);
});
