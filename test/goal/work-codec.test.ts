/**
 * The stored form of the work state (core/work/codec.ts): round trips, and
 * fail-closed reads of anything this build cannot read exactly (GP20).
 */
import { describe, expect, it } from 'vitest';
import { decodePlan, decodeTodo, encodePlan, encodeTodo } from '../../core/work/codec.js';
import { applyPlanUpdate, PlanCorruption, type PlanState } from '../../core/work/plan.js';
import { applyTodoUpdate, TodoCorruption, type TodoState } from '../../core/work/todo.js';

function plan(): PlanState {
  const r = applyPlanUpdate(null, {
    action: 'create',
    steps: [{ title: 'a' }, { title: 'b', acceptance: 'tests pass' }],
  });
  if (!('state' in r)) throw new Error('refused');
  return r.state;
}

function todo(): TodoState {
  const r = applyTodoUpdate({ revision: 0, items: [], nextItem: 1 }, 0, [
    { op: 'add', title: 'x' },
    { op: 'add', title: 'y', dependsOn: ['td_1'], step: 'st_1' },
  ]);
  if (!('state' in r)) throw new Error('refused');
  return r.state;
}

describe('work-state codec', () => {
  it('round-trips a Plan and a Todo list; the revision lives in its own column', () => {
    const p = plan();
    const stored = encodePlan(p);
    expect(stored.planRevision).toBe(1);
    expect(JSON.parse(stored.planJson!)).not.toHaveProperty('revision');
    expect(decodePlan(stored)).toEqual(p);
    const t = todo();
    const storedTodo = encodeTodo(t);
    expect(storedTodo.todoRevision).toBe(1);
    expect(decodeTodo(storedTodo)).toEqual(t);
  });

  it('no Plan is both columns null; no Todo is JSON null', () => {
    expect(encodePlan(null)).toEqual({ planRevision: null, planJson: null });
    expect(decodePlan({ planRevision: null, planJson: null })).toBeNull();
    expect(decodeTodo({ todoRevision: 0, todoJson: null })).toBeNull();
  });

  it('an unknown, missing or legacy `cancelled` step status is plan_corrupt', () => {
    const body = JSON.parse(encodePlan(plan()).planJson!) as { levels: { steps: Record<string, unknown>[] }[] };
    for (const status of ['cancelled', 'blocked', undefined]) {
      const b = structuredClone(body);
      if (status === undefined) delete b.levels[0]!.steps[1]!.status;
      else b.levels[0]!.steps[1]!.status = status;
      const read = () => decodePlan({ planRevision: 1, planJson: JSON.stringify(b) });
      expect(read).toThrow(PlanCorruption);
      try {
        read();
      } catch (err) {
        expect((err as PlanCorruption).code).toBe('plan_corrupt');
      }
    }
  });

  it('bad JSON, a wrong shape, an unknown field or half of the columns is plan_corrupt, never repaired', () => {
    const good = encodePlan(plan());
    const body = JSON.parse(good.planJson!) as Record<string, unknown>;
    const cases = [
      { planRevision: 1, planJson: '{"levels": [' },
      { planRevision: 1, planJson: JSON.stringify({ ...body, levels: [] }) },
      { planRevision: 1, planJson: JSON.stringify({ ...body, owner: 'someone' }) },
      { planRevision: 1, planJson: JSON.stringify({ levels: body.levels }) },
      { planRevision: null, planJson: good.planJson },
      { planRevision: 1, planJson: null },
    ];
    for (const c of cases) expect(() => decodePlan(c), JSON.stringify(c)).toThrow(PlanCorruption);
  });

  it('an unknown Todo status or a wrong shape is todo_corrupt', () => {
    const body = JSON.parse(encodeTodo(todo()).todoJson!) as { items: Record<string, unknown>[] };
    const unknown = structuredClone(body);
    unknown.items[0]!.status = 'cancelled';
    expect(() => decodeTodo({ todoRevision: 1, todoJson: JSON.stringify(unknown) })).toThrow(TodoCorruption);
    const noDeps = structuredClone(body);
    delete noDeps.items[0]!.dependsOn;
    expect(() => decodeTodo({ todoRevision: 1, todoJson: JSON.stringify(noDeps) })).toThrow(TodoCorruption);
    expect(() => decodeTodo({ todoRevision: 1, todoJson: 'nope' })).toThrow(/todo list is corrupt/i);
  });
});
