/**
 * Issue 29 item 2 (HTTP): a question the model asks is listed over HTTP and
 * answered with a command id and the revision the client saw; another
 * revision is refused `question_stale_revision` (409); the answer reaches
 * the model once, as an input of the session (steered into the running turn). Real `zuno serve`, Temporal
 * dev server, SQLite, a scripted model.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { makeHome, makeWorkspace, tempDir, useTestTemporal, writeJson } from '../cli/helpers.js';
import { waitFor } from '../helpers/worker-process.js';
import { call, json, openStream, startServe, type Served } from './serve-helpers.js';

const temporal = useTestTemporal();
let served: Served;

beforeAll(async () => {
  const { home } = makeHome({ address: temporal.address });
  const script = writeJson(tempDir('zuno-http-question-'), 'script.json', {
    replies: [
      { toolCalls: [{ name: 'question', arguments: { items: [{ question: 'Which branch?' }] } }] },
      // The turn goes on working while the person answers: the session's run is open to take the answer.
      { toolCalls: [{ name: 'shell', arguments: { command: 'sleep 5' } }] },
      { text: 'Going on with main for now.' },
      { text: 'Thanks: main it is.' },
    ],
  });
  served = await startServe(home, ['--script', script]);
}, 180_000);

afterAll(async () => {
  await served?.stop();
}, 60_000);

it('lists the open question and answers it (stale revision refused); the model reads the answer once', async () => {
  const { sessionId } = await json<{ sessionId: string }>(
    call(served, 'POST', '/sessions', { text: 'prepare the release', workspace: makeWorkspace() }),
    201,
  );
  const stream = await openStream(served, `/sessions/${sessionId}/events`);
  const row = await waitFor(
    async () =>
      (
        await json<{ id: string; revision: number; view: { items: { itemId: string }[] } }[]>(
          call(served, 'GET', `/questions?session=${sessionId}`),
          200,
        )
      )[0],
    60_000,
    'the question listed',
  );
  const itemId = row.view.items[0]!.itemId;
  const answer = (body: Record<string, unknown>) => call(served, 'POST', `/questions/${row.id}/answer`, body);
  const stale = await answer({ answers: { [itemId]: 'main' }, commandId: 'a-0', expectedRevision: row.revision + 1 });
  expect(stale.status).toBe(409);
  expect(((await stale.json()) as { error: { code: string } }).error.code).toBe('question_stale_revision');
  const done = await json<{ status: string; inputId?: string; duplicate: boolean }>(
    answer({ answers: { [itemId]: 'main' }, commandId: 'a-1', expectedRevision: row.revision }),
    200,
  );
  expect(done).toMatchObject({ sessionId, questionId: row.id, status: 'answered', duplicate: false });
  expect(done.inputId).toEqual(expect.any(String));
  const end = await stream.until(
    (m) =>
      m.event === 'session.completed' &&
      ((m.data.data as { inputIds?: string[] }).inputIds ?? []).includes(done.inputId!),
  );
  stream.close();
  // The answer joined the running turn (SE1 steering) or the next one: either way the model read it once.
  expect(['Going on with main for now.', 'Thanks: main it is.']).toContain((end.data.data as { text?: string }).text);
  const t = await json<{ inputs: { text: string; clientMessageId: string | null; state: string }[] }>(
    call(served, 'GET', `/sessions/${sessionId}/transcript`),
    200,
  );
  const answers = t.inputs.filter((i) => i.clientMessageId === `question:${row.id}`);
  expect(answers).toEqual([
    expect.objectContaining({ state: 'completed', text: expect.stringContaining('answer: main') }),
  ]);
}, 180_000);
