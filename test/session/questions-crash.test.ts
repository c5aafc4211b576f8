import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from '@temporalio/worker';
import { expect, it } from 'vitest';
import { answerQuestion } from '../../client/questions.js';
import { workflowBundlePath } from '../../worker/workflow-bundle.js';
import { TEMPORAL_BIN } from '../helpers/dev-server.js';
import { createProcessHarness, useCleanups } from '../helpers/session.js';
import { waitFor } from '../helpers/worker-process.js';

/**
 * A question waits in the session workflow, not in a process: asked, its
 * worker SIGKILLed, a new worker started — the question is still open (its
 * auto-defer timer with it), the answer reaches the model once. The history
 * replays with the current code; with ZUNO_RECORD_HISTORY=1 it is written to
 * test/fixtures/histories/ as `session-questions-<ms>.json` (checked in as
 * `session-questions-v1.json`, replayed by test/session/replay.test.ts).
 */
const cleanups = useCleanups();

it('a question asked survives its worker being SIGKILLed; answered after, the model reads the answer once', async () => {
  const { h, home, spawnWorker } = await createProcessHarness('zuno-questions-crash', cleanups);
  const first = spawnWorker();
  const run = await h.startScripted({
    workspace: mkdtempSync(join(tmpdir(), 'zuno-questions-crash-ws-')),
    prompt: 'prepare the release',
    exitWhenIdle: false,
    script: {
      replies: [
        { toolCalls: [{ id: 'call_q', name: 'question', arguments: { items: [{ question: 'Which branch?' }] } }] },
        { text: 'Going on with main.' },
        { text: 'Thanks: next it is.' },
      ],
    },
  });
  cleanups.push(() => run.closeProvider());
  const handle = h.client.workflow.getHandle(run.workflowId);
  const row = await waitFor(
    async () => (await h.store.listQuestions({ sessionId: run.sessionId }))[0],
    60_000,
    'the question',
  );
  await waitFor(async () => run.providerRequests.length === 2, 30_000, 'the turn to go on');

  await first.crash();
  const second = spawnWorker();
  cleanups.push(() => second.stop());
  const view = await waitFor(
    async () => handle.query<{ pending: { questionId: string }[] }>('questions').catch(() => null),
    60_000,
    'the session to answer again',
  );
  expect(view.pending.map((q) => q.questionId)).toEqual([row.id]);

  await answerQuestion(h.client, row, { qi_1: 'next' });
  // A model step the dead worker had in flight may be asked again: look at every request, not one index.
  const all = () => JSON.stringify(run.providerRequests);
  await waitFor(async () => all().includes('answer: next'), 60_000, 'the answer turn');
  expect(all().split('<question_answer questionId=').length - 1).toBe(1);
  await handle.terminate('test over');
  const json = execFileSync(
    TEMPORAL_BIN,
    ['workflow', 'show', '--workflow-id', run.workflowId, '--address', h.address, '--output', 'json'],
    { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
  );
  expect(json).toContain('"askQuestion"');
  const codePath = await workflowBundlePath(home);
  await Worker.runReplayHistory({ workflowBundle: { codePath } }, JSON.parse(json), run.workflowId);
  if (process.env.ZUNO_RECORD_HISTORY === '1')
    writeFileSync(
      join(import.meta.dirname, '..', 'fixtures', 'histories', `session-questions-${Date.now()}.json`),
      json,
    );
}, 150_000);
