import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { answerQuestion, snoozeQuestion } from '../../client/questions.js';
import { EV } from '../../core/events.js';
import type { GoalSnapshot } from '../../core/goal/contract.js';
import type { QuestionRow } from '../../activities/projection/types.js';
import type { Harness, StartedRun } from '../helpers/harness.js';
import { startTimeSkippingServer, type TimeSkippingServer } from '../helpers/time-skipping.js';
import { waitFor } from '../helpers/worker-process.js';

/**
 * Question timers on the time-skipping test server (issue 11 item 5; QU4,
 * QU11, QU14): a deferred question auto-defers after 120 s — recorded, no
 * answer, no input, still answerable; a snoozed one does not; required
 * Goal input (`goal_request_input`) has no deadline at all.
 */
const DAY = 24 * 60 * 60 * 1000;
const cleanups: (() => Promise<unknown>)[] = [];
let ts: TimeSkippingServer;
let h: Harness;
beforeAll(async () => {
  ts = await startTimeSkippingServer();
  cleanups.push(() => ts.teardown());
  const stateDir = mkdtempSync(join(tmpdir(), 'zuno-question-timers-state-'));
  cleanups.push(async () => rmSync(stateDir, { recursive: true, force: true }));
  h = await ts.harness({ stateDir });
  cleanups.push(() => h.close());
}, 60_000);
afterAll(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => undefined);
});

const ASK = { id: 'call_q', name: 'question', arguments: { items: [{ question: 'Which branch?' }] } };

async function askingSession(): Promise<{ run: StartedRun; row: QuestionRow }> {
  const run = await h.startScripted({
    workspace: mkdtempSync(join(tmpdir(), 'zuno-question-timers-')),
    prompt: 'release',
    exitWhenIdle: false,
    script: { replies: [{ toolCalls: [ASK] }, { text: 'Assuming main.' }, { text: 'Main it is.' }] },
  });
  cleanups.push(() => run.closeProvider());
  cleanups.push(() =>
    ts.client.workflow
      .getHandle(`session/${run.sessionId}`)
      .terminate('test over')
      .catch(() => undefined),
  );
  const row = await waitFor(
    async () => (await h.store.listQuestions({ sessionId: run.sessionId }))[0] ?? null,
    30_000,
    'the question row',
  );
  // Nothing in flight (the turn ended): from here on only the question's timer keeps the time.
  const handle = ts.client.workflow.getHandle(`session/${run.sessionId}`);
  await waitFor(
    async () =>
      run.providerRequests.length === 2 && ((await handle.describe()).raw.pendingActivities ?? []).length === 0,
    30_000,
    'the turn to end',
  );
  return { run, row };
}

it('after 120 s a deferred question is auto-deferred: recorded, no answer, no input; it is still answerable', async () => {
  const { run, row } = await askingSession();
  expect(row.view.autoDefer).toMatchObject({ state: 'armed' });
  // 60 s silent, then the 60 s countdown: at 90 s it is still armed.
  await ts.env.sleep(90_000);
  expect((await h.store.getQuestion(run.sessionId, row.id))?.view.autoDefer?.state).toBe('armed');
  await ts.env.sleep(31_000);
  const deferred = await waitFor(
    async () => {
      const r = await h.store.getQuestion(run.sessionId, row.id);
      return r?.view.autoDefer?.state === 'deferred' ? r : null;
    },
    30_000,
    'the auto-defer recorded',
  );
  expect(deferred).toMatchObject({ status: 'pending', revision: 2, delivery: 'waiting_answer' });
  expect(deferred.view.answers).toEqual({});
  const types = (await h.store.listEvents(run.sessionId, 0, 1000)).map((e) => e.type);
  expect(types.filter((t) => t === EV.questionAutoDeferred)).toHaveLength(1);
  expect(run.providerRequests).toHaveLength(2); // no input, no turn
  // Answered with the revision the person saw before the deferral: its exact successor accepts it (QU11).
  const done = await answerQuestion(ts.client, row, { qi_1: 'main' });
  expect(done).toMatchObject({ status: 'answered', revision: 3 });
  await waitFor(async () => run.providerRequests.length === 3, 30_000, 'the answer turn');
  expect(JSON.stringify(run.providerRequests[2]).includes('answer: main')).toBe(true);
}, 120_000);

it('a snoozed question does not auto-defer, however long it waits', async () => {
  const { run, row } = await askingSession();
  await snoozeQuestion(ts.client, row);
  await ts.env.sleep(DAY);
  const r = await h.store.getQuestion(run.sessionId, row.id);
  expect(r?.view.autoDefer).toMatchObject({ state: 'snoozed', deadlineAtMs: row.view.autoDefer!.deadlineAtMs });
  const types = (await h.store.listEvents(run.sessionId, 0, 1000)).map((e) => e.type);
  expect(types).not.toContain(EV.questionAutoDeferred);
  expect(await answerQuestion(ts.client, r!, { qi_1: 'main' })).toMatchObject({ status: 'answered' });
}, 120_000);

it('required Goal input (goal_request_input) has no deadline: 3 days later the goal still waits for it (QU14)', async () => {
  const g = await h.startScriptedGoal({
    workspace: mkdtempSync(join(tmpdir(), 'zuno-question-goal-')),
    prompt: 'Deploy to the right environment',
    script: {
      replies: [
        {
          toolCalls: [
            { id: 'call_in', name: 'goal_request_input', arguments: { expected_revision: 1, question: 'Which env?' } },
          ],
        },
        { text: 'Asked which environment.' },
        { text: 'unused' },
      ],
    },
  });
  cleanups.push(() => g.closeProvider());
  const goalOf = () => g.goal.query<GoalSnapshot>('goal');
  await waitFor(
    async () => {
      const s = await goalOf();
      return s.state.status === 'paused' && 'reason' in s.state && s.state.reason === 'required_input' ? s : null;
    },
    60_000,
    'the goal to wait for input',
  );
  const session = ts.client.workflow.getHandle(`session/${g.sessionId}`);
  await waitFor(
    async () => ((await session.describe()).raw.pendingActivities ?? []).length === 0,
    30_000,
    'nothing in flight',
  );
  await ts.env.sleep(3 * DAY);
  const s = await goalOf();
  expect(s.state).toMatchObject({ status: 'paused', reason: 'required_input' });
  expect(g.providerRequests).toHaveLength(2);
  await g.goal.executeUpdate('goalControl', { args: [{ commandId: 'c-cancel', action: 'cancel' }] });
}, 120_000);
