/**
 * Plan/Todo work state through the whole stack (GP6, GP22, GP32): real
 * Temporal, the real local provider (whose captured request bodies show what
 * the model received), a real SQLite projection. The work state a tool
 * commits is in the next request's runtime context; the same unchanged read
 * three times in a row ends the turn `stagnant_tool_loop`.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await createHarness({ address: inject('temporalAddress') });
});
afterAll(async () => {
  await h?.close();
});

const workspace = (): string => mkdtempSync(join(tmpdir(), 'zuno-work-ws-'));

type ChatBody = { messages: { role: string; content: string | null }[] };
const chat = (body: unknown) => (body as ChatBody).messages;
/** The (one, leading) system message of a captured Chat Completions request. */
const systemOf = (body: unknown): string => {
  const systems = chat(body).filter((m) => m.role === 'system');
  expect(systems).toHaveLength(1);
  expect(chat(body)[0]!.role).toBe('system');
  return systems[0]!.content!;
};

const planGet = { toolCalls: [{ name: 'plan_get', arguments: {} }] };

describe('runtime.work_state in model requests (GP32)', () => {
  it('is absent without work state, and the next request after an update carries the committed Plan and Todos as system context', async () => {
    const run = await h.runSession({
      workspace: workspace(),
      prompt: 'plan the migration',
      script: {
        replies: [
          {
            toolCalls: [
              {
                name: 'plan_update',
                arguments: {
                  action: 'create',
                  steps: [{ title: 'Write the migration' }, { title: 'Test both backends' }],
                },
              },
            ],
          },
          {
            toolCalls: [
              {
                name: 'todo_update',
                arguments: { expected_revision: 0, changes: [{ op: 'add', title: 'Run migrate diff', step: 'st_1' }] },
              },
            ],
          },
          { text: 'planned' },
        ],
      },
    });
    expect(run.result.status).toBe('completed');
    expect(run.providerRequests).toHaveLength(3);
    const [first, second, third] = run.providerRequests.map(systemOf);
    expect(first).not.toContain('runtime.work_state');
    expect(second).toContain('# Work state (runtime.work_state)');
    expect(second).toContain('## Plan (revision 1, depth 1)');
    expect(second).toContain('- st_1 [pending] Write the migration');
    expect(second).toContain('- st_2 [pending] Test both backends');
    expect(second).not.toContain('## Todos');
    expect(third).toContain('## Todos (revision 1)');
    expect(third).toContain('- td_1 [pending] Run migrate diff (step st_1)');
    // Runtime context, never a user message: the only user message is the prompt.
    expect(
      chat(run.providerRequests[2])
        .filter((m) => m.role === 'user')
        .map((m) => m.content),
    ).toEqual(['plan the migration']);
  });
});

describe('stagnant work-state reads (GP22)', () => {
  it('three identical successful plan_get steps end the turn stagnant_tool_loop, after the third result is stored', async () => {
    const run = await h.runSession({
      workspace: workspace(),
      prompt: 'what is the plan?',
      script: { replies: [planGet, planGet, planGet, { text: 'never asked for' }] },
    });
    expect(run.result.status).toBe('failed');
    expect(run.result.error?.code).toBe('stagnant_tool_loop');
    expect(run.result.outcome).toMatchObject({ kind: 'limit', limit: 'stagnant_tool_loop', steps: 3 });
    expect(run.result.outcome?.kind === 'limit' && run.result.outcome.message).toContain('plan_get 3 times in a row');
    expect(run.providerRequests).toHaveLength(3);
    const third = await h.store.getToolCall(run.sessionId, 'tc_0_2_0');
    expect(third).toMatchObject({ tool: 'plan_get', status: 'completed', outcome: 'ok' });
    expect(third?.output).toContain('{"plan":null}');
  });

  it('a different tool in between resets the count (and so does a change of the state read)', async () => {
    const todoGet = { toolCalls: [{ name: 'todo_get', arguments: {} }] };
    const create = {
      toolCalls: [{ name: 'plan_update', arguments: { action: 'create', steps: [{ title: 'a' }, { title: 'b' }] } }],
    };
    const run = await h.runSession({
      workspace: workspace(),
      prompt: 'look around',
      script: { replies: [planGet, planGet, todoGet, planGet, planGet, create, planGet, planGet, { text: 'done' }] },
    });
    expect(run.result.status).toBe('completed');
    expect(run.result.outcome).toMatchObject({ kind: 'final_answer', steps: 9 });
  });
});
