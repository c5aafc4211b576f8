import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { createProcessHarness, useCleanups } from '../helpers/session.js';
import { waitFor } from '../helpers/worker-process.js';
import { runZuno } from './helpers.js';

/**
 * Issue 11 item 5 end to end: a question asked by the model is listed and
 * answered with the real `zuno questions` CLI (another process, the same home
 * and Temporal server as the session's `zuno worker`), and the answer reaches
 * the model once.
 */
const cleanups = useCleanups();

it('zuno questions list shows the open question; answer answers it, partially then fully; the model reads it once', async () => {
  const { h, home, spawnWorker } = await createProcessHarness('zuno-questions-cli', cleanups);
  spawnWorker();
  const run = await h.startScripted({
    workspace: mkdtempSync(join(tmpdir(), 'zuno-questions-cli-ws-')),
    prompt: 'prepare the release',
    exitWhenIdle: false,
    script: {
      replies: [
        {
          toolCalls: [
            {
              id: 'call_q',
              name: 'question',
              arguments: { items: [{ question: 'Which branch?' }, { question: 'Tag it?' }] },
            },
          ],
        },
        { text: 'Going on with main, assuming a tag.' },
        { text: 'Thanks: main, no tag.' },
      ],
    },
  });
  cleanups.push(() => run.closeProvider());
  cleanups.push(() =>
    h.client.workflow
      .getHandle(run.workflowId)
      .terminate('test over')
      .catch(() => undefined),
  );
  const row = await waitFor(
    async () => (await h.store.listQuestions({ sessionId: run.sessionId }))[0],
    60_000,
    'the question',
  );

  const listed = await runZuno(['questions', 'list', '--json'], { home });
  expect(listed.code).toBe(0);
  expect(JSON.parse(listed.stdout)).toEqual(
    expect.arrayContaining([expect.objectContaining({ id: row.id, sessionId: run.sessionId })]),
  );
  const human = await runZuno(['questions', 'list'], { home });
  expect(human.stdout).toContain('Which branch?');

  const bad = await runZuno(['questions', 'answer', row.id, '--item', 'qi_9=x'], { home });
  expect(bad.code).not.toBe(0);
  expect(bad.stderr).toMatch(/qi_9/);

  const part = await runZuno(['questions', 'answer', row.id, '--item', 'qi_1=main', '--json'], { home });
  expect(part.code).toBe(0);
  expect(JSON.parse(part.stdout)).toMatchObject({ status: 'pending', pendingItems: ['qi_2'] });
  expect(run.providerRequests).toHaveLength(2);

  await waitFor(
    async () => (await h.store.getQuestion(run.sessionId, row.id))?.revision === 2,
    30_000,
    'the partial answer recorded',
  );
  const full = await runZuno(['questions', 'answer', row.id, '--item', 'qi_2=no'], { home });
  expect(full.code).toBe(0);
  await waitFor(async () => run.providerRequests.length === 3, 30_000, 'the answer turn');
  const sent = JSON.stringify(run.providerRequests[2]);
  expect(sent.split(`question_answer questionId=\\"${row.id}\\"`).length - 1).toBe(1);
  expect(sent).toContain('answer: main');
  expect(sent).toContain('answer: no');

  const twice = await runZuno(['questions', 'answer', row.id, '--item', 'qi_2=yes'], { home });
  expect(twice.code).not.toBe(0);
  expect(twice.stderr).toMatch(/already/);
}, 120_000);
