import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TypedSearchAttributes, defaultPayloadConverter } from '@temporalio/common';
import { NativeConnection, Worker } from '@temporalio/worker';
import { beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { createRecordGoal } from '../../activities/goal/record-goal.js';
import { newGoalId } from '../../client/goal-start.js';
import { startLocalProvider } from '../../local-provider/server.js';
import { newSessionId, startSession, submitInput } from '../../client/session-start.js';
import { localProvider } from '../../client/zuno-config.js';
import { DEFAULT_ACTIVITY_DEFAULTS } from '../../core/activity-defaults.js';
import { EV } from '../../core/events.js';
import {
  type GoalDirective,
  type GoalSnapshot,
  type GoalTurnReport,
  type GoalWorkflowInput,
  goalWorkflowId,
} from '../../core/goal/contract.js';
import { ZunoGoalStatus, ZunoKind, ZunoSessionId } from '../../core/search-attributes.js';
import type { SessionMeta, SessionRoute } from '../../core/session/meta.js';
import type { SessionState } from '../../core/session/state.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { useCleanups } from '../helpers/session.js';

/**
 * A goal-revision change voids a prepared continuation (GL19): the session
 * never sends a provider request for it, and the Goal prepares a new one at
 * the new revision.
 *
 * A Goal prepares a continuation only while no turn of its session runs, and
 * an idle session takes it at once; so the test makes the one window in which
 * a prepared continuation waits: the Goal decided it (after a turn ended) but
 * its `recordGoal` — on the Goal's route, served here by a worker the test
 * stops and starts — has not returned, so the directive carrying it is not
 * sent yet. Meanwhile a person's message starts a turn, the objective is
 * edited, and only then is the directive delivered: to a session in a turn,
 * which keeps the continuation until its turn ends and then finds its
 * revision moved.
 */
let h: Harness;
const cleanups = useCleanups();
beforeAll(async () => {
  h = await createHarness({ address: inject('temporalAddress') });
  cleanups.push(() => h.close());
});

/** A worker of the Goal's route that runs only `recordGoal` (the Goal's one activity). */
async function recordGoalWorker(taskQueue: string): Promise<{ stop(): Promise<void> }> {
  const connection = await NativeConnection.connect({ address: h.address });
  const worker = await Worker.create({ connection, taskQueue, activities: { recordGoal: createRecordGoal(h.store) } });
  const running = worker.run();
  return {
    async stop() {
      worker.shutdown();
      await running;
      await connection.close();
    },
  };
}

function history(workflowId: string) {
  return h.client.workflow
    .getHandle(workflowId)
    .fetchHistory()
    .then((x) => x.events ?? []);
}

/** The signals named `name` in a workflow's history, decoded, in order. */
async function signals<T>(workflowId: string, name: string): Promise<T[]> {
  return (await history(workflowId))
    .map((e) => e.workflowExecutionSignaledEventAttributes)
    .filter((a) => a?.signalName === name)
    .map((a) => defaultPayloadConverter.fromPayload<T>(a!.input!.payloads![0]!));
}

describe('a goal-revision change voids a prepared continuation (GL19)', () => {
  it('the continuation prepared at revision 1 never reaches the provider; one at revision 2 runs', async () => {
    const workspace = mkdtempSync(join(tmpdir(), 'zuno-goal-void-'));
    const gate = (name: string) => `touch ${name}.started; until [ -f ${name} ]; do sleep 0.1; done; echo ${name}`;
    const provider = await startLocalProvider({
      script: {
        replies: [
          { toolCalls: [{ id: 'call_anchor', name: 'shell', arguments: { command: gate('gate0') } }] },
          { text: 'The first check ran.' },
          { toolCalls: [{ id: 'call_user', name: 'shell', arguments: { command: gate('gate1') } }] },
          { text: 'The changelog is updated.' },
          {
            toolCalls: [{ id: 'call_done', name: 'goal_update', arguments: { expected_revision: 2, complete: true } }],
          },
          { text: 'Done.' },
        ],
      },
    });
    cleanups.push(() => provider.close());
    const goalId = newGoalId();
    const sessionId = newSessionId();
    const meta: SessionMeta = {
      sessionId,
      workspace,
      provider: {
        ...localProvider(provider.url),
        retry: { ...localProvider(provider.url).retry, initialDelayMs: 100 },
      },
      model: 'scripted',
      title: 'Keep CI green',
      toolConcurrency: 8,
      activityDefaults: DEFAULT_ACTIVITY_DEFAULTS,
      goal: { goalId },
    };
    // The Goal records itself on its own route (the session's activities stay on the harness's queue).
    const route: SessionRoute = { host: 'goal-route', taskQueue: `${h.taskQueue}/goal-route`, servedBy: 'run' };
    let recorder = await recordGoalWorker(route.taskQueue);
    cleanups.push(() => recorder.stop());
    const input: GoalWorkflowInput = {
      goalId,
      objective: 'Keep CI green',
      criteria: [],
      budgets: {},
      session: { ...meta, route },
      createdAtMs: Date.now(),
    };
    const goal = await h.client.workflow.start('goalWorkflow', {
      workflowId: goalWorkflowId(goalId),
      taskQueue: h.taskQueue,
      args: [input],
      typedSearchAttributes: new TypedSearchAttributes([
        { key: ZunoKind, value: 'goal' },
        { key: ZunoSessionId, value: sessionId },
        { key: ZunoGoalStatus, value: 'active' },
      ]),
    });
    const session = await startSession(h.client, h.taskQueue, meta, { text: 'Keep CI green' }, { exitWhenIdle: true });
    const sessionWf = session.workflowId;
    const waitFile = (name: string) =>
      vi.waitFor(() => expect(existsSync(join(workspace, name))).toBe(true), { timeout: 30_000, interval: 50 });

    // The anchor turn runs; the Goal's first record is written; then its route loses its worker.
    await waitFile('gate0.started');
    await vi.waitFor(async () => expect(await h.store.getGoal(goalId)).not.toBeNull(), { timeout: 30_000 });
    await recorder.stop();
    writeFileSync(join(workspace, 'gate0'), '');

    // The anchor turn ended: the Goal prepared continuation gc_1 at revision 1 and waits on recordGoal to send it.
    await vi.waitFor(
      async () => {
        const d = await goal.describe();
        expect(d.raw.pendingActivities?.map((a) => a.activityType?.name)).toEqual(['recordGoal']);
        const st = await h.client.workflow.getHandle(sessionWf).query<SessionState>('state');
        expect(st).toMatchObject({ phase: 'idle', turn: 1 });
      },
      { timeout: 30_000, interval: 100 },
    );
    expect(await signals<GoalDirective>(sessionWf, 'goalDirective')).toEqual([]);

    // A person's message drives turn 1; while it runs, the objective is edited (revision 2).
    await submitInput(h.client, sessionId, { text: 'Update the changelog too' });
    await waitFile('gate1.started');
    const edited = await goal.executeUpdate('goalControl', {
      args: [{ commandId: 'edit-1', action: 'edit', objective: 'Keep CI green and the changelog current' }],
    });
    expect(edited).toMatchObject({ revision: 2, status: 'active' });

    // The route's worker is back: the directive of revision 1 (with gc_1) reaches the session in its turn, then revision 2's.
    recorder = await recordGoalWorker(route.taskQueue);
    await vi.waitFor(
      async () =>
        expect((await signals<GoalDirective>(sessionWf, 'goalDirective')).map((d) => d.revision)).toEqual([1, 2]),
      { timeout: 30_000, interval: 100 },
    );
    const [first, second] = await signals<GoalDirective>(sessionWf, 'goalDirective');
    expect(first).toMatchObject({ revision: 1, status: 'active', continueWith: { continuationId: 'gc_1' } });
    expect(second!.continueWith).toBeUndefined();
    writeFileSync(join(workspace, 'gate1'), '');

    // Turn 1 ends; gc_1 is void; the Goal prepares gc_2 at revision 2, which runs and completes the goal.
    const final = (await goal.result()) as GoalSnapshot;
    expect(final.state.status).toBe('completed');
    expect(final.objective).toBe('Keep CI green and the changelog current');
    expect(await session.result()).toMatchObject({ status: 'completed' });

    const voided = (await signals<GoalTurnReport>(goal.workflowId, 'goalTurn')).filter((r) => r.event === 'voided');
    expect(voided).toEqual([
      {
        event: 'voided',
        continuationId: 'gc_1',
        revision: 1,
        reason: "the goal's revision moved from 1 to 2 before the turn started",
      },
    ]);
    const continued = (await signals<GoalDirective>(sessionWf, 'goalDirective')).filter((d) => d.continueWith);
    expect(continued.map((d) => [d.revision, d.continueWith!.continuationId])).toEqual([
      [1, 'gc_1'],
      [2, 'gc_2'],
    ]);
    // Provider requests: the anchor turn (2), the person's turn (2), the continuation at revision 2 (2) — none for gc_1.
    const requests = provider.requests.map((r) => JSON.stringify(r));
    expect(requests).toHaveLength(6);
    expect(requests.filter((r) => r.includes('automatic continuation of the goal (revision 1)'))).toEqual([]);
    expect(requests[4]).toContain('automatic continuation of the goal (revision 2)');
    expect(requests[4]).toContain(`# Goal ${goalId} (revision 2, active)`);
    expect(requests[4]).toContain('Keep CI green and the changelog current');
    const started = await h.store.eventsOfType(sessionId, EV.turnStarted);
    expect(started.map((e) => (e.data as { trigger: string }).trigger)).toEqual([
      'user_input',
      'user_input',
      'goal_continuation',
    ]);
  }, 90_000);
});
