import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { answerQuestion, snoozeQuestion } from '../../client/questions.js';
import { EV } from '../../core/events.js';
import { QUESTIONS_QUERY, type QuestionsView } from '../../core/question-contract.js';
import type { QuestionRow } from '../../activities/projection/types.js';
import { createHarness, waitForPhase, type Harness, type StartedRun } from '../helpers/harness.js';
import { useCleanups } from '../helpers/session.js';
import { waitFor } from '../helpers/worker-process.js';

/**
 * Questions as durable waits (issue 11 item 5; QU1–QU4, QU8, QU9, QU12):
 * `question` returns a receipt at once and the turn goes on; the session
 * workflow holds the question; partial answers keep the rest pending; the
 * complete answer reaches the model exactly once, as an input that wakes the
 * idle session. Real dev server, real worker, scripted provider.
 */
const cleanups = useCleanups();
let h: Harness;
beforeAll(async () => {
  h = await createHarness({ address: inject('temporalAddress') });
  cleanups.push(() => h.close());
});

const ASK = {
  id: 'call_q',
  name: 'question',
  arguments: {
    header: 'Release details',
    items: [{ question: 'Which branch?', options: ['main', 'next'] }, { question: 'Tag it?' }],
  },
};

async function openSession(replies: unknown[]): Promise<StartedRun> {
  const run = await h.startScripted({
    workspace: mkdtempSync(join(tmpdir(), 'zuno-questions-')),
    prompt: 'prepare the release',
    exitWhenIdle: false,
    script: { replies } as never,
  });
  cleanups.push(() => run.closeProvider());
  cleanups.push(() =>
    h.client.workflow
      .getHandle(run.workflowId)
      .terminate('test over')
      .catch(() => undefined),
  );
  return run;
}

async function rowOf(run: StartedRun, pred: (r: QuestionRow) => boolean, what: string): Promise<QuestionRow> {
  return waitFor(
    async () => (await h.store.listQuestions({ sessionId: run.sessionId })).find(pred) ?? null,
    30_000,
    what,
  );
}

describe('a question in a Work session (QU8)', () => {
  it('returns a receipt at once and the turn goes on; partial answers keep the rest pending; the complete answer reaches the model once', async () => {
    const run = await openSession([
      { toolCalls: [ASK] },
      { text: 'Working on main, assuming a tag.' },
      { text: 'Thanks: main, no tag.' },
    ]);
    await waitForPhase(h.client, run.workflowId, 'idle');
    expect(run.providerRequests).toHaveLength(2);
    const asked = await rowOf(run, (r) => r.view.callId === 'call_q', 'the question row');
    const qid = asked.id;
    expect(qid).toMatch(/^q_0_0_\d+$/);
    expect(JSON.stringify(run.providerRequests[1]).includes(`Asked (question ${qid}, items qi_1, qi_2)`)).toBe(true);

    expect(asked).toMatchObject({ status: 'pending', revision: 1, delivery: 'waiting_answer' });
    expect(asked.view.items).toEqual([
      { itemId: 'qi_1', question: 'Which branch?', options: ['main', 'next'] },
      { itemId: 'qi_2', question: 'Tag it?' },
    ]);
    expect(asked.view.autoDefer).toMatchObject({ state: 'armed' });
    expect(asked.view.autoDefer!.deadlineAtMs - asked.askedAtMs).toBe(120_000);
    const handle = h.client.workflow.getHandle(run.workflowId);
    expect((await handle.query<QuestionsView>(QUESTIONS_QUERY)).pending.map((q) => q.questionId)).toEqual([qid]);

    // A partial answer: the other item stays pending, nothing reaches the model.
    const partial = await answerQuestion(h.client, asked, { qi_1: 'main' }, 'cmd-1');
    expect(partial).toMatchObject({ status: 'pending', revision: 2, pendingItems: ['qi_2'], duplicate: false });
    // The same command again (another Update id: another client) is the same answer.
    const again = await h.client.workflow.getHandle(run.workflowId).executeUpdate('answerQuestion', {
      args: [{ questionId: qid, commandId: 'cmd-1', expectedRevision: 1, answers: { qi_1: 'main' } }],
      updateId: 'another-client',
    });
    expect(again).toEqual({ ...partial, duplicate: true });
    // The same command id with other content, and a stale revision, are typed refusals.
    await expect(answerQuestion(h.client, asked, { qi_1: 'next' }, 'cmd-1')).rejects.toMatchObject({
      code: 'question_command_conflict',
    });
    await expect(answerQuestion(h.client, asked, { qi_2: 'no' }, 'cmd-2')).rejects.toMatchObject({
      code: 'question_stale_revision',
    });
    const half = await rowOf(run, (r) => r.revision === 2, 'the partial answer recorded');
    expect(half).toMatchObject({ status: 'pending', delivery: 'waiting_answer' });
    expect(half.view.answers).toEqual({ qi_1: 'main' });
    expect(run.providerRequests).toHaveLength(2);

    // The complete answer: one input, which wakes the idle session; the model reads it once.
    const done = await answerQuestion(h.client, half, { qi_2: 'no' }, 'cmd-3');
    expect(done).toMatchObject({ status: 'answered', revision: 3, pendingItems: [], inputId: expect.any(String) });
    // Resent by the same client: the same Update id, the first result.
    expect(await answerQuestion(h.client, half, { qi_2: 'no' }, 'cmd-3')).toEqual(done);
    await expect(answerQuestion(h.client, half, { qi_2: 'yes' }, 'cmd-4')).rejects.toMatchObject({
      code: 'question_already_answered',
    });
    await waitFor(async () => run.providerRequests.length === 3, 30_000, 'the answer turn');
    await waitForPhase(h.client, run.workflowId, 'idle');
    const sent = JSON.stringify(run.providerRequests[2]);
    expect(sent.split(`question_answer questionId=\\"${qid}\\"`).length - 1).toBe(1);
    expect(sent.includes('[qi_1] Which branch?\\nanswer: main')).toBe(true);
    expect(sent.includes('[qi_2] Tag it?\\nanswer: no')).toBe(true);
    const applied = await rowOf(run, (r) => r.delivery === 'applied', 'delivery applied');
    expect(applied).toMatchObject({ status: 'answered', inputId: done.inputId });
    expect((await handle.query<QuestionsView>(QUESTIONS_QUERY)).pending).toEqual([]);
    const types = (await h.store.listEvents(run.sessionId, 0, 1000)).map((e) => e.type);
    expect(types.filter((t) => t === EV.questionAsked)).toHaveLength(1);
    expect(types.filter((t) => t === EV.questionAnswered)).toHaveLength(2);
    expect(types).not.toContain(EV.questionAutoDeferred);
    expect(run.providerRequests).toHaveLength(3);
  }, 90_000);

  it('question_async also returns at once; a snooze pauses its timer and answers nothing', async () => {
    const run = await openSession([
      { toolCalls: [{ ...ASK, id: 'call_qa', name: 'question_async' }] },
      { text: 'Going on.' },
    ]);
    await waitForPhase(h.client, run.workflowId, 'idle');
    const row = await rowOf(run, (r) => r.view.callId === 'call_qa', 'the question row');
    expect(row.view.tool).toBe('question_async');
    const snoozed = await snoozeQuestion(h.client, row, 'snooze-1');
    expect(snoozed.autoDefer).toMatchObject({ state: 'snoozed', deadlineAtMs: row.view.autoDefer!.deadlineAtMs });
    expect(snoozed.autoDefer!.remainingMs).toBeGreaterThan(0);
    const after = await rowOf(run, (r) => r.view.autoDefer?.state === 'snoozed', 'the snooze recorded');
    expect(after).toMatchObject({ status: 'pending', revision: 1, delivery: 'waiting_answer' });
    expect(run.providerRequests).toHaveLength(2);
  }, 60_000);
});
