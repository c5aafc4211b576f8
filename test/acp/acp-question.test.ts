/**
 * Issue 29 item 1: ACP v1 has no question method, so `zuno acp` asks a
 * question's item through `session/request_permission` whose options are
 * the item's answer choices (plus "Answer later"); the choice is answered
 * through the same durable Update as `zuno questions answer`, which admits
 * the answer to the session's inbox. Real dev server, host worker service.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { makeWorkspace, tempDir, writeJson } from '../cli/helpers.js';
import { waitFor } from '../helpers/worker-process.js';
import { initialize, startAcp, useServiceHomes } from './acp-client.js';

const serviceHome = useServiceHomes();

describe('zuno acp: questions', () => {
  it('a question item becomes a permission request of its choices; the pick is the answer', async () => {
    const home = serviceHome();
    const ws = makeWorkspace();
    const script = writeJson(tempDir('zuno-acp-script-'), 'question.json', {
      replies: [
        {
          toolCalls: [
            {
              name: 'question',
              arguments: { header: 'Colour', items: [{ question: 'Which colour?', options: ['red', 'blue'] }] },
            },
          ],
        },
        // A slow answer: the turn (and so the session) is still running when the editor picks the answer.
        // A deferred question answered after its session closed is answered as a message (not this test).
        { text: 'Asked; going on with red for now.', fault: { delayMs: 15_000 } },
        { text: 'Noted.' },
      ],
    });
    const c = startAcp(home, ['--script', script]);
    await initialize(c);
    const { sessionId } = await c.conn.agent.request('session/new', { cwd: ws, mcpServers: [] });
    c.onPermission = () => ({ outcome: { outcome: 'selected', optionId: 'answer:1' } });
    const res = await c.conn.agent.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'pick a colour' }],
    });
    expect(res.stopReason).toBe('end_turn');
    await waitFor(async () => c.permissions.length > 0, 60_000, 'the question as a permission request');
    const asked = c.permissions[0]!;
    expect(asked.toolCall.title).toBe('Colour: Which colour?');
    expect(asked.options.map((o) => o.name)).toEqual(['red', 'blue', 'Answer later']);
    // Answered through the durable Update: the question is closed and its answer is an input of the session.
    const answered = await waitFor(
      async () => {
        const db = new Database(join(home, 'zuno.db'), { readonly: true, fileMustExist: true });
        try {
          const q = db.prepare('SELECT status, view FROM questions WHERE sessionId = ?').get(sessionId) as
            { status: string; view: string } | undefined;
          const inputs = db.prepare('SELECT text FROM inputs WHERE sessionId = ?').all(sessionId) as { text: string }[];
          return q?.status === 'answered' ? { q, inputs } : undefined;
        } finally {
          db.close();
        }
      },
      60_000,
      'the question answered',
    );
    expect((JSON.parse(answered.q.view) as { answers: Record<string, string> }).answers).toEqual({ qi_1: 'blue' });
    expect(answered.inputs.some((i) => i.text.includes('blue'))).toBe(true);
    expect(await c.close()).toBe(0);
  }, 240_000);
});
