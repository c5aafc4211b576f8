import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import type { Client } from '@temporalio/client';
import { beforeAll, expect, inject, it } from 'vitest';
import { newGoalId } from '../../client/goal-start.js';
import { newSessionId } from '../../client/session-start.js';
import { localProvider } from '../../client/zuno-config.js';
import { DEFAULT_ACTIVITY_DEFAULTS, type ActivityDefaults } from '../../core/activity-defaults.js';
import {
  GOAL_TURN_SIGNAL,
  GOAL_UPDATE_UPDATE,
  type GoalSnapshot,
  type GoalTurnReport,
  type GoalUpdateRequest,
  type GoalUpdateResult,
  type GoalWorkflowInput,
  goalWorkflowId,
} from '../../core/goal/contract.js';
import { workflowBundlePath } from '../../worker/workflow-bundle.js';
import { createZunoWorker } from '../../worker/worker.js';
import { startTestDevServer } from '../helpers/dev-server.js';
import { createHarness, type StartedGoalRun } from '../helpers/harness.js';
import { createProcessHarness, useCleanups } from '../helpers/session.js';
import { waitFor, type WorkerProcess } from '../helpers/worker-process.js';
import { historyOf, quiescent, startedAttempts, type HistoryEvent } from '../helpers/history.js';

/**
 * Issue 10 Must show: a Goal survives its worker being SIGKILLed during a
 * backoff and during `waiting_background`, and its dev server restarted on
 * the same db during `waiting_background`: it continues and completes, no
 * `Never` call runs twice, and its budgets keep their counts. The workers are
 * `zuno worker` child processes (the kill takes their tool subprocesses with
 * them); the scripted provider runs in this process and so outlives them.
 */
const cleanups = useCleanups();

// The workflow bundle, built once for the file: each test's worker home gets a copy in its cache (a fresh
// home would otherwise make its first worker bundle the workflows again).
const bundleDir = mkdtempSync(join(tmpdir(), 'zuno-goal-crash-bundle-'));
let bundle: string;
beforeAll(async () => {
  bundle = await workflowBundlePath(bundleDir);
  cleanups.unshift(async () => rmSync(bundleDir, { recursive: true, force: true }));
}, 60_000);

/** A process harness whose home already holds the workflow bundle. */
async function processHarness(prefix: string, opts: { address?: string } = {}) {
  const ph = await createProcessHarness(prefix, cleanups, opts);
  mkdirSync(join(ph.home, 'cache'), { recursive: true });
  copyFileSync(bundle, join(ph.home, 'cache', basename(bundle)));
  cleanups.unshift(async () => rmSync(ph.home, { recursive: true, force: true })); // after the workers died
  return ph;
}

/** Tool activities that heartbeat every few hundred ms: a dead worker's activity times out within 2 s. */
const FAST_HEARTBEATS: ActivityDefaults = {
  ...DEFAULT_ACTIVITY_DEFAULTS,
  tool: { startToCloseTimeoutMs: 120_000, heartbeatTimeoutMs: 2_000 },
};

async function goalOf(client: Client, g: StartedGoalRun): Promise<GoalSnapshot> {
  return client.workflow.getHandle(g.workflowId).query<GoalSnapshot>('goal');
}

const eventMs = (e: HistoryEvent) => Number(e.eventTime!.seconds) * 1000 + Math.round((e.eventTime!.nanos ?? 0) / 1e6);

/** One line per event of each workflow: id, kind, ms since the first event, activity type — for a failure message. */
async function historiesText(client: Client, workflowIds: string[]): Promise<string> {
  const out: string[] = [];
  for (const wf of workflowIds) {
    const events = await historyOf(client, wf).catch(() => []);
    const t0 = events[0] ? eventMs(events[0]) : 0;
    out.push(wf);
    for (const e of events) {
      const kind = Object.keys(e).find((k) => k.endsWith('EventAttributes')) ?? '?';
      const activity = e.activityTaskScheduledEventAttributes?.activityType?.name ?? '';
      out.push(`  ${e.eventId} ${kind.replace('EventAttributes', '')} +${eventMs(e) - t0} ${activity}`);
    }
  }
  return out.join('\n');
}

/** The Goal's final snapshot, or a rejection after `ms` with the worker's stderr and both histories. */
function goalWithin(client: Client, g: StartedGoalRun, worker: WorkerProcess, ms: number): Promise<GoalSnapshot> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, rej) => {
    timer = setTimeout(() => {
      void historiesText(client, [g.workflowId, `session/${g.sessionId}`]).then((text) =>
        rej(new Error(`goal did not end within ${ms} ms:\n${worker.stderr()}\n${text}`)),
      );
    }, ms);
  });
  return Promise.race([g.result(), late]).finally(() => clearTimeout(timer));
}

/** A workspace removed after the file's tests. */
function workspace(): string {
  const ws = mkdtempSync(join(tmpdir(), 'zuno-goal-crash-ws-'));
  cleanups.unshift(async () => rmSync(ws, { recursive: true, force: true })); // after the workers died
  return ws;
}

it('the worker is SIGKILLed during a backoff: a new worker leaves it on its timer, continues and completes', async () => {
  const { h, spawnWorker } = await processHarness('zuno-goal-crash-backoff');
  const first = spawnWorker();
  const g = await h.startScriptedGoal({
    workspace: workspace(),
    prompt: 'Ship the release notes',
    // Two attempts, 100 ms apart: the first turn fails provider_unavailable within a second.
    provider: (p) => ({
      ...p,
      retry: { maxAttempts: 2, initialDelayMs: 100, maxDelayMs: 100, recoveryWindowMs: 5_000 },
    }),
    script: {
      replies: [
        {
          // Both attempts of the first turn meet a 503; the continuation after the backoff gets the reply.
          fault: { status: 503, times: 2 },
          toolCalls: [{ id: 'call_done', name: 'goal_update', arguments: { expected_revision: 3, complete: true } }],
        },
        { text: 'The release notes are shipped.' },
      ],
    },
  });
  cleanups.push(() => g.closeProvider());
  const backoff = await waitFor(
    async () => {
      const s = await goalOf(h.client, g);
      return s.state.status === 'backoff' ? s : null;
    },
    60_000,
    'the goal to back off',
  );
  // Kill only once the backoff is a started timer and no workflow task is in flight (else the kill would
  // lose the task that starts it, and the Goal would meet its deadline when that task is retried).
  await waitFor(
    async () =>
      (await historyOf(h.client, g.workflowId)).some((e) => e.timerStartedEventAttributes) &&
      (await quiescent(h.client, g.workflowId)) &&
      (await quiescent(h.client, `session/${g.sessionId}`)),
    30_000,
    'the backoff timer to start',
  );
  await first.crash();
  const killedAt = Date.now();
  const state = backoff.state as Extract<GoalSnapshot['state'], { status: 'backoff' }>;
  expect(state).toMatchObject({ attempt: 1, cause: 'provider_unavailable' });
  // GL5: 5 s ± 20 %, a durable timer; the kill came before it fired.
  expect(state.untilMs - backoff.updatedAtMs).toBeGreaterThanOrEqual(4_000);
  expect(state.untilMs - backoff.updatedAtMs).toBeLessThanOrEqual(6_000);
  expect(killedAt).toBeLessThan(state.untilMs);
  expect(backoff.revision).toBe(2); // active → backoff
  expect(backoff.spent).toMatchObject({ turns: 1, toolCalls: 0 });
  expect(g.providerRequests).toHaveLength(2);

  const second = spawnWorker();
  const final = await goalWithin(h.client, g, second, 60_000);
  expect(final.state.status).toBe('completed');
  // backoff → active (3, the revision the script's goal_update names) → completed (4).
  expect(final.revision).toBe(4);
  expect(final.spent).toMatchObject({ turns: 2, toolCalls: 1 });
  expect((await g.sessionResult()).status).toBe('completed');

  // The Goal left the backoff on the timer the killed worker started (the server keeps it), not earlier: it
  // fired once, at the deadline; the only other timer is the completed Goal's wait for its last turn's end.
  const events = await historyOf(h.client, g.workflowId);
  const timers = events.filter((e) => e.timerStartedEventAttributes);
  const fired = events.filter((e) => e.timerFiredEventAttributes);
  expect(timers.map((e) => Number(e.timerStartedEventAttributes!.startToFireTimeout!.seconds))).toEqual([
    expect.any(Number),
    600,
  ]);
  expect(eventMs(timers[0]!)).toBeLessThan(killedAt);
  expect(fired.map((e) => e.timerFiredEventAttributes!.startedEventId)).toEqual([timers[0]!.eventId]);
  expect(eventMs(fired[0]!)).toBeGreaterThanOrEqual(state.untilMs - 50);
  expect(eventMs(fired[0]!)).toBeLessThan(state.untilMs + 1_000);
  // The failed turn's two attempts, then the continuation's two steps: nothing else reached the provider.
  expect(g.providerRequests).toHaveLength(4);
  const system = (g.providerRequests[2] as { messages: { role: string; content: string }[] }).messages[0]!;
  expect(system.content).toContain('automatic continuation of the goal');
  const t = (await h.store.loadTranscript(g.sessionId))!;
  expect(t.toolCalls.map((c) => [c.callId, c.tool, c.outcome])).toEqual([['call_done', 'goal_update', 'ok']]);
  const statuses = (await h.store.eventsOfType(g.sessionId, 'goal.status')).map(
    (e) => (e.data as { status: string }).status,
  );
  expect(statuses).toEqual(['active', 'backoff', 'active', 'completed']);
  await second.stop();
}, 90_000);

/** A remote observer that appends to runs.txt when it starts and when it ends. */
const OBSERVER = 'echo run >> runs.txt; sleep 30; echo done >> runs.txt';

it('the worker is SIGKILLed during waiting_background: the lost observer is reported uncertain, never re-run, and the goal completes', async () => {
  const { h, spawnWorker } = await processHarness('zuno-goal-crash-bg');
  const ws = workspace();
  const first = spawnWorker();
  const g = await h.startScriptedGoal({
    workspace: ws,
    prompt: 'Watch the pipeline until it is out',
    activityDefaults: FAST_HEARTBEATS,
    script: {
      replies: [
        {
          text: 'Starting the pipeline watch.',
          toolCalls: [
            {
              id: 'call_watch',
              name: 'shell',
              arguments: { command: OBSERVER, background: true, backgroundPurpose: 'remoteObserver' },
            },
          ],
        },
        { text: 'The pipeline runs; I will continue when its observer reports.' },
        // The report turn (the observer's report: lost with its worker) completes the goal at revision 2.
        {
          text: 'The observer was lost; the pipeline state is what I checked by hand.',
          toolCalls: [{ id: 'call_done', name: 'goal_update', arguments: { expected_revision: 2, complete: true } }],
        },
        { text: 'Done.' },
      ],
    },
  });
  cleanups.push(() => g.closeProvider());
  const waiting = await waitFor(
    async () => {
      const s = await goalOf(h.client, g);
      return s.state.status === 'waiting_background' ? s : null;
    },
    60_000,
    'the goal to wait for its observer',
  );
  await waitFor(async () => existsSync(join(ws, 'runs.txt')), 30_000, 'the observer to start');
  await waitFor(
    async () =>
      (await quiescent(h.client, g.workflowId)) &&
      (await quiescent(h.client, `session/${g.sessionId}`, ['bgObserverPoll'])),
    30_000,
    'the goal and its session to settle',
  );
  expect(waiting.state).toEqual({ status: 'waiting_background', taskIds: ['bg_0_0_0'] });
  expect(waiting.revision).toBe(2);
  expect(waiting.spent).toMatchObject({ turns: 1, toolCalls: 1 });
  await first.crash(); // the observer's process group dies with it
  expect(g.providerRequests).toHaveLength(2);

  const second = spawnWorker();
  const final = await goalWithin(h.client, g, second, 60_000);
  expect(final.state.status).toBe('completed');
  expect(final.revision).toBe(3);
  // The counts carried over the kill: the report turn added one turn and its one call.
  expect(final.spent).toMatchObject({ turns: 2, toolCalls: 2 });
  expect((await g.sessionResult()).status).toBe('completed');

  // The report turn was told the observer's outcome is uncertain and that it was not re-run.
  const report = JSON.stringify(g.providerRequests[2]);
  expect(report).toContain('Background task bg_0_0_0 was lost');
  expect(report).toContain('UNCERTAIN: the process that ran this task');
  expect(report).toContain('It will not be re-run.');
  // The Never work ran once: the observer started once, never ended, never started again.
  await new Promise((r) => setTimeout(r, 1_000));
  expect(readFileSync(join(ws, 'runs.txt'), 'utf8')).toBe('run\n');
  const session = await historyOf(h.client, `session/${g.sessionId}`);
  expect(startedAttempts(session, 'tool_shell')).toEqual([1]);
  // The observer's command was started once (its wait is held by the workflow: polls, never a second start).
  expect(startedAttempts(session, 'bgObserverStart')).toEqual([1]);
  const t = (await h.store.loadTranscript(g.sessionId))!;
  expect(t.toolCalls.map((c) => [c.callId, c.tool, c.outcome])).toEqual([
    ['call_watch', 'shell', 'ok'],
    ['call_done', 'goal_update', 'ok'],
  ]);
  const statuses = (await h.store.eventsOfType(g.sessionId, 'goal.status')).map(
    (e) => (e.data as { status: string }).status,
  );
  expect(statuses).toEqual(['active', 'waiting_background', 'completed']);
  await second.stop();
}, 90_000);

it('the dev server is restarted on the same db during waiting_background: the observer reports, the goal completes', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'zuno-goal-restart-'));
  const server = await startTestDevServer(join(dir, 'temporal.db'));
  cleanups.push(async () => {
    await server.kill();
    rmSync(dir, { recursive: true, force: true });
  });
  const { h, spawnWorker } = await processHarness('zuno-goal-restart', { address: server.address });
  const ws = workspace();
  const worker = spawnWorker();
  const g = await h.startScriptedGoal({
    workspace: ws,
    prompt: 'Watch the pipeline until it is out',
    // Heartbeats may be missed while the server is down: a timeout well past the outage keeps the observer.
    activityDefaults: {
      ...DEFAULT_ACTIVITY_DEFAULTS,
      tool: { startToCloseTimeoutMs: 120_000, heartbeatTimeoutMs: 15_000 },
    },
    script: {
      replies: [
        {
          toolCalls: [
            {
              id: 'call_watch',
              name: 'shell',
              arguments: {
                command: 'echo run >> runs.txt; sleep 6; echo done >> runs.txt; echo pipeline out',
                background: true,
                backgroundPurpose: 'remoteObserver',
              },
            },
          ],
        },
        { text: 'The pipeline runs; I will continue when its observer reports.' },
        {
          toolCalls: [{ id: 'call_done', name: 'goal_update', arguments: { expected_revision: 2, complete: true } }],
        },
        { text: 'The pipeline is out.' },
      ],
    },
  });
  cleanups.push(() => g.closeProvider());
  await waitFor(
    async () => (await goalOf(h.client, g)).state.status === 'waiting_background',
    60_000,
    'the goal to wait for its observer',
  );
  await waitFor(
    async () =>
      (await quiescent(h.client, g.workflowId)) &&
      (await quiescent(h.client, `session/${g.sessionId}`, ['bgObserverPoll'])),
    30_000,
    'the goal and its session to settle',
  );
  const before = await goalOf(h.client, g);
  expect(before.spent).toMatchObject({ turns: 1, toolCalls: 1 });
  expect(readFileSync(join(ws, 'runs.txt'), 'utf8')).toBe('run\n'); // the observer is still running
  await server.kill();
  await new Promise((r) => setTimeout(r, 1_000));
  await server.start();

  const final = await goalWithin(h.client, g, worker, 60_000);
  expect(final.state.status).toBe('completed');
  expect(final.revision).toBe(3);
  expect(final.spent).toMatchObject({ turns: 2, toolCalls: 2 });
  expect((await g.sessionResult()).status).toBe('completed');
  // The observer ran once, to its end, through the outage; its report (not a lost one) woke the goal.
  expect(readFileSync(join(ws, 'runs.txt'), 'utf8')).toBe('run\ndone\n');
  const report = JSON.stringify(g.providerRequests[2]);
  expect(report).toContain('pipeline out');
  expect(report).not.toContain('bg_0_0_0 was lost');
  const session = await historyOf(h.client, `session/${g.sessionId}`);
  expect(startedAttempts(session, 'tool_shell')).toEqual([1]);
  // The observer's command was started once (its wait is held by the workflow: polls, never a second start).
  expect(startedAttempts(session, 'bgObserverStart')).toEqual([1]);
  expect(worker.child.exitCode).toBeNull(); // the worker rode out the outage
  await worker.stop();
}, 90_000);

it('a task that delivers the completing turn’s start together with its goal_update (a lost worker’s backlog): the turn’s end is still awaited and counted', async () => {
  // The session's side is played by this test, so the one workflow task is certain: the goal is started,
  // signalled and updated while no worker polls, then a worker takes all of it at once.
  const h = await createHarness({ address: inject('temporalAddress'), withWorker: false });
  cleanups.push(() => h.close());
  const { worker, close } = await createZunoWorker({
    address: h.address,
    namespace: 'default',
    taskQueue: h.taskQueue,
    store: h.store,
    stateDir: bundleDir, // where the bundle is cached
  });
  const goalId = newGoalId();
  const sessionId = newSessionId();
  const input: GoalWorkflowInput = {
    goalId,
    objective: 'Tag the release',
    criteria: [],
    budgets: {},
    session: {
      sessionId,
      workspace: workspace(),
      provider: localProvider('http://127.0.0.1:9'),
      model: 'scripted',
      title: 'Tag the release',
      toolConcurrency: 8,
      activityDefaults: DEFAULT_ACTIVITY_DEFAULTS,
      goal: { goalId },
    },
    createdAtMs: Date.now(),
  };
  const handle = await h.client.workflow.start('goalWorkflow', {
    workflowId: goalWorkflowId(goalId),
    taskQueue: h.taskQueue,
    args: [input],
  });
  cleanups.push(() => handle.terminate('test over').catch(() => undefined));
  const source = { kind: 'anchor' as const };
  await handle.signal<[GoalTurnReport]>(GOAL_TURN_SIGNAL, { event: 'started', turn: 0, source });
  const update = handle.executeUpdate<GoalUpdateResult, [GoalUpdateRequest]>(GOAL_UPDATE_UPDATE, {
    args: [{ expectedRevision: 1, complete: true, receipts: {}, turn: 0 }],
    updateId: 'call_done',
  });
  await new Promise((r) => setTimeout(r, 500)); // the update reaches the server before any worker polls
  const running = worker.run();
  cleanups.push(async () => {
    worker.shutdown();
    await running.catch(() => undefined);
    await close();
  });
  expect(await update).toMatchObject({ ok: true, revision: 2, status: 'completed' });
  // The goal is completed and waits for that turn's end before it closes.
  await new Promise((r) => setTimeout(r, 1_000));
  expect((await handle.describe()).status.name).toBe('RUNNING');
  await handle.signal<[GoalTurnReport]>(GOAL_TURN_SIGNAL, {
    event: 'ended',
    turn: 0,
    source,
    outcome: { turn: 0, steps: 2, inputIds: ['in_0'], kind: 'final_answer', textLength: 5 },
    usage: { tokens: 120, unmeasured: 0 },
    toolCalls: 1,
    changes: 1,
    uncertain: [],
    background: { running: [], remoteObservers: [] },
    progress: '',
    workRemains: false,
  });
  const final = (await handle.result()) as GoalSnapshot;
  expect(final.state.status).toBe('completed');
  expect(final.spent).toEqual({ tokens: 120, unmeasuredRequests: 0, toolCalls: 1, turns: 1 });
  expect((await h.store.getGoal(goalId))?.snapshot.spent.turns).toBe(1);
}, 60_000);
