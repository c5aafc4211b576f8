/**
 * `todo_get` and `todo_update` through the shared wrapper on a real SQLite
 * projection (GP31; invariants decided in docs/goals.md "Todo"): atomic
 * batches against the revision, every invariant refused with its code and
 * nothing written, one application per tool call.
 */
import { describe, expect, it } from 'vitest';
import { toolImplementations } from '../../../activities/tools/index.js';
import { validateToolCall } from '../../../core/tools/registry.js';
import { callTool, useWorkStore } from './helpers.js';

const t = useWorkStore();
let sessions = 0;
const newSession = () => `ses_todo_${sessions++}`;

/** A session with Todos td_1 (done first) and td_2 (depends on td_1), at revision 1. */
async function seeded(): Promise<string> {
  const sid = newSession();
  const r = await callTool(t.store, sid, 'todo_update', {
    expected_revision: 0,
    changes: [
      { op: 'add', title: 'Reproduce the bug' },
      { op: 'add', title: 'Fix it', dependsOn: ['td_1'] },
    ],
  });
  expect(r).toMatchObject({ isError: false, data: { revision: 1, todos: 2 } });
  return sid;
}

const items = async (sid: string) =>
  (JSON.parse((await t.store.getWorkState(sid))!.todoJson!) as { items: { id: string; status: string }[] }).items;

describe('todo_update schema', () => {
  it('needs expected_revision and at least one change; each op is checked for its own fields', () => {
    const schema = toolImplementations.todo_update!.jsonSchema as { required: string[] };
    expect(schema.required.sort()).toEqual(['changes', 'expected_revision']);
    const problems: [unknown, string][] = [
      [{ changes: [{ op: 'add', title: 'x' }] }, 'expected_revision'],
      [{ expected_revision: 0, changes: [] }, 'changes'],
      [{ expected_revision: 0, changes: [{ title: 'x' }] }, 'changes[0].op'],
      [{ expected_revision: 0, changes: [{ op: 'add' }] }, 'changes[0].title'],
      [{ expected_revision: 0, changes: [{ op: 'add', id: 'td_1', title: 'x' }] }, 'changes[0].id'],
      [{ expected_revision: 0, changes: [{ op: 'add', title: 'x', status: 'completed' }] }, 'changes[0].status'],
      [{ expected_revision: 1, changes: [{ op: 'set', status: 'completed' }] }, 'changes[0].id'],
      [{ expected_revision: 1, changes: [{ op: 'set', id: 'todo-1' }] }, 'changes[0].id'],
    ];
    for (const [args, field] of problems) {
      const v = validateToolCall('todo_update', JSON.stringify(args));
      expect(v.ok, JSON.stringify(args)).toBe(false);
      if (!v.ok) expect(v.message, JSON.stringify(args)).toContain(`- ${field}:`);
    }
  });
});

describe('todo_get / todo_update (GP31)', () => {
  it('todo_get of an empty session is revision 0 with no Todos; a batch adds with host ids in one revision', async () => {
    const empty = await callTool(t.store, newSession(), 'todo_get', {});
    expect(empty).toMatchObject({ isError: false, data: { revision: 0, todos: 0 } });
    expect(empty.output).toContain('"items": []');
    const sid = await seeded();
    const got = await callTool(t.store, sid, 'todo_get', {});
    expect(got.data).toMatchObject({ revision: 1, todos: 2 });
    expect(got.output).toContain('"id": "td_2"');
    expect(got.output).toContain('"dependsOn": [\n        "td_1"\n      ]');
  });

  it('a stale revision is refused and nothing is written', async () => {
    const sid = await seeded();
    const before = await t.store.getWorkState(sid);
    const r = await callTool(t.store, sid, 'todo_update', {
      expected_revision: 0,
      changes: [{ op: 'set', id: 'td_1', status: 'in_progress' }],
    });
    expect(r).toMatchObject({ isError: true, errorCode: 'stale_revision' });
    expect(await t.store.getWorkState(sid)).toEqual(before);
  });

  it('each invariant is refused with its code and the whole batch applies nothing', async () => {
    const sid = await seeded();
    const before = await t.store.getWorkState(sid);
    const batches: [unknown[], string][] = [
      [
        [
          { op: 'set', id: 'td_1', status: 'in_progress' },
          { op: 'add', title: 'also now', status: 'in_progress' },
        ],
        'two_in_progress',
      ],
      [[{ op: 'set', id: 'td_2', status: 'in_progress' }], 'dependency_unfinished'],
      [[{ op: 'set', id: 'td_1', dependsOn: ['td_2'] }], 'dependency_cycle'],
      [[{ op: 'set', id: 'td_1', status: 'blocked' }], 'blocked_needs_reason'],
      [[{ op: 'set', id: 'td_7', title: 'who?' }], 'unknown_todo'],
      [
        [
          { op: 'add', title: 'fine on its own' },
          { op: 'set', id: 'td_9', status: 'completed' },
        ],
        'unknown_todo',
      ],
    ];
    for (const [changes, code] of batches) {
      const r = await callTool(t.store, sid, 'todo_update', { expected_revision: 1, changes });
      expect(r, JSON.stringify(changes)).toMatchObject({ isError: true, errorCode: code });
      expect(await t.store.getWorkState(sid)).toEqual(before);
    }
  });

  it('dependencies finished first, then the dependent starts and completes; a finished Todo is final', async () => {
    const sid = await seeded();
    const steps: [unknown[], number][] = [
      [[{ op: 'set', id: 'td_1', status: 'in_progress' }], 1],
      [
        [
          { op: 'set', id: 'td_1', status: 'completed' },
          { op: 'set', id: 'td_2', status: 'in_progress' },
        ],
        2,
      ],
      [[{ op: 'set', id: 'td_2', status: 'blocked', blockedBy: 'waiting for CI' }], 3],
    ];
    for (const [changes, revision] of steps) {
      const r = await callTool(t.store, sid, 'todo_update', { expected_revision: revision, changes });
      expect(r, JSON.stringify(changes)).toMatchObject({ isError: false, data: { revision: revision + 1 } });
    }
    expect((await items(sid)).map((i) => i.status)).toEqual(['completed', 'blocked']);
    const reopen = await callTool(t.store, sid, 'todo_update', {
      expected_revision: 4,
      changes: [{ op: 'set', id: 'td_1', status: 'pending' }],
    });
    expect(reopen).toMatchObject({ isError: true, errorCode: 'terminal_todo' });
  });

  it('a second run of the same call returns the recorded result and applies the batch once', async () => {
    const sid = await seeded();
    const call = { rowId: 'tc_3_0_0', callId: 'call_add' };
    const batch = { expected_revision: 1, changes: [{ op: 'add', title: 'Write the test' }] };
    const first = await callTool(t.store, sid, 'todo_update', batch, call);
    expect(first).toMatchObject({ isError: false, data: { revision: 2, todos: 3 } });
    expect(await callTool(t.store, sid, 'todo_update', batch, call)).toEqual(first);
    expect(await items(sid)).toHaveLength(3);
    // The same position with another provider call id (a redone model step) is another call.
    const redone = await callTool(t.store, sid, 'todo_update', batch, { ...call, callId: 'call_other' });
    expect(redone).toMatchObject({ isError: true, errorCode: 'stale_revision' });
  });

  it('a stored Todo status this build does not know fails closed: todo_corrupt, nothing written', async () => {
    const sid = await seeded();
    const good = (await t.store.getWorkState(sid))!;
    const corrupt = { ...good, todoJson: good.todoJson!.replace('"status":"pending"', '"status":"cancelled"') };
    await t.store.upsertWorkState(corrupt);
    expect(await callTool(t.store, sid, 'todo_get', {})).toMatchObject({ isError: true, errorCode: 'todo_corrupt' });
    const r = await callTool(t.store, sid, 'todo_update', {
      expected_revision: 1,
      changes: [{ op: 'add', title: 'more' }],
    });
    expect(r).toMatchObject({ isError: true, errorCode: 'todo_corrupt' });
    expect(await t.store.getWorkState(sid)).toEqual(corrupt);
    // The Plan is a separate part: a corrupt Todo list does not stop plan_get.
    expect(await callTool(t.store, sid, 'plan_get', {})).toMatchObject({ isError: false });
  });
});
