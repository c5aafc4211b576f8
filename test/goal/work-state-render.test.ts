/**
 * The `runtime.work_state` renderer (core/work/work-state.ts, GP32 caps
 * decided in docs/goals.md): what it shows, what it leaves out and that it
 * says so, and its overall bound.
 */
import { describe, expect, it } from 'vitest';
import {
  renderWorkState,
  WORK_STATE_MAX_CHARS,
  WORK_STATE_MAX_STEPS,
  WORK_STATE_MAX_TODOS,
} from '../../core/work/work-state.js';
import type { PlanState, PlanStep } from '../../core/work/plan.js';
import type { TodoItem, TodoState } from '../../core/work/todo.js';

const step = (n: number, status: PlanStep['status'] = 'pending', title = `step ${n}`): PlanStep => ({
  id: `st_${n}`,
  title,
  status,
});
const planOf = (levels: PlanStep[][], revision = 3): PlanState => ({
  revision,
  levels: levels.map((steps) => ({ steps })),
  nextStep: 1 + levels.flat().length,
});
const todoItem = (n: number, status: TodoItem['status'] = 'pending', extra: Partial<TodoItem> = {}): TodoItem => ({
  id: `td_${n}`,
  title: `todo ${n}`,
  status,
  dependsOn: [],
  ...extra,
});
const todoOf = (items: TodoItem[], revision = 2): TodoState => ({ revision, items, nextItem: items.length + 1 });

describe('runtime.work_state rendering', () => {
  it('is absent when there is neither a Plan nor a Todo (an empty list counts as none)', () => {
    expect(renderWorkState({ plan: null, todo: null })).toBeNull();
    expect(renderWorkState({ plan: null, todo: { state: todoOf([], 0) } })).toBeNull();
  });

  it('shows the current level with ids, statuses and acceptance, the depth and each parent level, then the Todos', () => {
    const root = [step(1, 'completed'), step(2, 'in_progress', 'Build the parser')];
    const child = [{ ...step(3, 'in_progress'), acceptance: 'tests\npass' }, step(4)];
    const text = renderWorkState({
      plan: { state: planOf([root, child], 7) },
      todo: {
        state: todoOf([
          todoItem(1, 'completed'),
          todoItem(2, 'blocked', { blockedBy: 'waiting for CI', dependsOn: ['td_1'], step: 'st_3' }),
        ]),
      },
    })!;
    expect(text).toContain('# Work state (runtime.work_state)');
    expect(text).toContain('## Plan (revision 7, depth 2)');
    expect(text).toContain('Level 1 (root): 2 steps, 1 finished; in progress: st_2 Build the parser');
    expect(text).toContain('Level 2 (current, opened by push; pop returns to level 1):');
    expect(text).toContain('- st_3 [in_progress] step 3 (done when: tests pass)');
    expect(text).toContain('- st_4 [pending] step 4');
    expect(text).not.toContain('st_1 [');
    expect(text).toContain('## Todos (revision 2)');
    expect(text).toContain('- td_2 [blocked: waiting for CI] todo 2 (after td_1) (step st_3)');
    expect(text.indexOf('## Plan')).toBeLessThan(text.indexOf('## Todos'));
  });

  it(`shows at most ${WORK_STATE_MAX_STEPS} steps, leaving finished ones out first, and says how many it left out`, () => {
    const steps = [
      ...Array.from({ length: 25 }, (_, i) => step(i + 1, 'completed')),
      ...Array.from({ length: 25 }, (_, i) => step(i + 26)),
    ];
    const text = renderWorkState({ plan: { state: planOf([steps]) }, todo: null })!;
    const shown = text.split('\n').filter((l) => l.startsWith('- st_'));
    expect(shown).toHaveLength(WORK_STATE_MAX_STEPS);
    expect(shown[0]).toBe('- st_26 [pending] step 26');
    expect(text).toContain('… 30 of 50 steps not shown (25 finished); plan_get shows all.');
  });

  it(`shows at most ${WORK_STATE_MAX_TODOS} Todos, unfinished first, and says how many it left out`, () => {
    const items = Array.from({ length: 30 }, (_, i) => todoItem(i + 1, i % 3 === 0 ? 'completed' : 'pending'));
    const text = renderWorkState({ plan: null, todo: { state: todoOf(items) } })!;
    const shown = text.split('\n').filter((l) => l.startsWith('- td_'));
    expect(shown).toHaveLength(WORK_STATE_MAX_TODOS);
    expect(shown.every((l) => l.includes('[pending]'))).toBe(true);
    expect(text).toContain('… 10 of 30 Todos not shown (10 finished); todo_get shows all.');
  });

  it('cuts long titles to one line with an ellipsis', () => {
    const text = renderWorkState(
      { plan: { state: planOf([[step(1, 'pending', `line one\nline two ${'x'.repeat(500)}`), step(2)]]) }, todo: null },
      { maxTitleChars: 40 },
    )!;
    const line = text.split('\n').find((l) => l.startsWith('- st_1'))!;
    expect(line).toBe(`- st_1 [pending] line one line two ${'x'.repeat(21)}…`);
  });

  it(`never exceeds its character cap (default ${WORK_STATE_MAX_CHARS}); the last line says how many lines it left out`, () => {
    const long = (n: number) => step(n, 'pending', 'y'.repeat(300));
    const state = planOf([Array.from({ length: 50 }, (_, i) => long(i + 1))]);
    const items = Array.from({ length: 100 }, (_, i) => todoItem(i + 1, 'pending', { title: 'z'.repeat(300) }));
    const full = renderWorkState({ plan: { state }, todo: { state: todoOf(items) } })!;
    expect(full.length).toBeLessThanOrEqual(WORK_STATE_MAX_CHARS);
    expect(full.split('\n').at(-1)).toMatch(/^… \d+ more lines left out/);
    const small = renderWorkState({ plan: { state }, todo: { state: todoOf(items) } }, { maxChars: 1500 })!;
    expect(small.length).toBeLessThanOrEqual(1500);
    expect(small.split('\n').at(-1)).toMatch(
      /^… \d+ more lines left out \(the work state is capped at 1500 characters/,
    );
  });

  it('shows a corrupt part as corrupt (fail closed), never as an empty Plan', () => {
    const text = renderWorkState({ plan: { corrupt: 'step st_2 has status "cancelled"' }, todo: null })!;
    expect(text).toContain('## Plan: unreadable (plan_corrupt)');
    expect(text).toContain('step st_2 has status "cancelled"');
  });
});
