/**
 * `plan_get` and `plan_update` through the shared wrapper on a real SQLite
 * projection (GP3, GP17–GP22, TD8): the action-tagged schema, revision
 * checks that change nothing when they refuse, fail-closed reads of a
 * corrupt stored Plan, and one application per tool call.
 */
import { describe, expect, it } from 'vitest';
import { toolImplementations } from '../../../activities/tools/index.js';
import { validateToolCall } from '../../../core/tools/registry.js';
import { callTool, useWorkStore } from './helpers.js';

const t = useWorkStore();
let sessions = 0;
const newSession = () => `ses_plan_${sessions++}`;

const create = { action: 'create', steps: [{ title: 'Write the migration' }, { title: 'Test it' }] };

/** The stored Plan state of a session, exactly as committed. */
async function stored(sessionId: string) {
  return t.store.getWorkState(sessionId);
}

describe('plan_update schema (GP21, TD8)', () => {
  it('is one object whose only required field is the action enum; every other field is nullable', () => {
    const schema = toolImplementations.plan_update!.jsonSchema as {
      required: string[];
      properties: Record<string, { enum?: string[]; anyOf?: { type: string }[] }>;
    };
    expect(schema).toMatchObject({ type: 'object', additionalProperties: false, required: ['action'] });
    expect(schema.properties.action!.enum).toEqual(['create', 'patch', 'append', 'push', 'pop']);
    for (const field of ['expected_revision', 'steps']) {
      expect(schema.properties[field]!.anyOf?.map((s) => s.type)).toContain('null');
    }
  });

  it('a call without an action is blocked before it reaches the tool, and nothing is written', async () => {
    const v = validateToolCall('plan_update', JSON.stringify({ steps: create.steps }));
    expect(v).toMatchObject({ ok: false, category: 'invalid_arguments' });
    if (!v.ok) expect(v.message).toContain('- action:');
    const sid = newSession();
    const r = await callTool(t.store, sid, 'plan_update', { steps: create.steps });
    expect(r).toMatchObject({ isError: true, errorCode: 'invalid_arguments' });
    expect(await stored(sid)).toBeNull();
  });

  it("checks each action's own fields, naming the field", () => {
    const problems: [unknown, string][] = [
      [{ action: 'create', steps: [{ id: 'st_9', title: 'x' }, { title: 'y' }] }, 'steps[0].id'],
      [{ action: 'create', steps: [{ title: 'x', status: 'completed' }, { title: 'y' }] }, 'steps[0].status'],
      [{ action: 'create' }, 'steps'],
      [{ action: 'append', steps: [{ title: 'x' }] }, 'expected_revision'],
      [{ action: 'patch', expected_revision: 1, steps: [{ title: 'x' }] }, 'steps[0].id'],
      [{ action: 'patch', expected_revision: 1, steps: [{ id: 'st_1' }] }, 'steps[0]'],
      [{ action: 'pop', expected_revision: 1, steps: [{ title: 'x' }] }, 'steps'],
      [{ action: 'pop' }, 'expected_revision'],
      [{ action: 'rename', expected_revision: 1 }, 'action'],
    ];
    for (const [args, field] of problems) {
      const v = validateToolCall('plan_update', JSON.stringify(args));
      expect(v.ok, JSON.stringify(args)).toBe(false);
      if (!v.ok) expect(v.message, JSON.stringify(args)).toContain(`- ${field}:`);
    }
    expect(validateToolCall('plan_update', JSON.stringify({ ...create, expected_revision: null }))).toMatchObject({
      ok: true,
      args: { action: 'create', steps: [{ title: 'Write the migration' }, { title: 'Test it' }] },
    });
  });
});

describe('plan_get / plan_update (GP3, GP17–GP20)', () => {
  it('plan_get of a session without a Plan says null; create, patch, append, push and pop move the revision by one each', async () => {
    const sid = newSession();
    const empty = await callTool(t.store, sid, 'plan_get', {});
    expect(empty.isError).toBe(false);
    expect(empty.output).toContain('{"plan":null}');
    expect(empty.data).toMatchObject({ revision: null, depth: 0 });

    const made = await callTool(t.store, sid, 'plan_update', create);
    expect(made).toMatchObject({ isError: false, data: { revision: 1, depth: 1 } });
    const view = await callTool(t.store, sid, 'plan_get', {});
    const plan = JSON.parse(view.output.slice(view.output.indexOf('{'))) as {
      revision: number;
      levels: { steps: { id: string; status: string }[] }[];
    };
    expect(plan.revision).toBe(1);
    expect(plan.levels[0]!.steps.map((s) => [s.id, s.status])).toEqual([
      ['st_1', 'pending'],
      ['st_2', 'pending'],
    ]);

    const steps = [
      { action: 'patch', expected_revision: 1, steps: [{ id: 'st_1', status: 'in_progress' }] },
      { action: 'append', expected_revision: 2, steps: [{ title: 'Ship it' }] },
      { action: 'push', expected_revision: 3, steps: [{ title: 'Find the failing test' }] },
      { action: 'pop', expected_revision: 4 },
    ];
    for (const [i, args] of steps.entries()) {
      const r = await callTool(t.store, sid, 'plan_update', args);
      expect(r, JSON.stringify(args)).toMatchObject({ isError: false, data: { revision: i + 2 } });
    }
    const after = await callTool(t.store, sid, 'plan_get', {});
    expect(after.data).toMatchObject({ revision: 5, depth: 1 });
    expect(after.output).toContain('"id": "st_3"');
    expect(after.output).not.toContain('st_4'); // the popped child level is gone
  });

  it('a stale expected_revision is refused with stale_revision and nothing is written', async () => {
    const sid = newSession();
    await callTool(t.store, sid, 'plan_update', create);
    const before = await stored(sid);
    const r = await callTool(t.store, sid, 'plan_update', {
      action: 'patch',
      expected_revision: 0,
      steps: [{ id: 'st_1', status: 'completed' }],
    });
    expect(r).toMatchObject({ isError: true, errorCode: 'stale_revision' });
    expect(r.output).toContain('revision 1, not 0');
    expect(await stored(sid)).toEqual(before);
  });

  it('GP17/GP18: no one-step Plan; replacing a Plan needs its revision', async () => {
    const sid = newSession();
    const one = await callTool(t.store, sid, 'plan_update', { action: 'create', steps: [{ title: 'just this' }] });
    expect(one).toMatchObject({ isError: true, errorCode: 'one_step_plan' });
    expect(await stored(sid)).toBeNull();
    await callTool(t.store, sid, 'plan_update', create);
    const replace = await callTool(t.store, sid, 'plan_update', create);
    expect(replace).toMatchObject({ isError: true, errorCode: 'revision_required' });
    const ok = await callTool(t.store, sid, 'plan_update', { ...create, expected_revision: 1 });
    expect(ok).toMatchObject({ isError: false, data: { revision: 2 } });
    expect(ok.output).toContain('"id": "st_3"'); // host ids are never reused
  });

  it('a terminal step keeps its status', async () => {
    const sid = newSession();
    await callTool(t.store, sid, 'plan_update', create);
    await callTool(t.store, sid, 'plan_update', {
      action: 'patch',
      expected_revision: 1,
      steps: [{ id: 'st_1', status: 'completed' }],
    });
    const r = await callTool(t.store, sid, 'plan_update', {
      action: 'patch',
      expected_revision: 2,
      steps: [{ id: 'st_1', status: 'in_progress' }],
    });
    expect(r).toMatchObject({ isError: true, errorCode: 'terminal_step' });
  });

  it('a stored step status this build does not know fails closed: plan_corrupt for reads and updates, nothing written', async () => {
    const sid = newSession();
    await callTool(t.store, sid, 'plan_update', create);
    const good = (await stored(sid))!;
    const corrupt = { ...good, planJson: good.planJson!.replace('"status":"pending"', '"status":"cancelled"') };
    expect(corrupt.planJson).not.toBe(good.planJson);
    await t.store.upsertWorkState(corrupt);

    const read = await callTool(t.store, sid, 'plan_get', {});
    expect(read).toMatchObject({ isError: true, errorCode: 'plan_corrupt' });
    expect(read.output).toContain('"cancelled"');
    expect(toolImplementations.plan_get!.body.activityFacts!(read)).toEqual({});

    const call = { rowId: 'tc_9_0_0', callId: 'call_corrupt' };
    const write = await callTool(
      t.store,
      sid,
      'plan_update',
      { action: 'patch', expected_revision: 1, steps: [{ id: 'st_2', status: 'completed' }] },
      call,
    );
    expect(write).toMatchObject({ isError: true, errorCode: 'plan_corrupt' });
    expect(await stored(sid)).toEqual(corrupt);
    expect(await t.store.getWorkUpdate(sid, `${call.rowId}/${call.callId}`)).toBeNull();
  });

  it('a second run of the same call returns the recorded result and applies nothing; a refusal is recorded too', async () => {
    const sid = newSession();
    await callTool(t.store, sid, 'plan_update', create);
    const call = { rowId: 'tc_1_0_0', callId: 'call_append' };
    const append = { action: 'append', expected_revision: 1, steps: [{ title: 'Ship it' }] };
    const first = await callTool(t.store, sid, 'plan_update', append, call);
    expect(first).toMatchObject({ isError: false, data: { revision: 2 } });
    const second = await callTool(t.store, sid, 'plan_update', append, call);
    expect(second).toEqual(first);
    expect((await stored(sid))!.planRevision).toBe(2);
    expect(JSON.parse((await stored(sid))!.planJson!).levels[0].steps).toHaveLength(3);

    // A refused call stays refused on a second run, even after the state it was refused on moved.
    const staleCall = { rowId: 'tc_1_1_0', callId: 'call_stale' };
    const stale = { action: 'append', expected_revision: 3, steps: [{ title: 'later' }] };
    const refused = await callTool(t.store, sid, 'plan_update', stale, staleCall);
    expect(refused).toMatchObject({ isError: true, errorCode: 'stale_revision' });
    await callTool(t.store, sid, 'plan_update', { action: 'append', expected_revision: 2, steps: [{ title: 'x' }] });
    expect((await stored(sid))!.planRevision).toBe(3);
    expect(await callTool(t.store, sid, 'plan_update', stale, staleCall)).toEqual(refused);
    expect((await stored(sid))!.planRevision).toBe(3);
  });

  it('arguments already parsed (as the workflow hands them to the activity) run the same', async () => {
    const sid = newSession();
    const v = validateToolCall('plan_update', JSON.stringify({ ...create, expected_revision: null }));
    if (!v.ok) throw new Error(v.message);
    expect(await callTool(t.store, sid, 'plan_update', v.args)).toMatchObject({ isError: false });
    const patch = validateToolCall(
      'plan_update',
      JSON.stringify({
        action: 'patch',
        expected_revision: 1,
        steps: [{ id: 'st_2', title: 'Test it well', status: null }],
      }),
    );
    if (!patch.ok) throw new Error(patch.message);
    expect(await callTool(t.store, sid, 'plan_update', patch.args)).toMatchObject({
      isError: false,
      data: { revision: 2 },
    });
    expect((await stored(sid))!.planJson).toContain('Test it well');
  });

  it('plan_get exposes a fingerprint of the stored state only: equal for unchanged state, new after any change', async () => {
    const sid = newSession();
    const facts = toolImplementations.plan_get!.body.activityFacts!;
    const fp = async () => facts(await callTool(t.store, sid, 'plan_get', {})).workState;
    const none = await fp();
    expect(none).toMatch(/^[0-9a-f]{16}$/);
    await callTool(t.store, sid, 'plan_update', create);
    const a = await fp();
    expect(a).not.toBe(none);
    expect(await fp()).toBe(a);
    await callTool(t.store, sid, 'todo_update', { expected_revision: 0, changes: [{ op: 'add', title: 'x' }] });
    const b = await fp();
    expect(b).not.toBe(a); // the Todo list is authoritative work state too
    expect(facts(await callTool(t.store, sid, 'todo_get', {})).workState).toBe(b);
    expect(toolImplementations.plan_update!.body.activityFacts).toBeUndefined(); // a write is never a read
  });
});
