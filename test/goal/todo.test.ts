import { describe, expect, it } from 'vitest';
import { applyTodoUpdate, TodoCorruption, type TodoChange, type TodoState } from '../../core/work/todo.js';

const empty: TodoState = { revision: 0, items: [], nextItem: 1 };

function apply(state: TodoState, ...batches: TodoChange[][]): TodoState {
  let s = state;
  for (const b of batches) {
    const r = applyTodoUpdate(s, s.revision, b);
    if ('refused' in r) throw new Error(`refused: ${r.refused.code}: ${r.refused.message}`);
    s = r.state;
  }
  return s;
}

describe('todo_update (GP31, decided invariants)', () => {
  it('adds with host ids, refers to a new id within the same batch, and bumps the revision once per batch', () => {
    const s = apply(empty, [
      { op: 'add', title: 'run CI' },
      { op: 'add', title: 'read the failure', dependsOn: ['td_1'] },
      { op: 'set', id: 'td_1', status: 'in_progress' },
    ]);
    expect(s.revision).toBe(1);
    expect(s.items.map((i) => [i.id, i.status, i.dependsOn])).toEqual([
      ['td_1', 'in_progress', []],
      ['td_2', 'pending', ['td_1']],
    ]);
  });
  it('refuses a stale revision and applies nothing of a batch that breaks an invariant', () => {
    const s = apply(empty, [{ op: 'add', title: 'a' }]);
    expect(applyTodoUpdate(s, 0, [{ op: 'add', title: 'b' }])).toMatchObject({ refused: { code: 'stale_revision' } });
    const r = applyTodoUpdate(s, 1, [
      { op: 'add', title: 'b', status: 'in_progress' },
      { op: 'set', id: 'td_1', status: 'in_progress' },
    ]);
    expect(r).toMatchObject({ refused: { code: 'two_in_progress' } });
    expect(s.items).toHaveLength(1);
  });
  it('a Todo starts or completes only after what it depends on completed; cycles and unknown ids are refused', () => {
    const s = apply(empty, [
      { op: 'add', title: 'a' },
      { op: 'add', title: 'b', dependsOn: ['td_1'] },
    ]);
    expect(applyTodoUpdate(s, 1, [{ op: 'set', id: 'td_2', status: 'completed' }])).toMatchObject({
      refused: { code: 'dependency_unfinished' },
    });
    expect(applyTodoUpdate(s, 1, [{ op: 'set', id: 'td_1', dependsOn: ['td_2'] }])).toMatchObject({
      refused: { code: 'dependency_cycle' },
    });
    expect(applyTodoUpdate(s, 1, [{ op: 'set', id: 'td_2', dependsOn: ['td_9'] }])).toMatchObject({
      refused: { code: 'unknown_todo' },
    });
    const done = apply(
      s,
      [{ op: 'set', id: 'td_1', status: 'completed' }],
      [{ op: 'set', id: 'td_2', status: 'completed' }],
    );
    expect(done.items.every((i) => i.status === 'completed')).toBe(true);
    expect(applyTodoUpdate(done, 3, [{ op: 'set', id: 'td_1', status: 'pending' }])).toMatchObject({
      refused: { code: 'terminal_todo' },
    });
  });
  it('blocked needs a reason, and the reason goes when it is unblocked', () => {
    const s = apply(empty, [{ op: 'add', title: 'deploy' }]);
    expect(applyTodoUpdate(s, 1, [{ op: 'set', id: 'td_1', status: 'blocked' }])).toMatchObject({
      refused: { code: 'blocked_needs_reason' },
    });
    const blocked = apply(s, [{ op: 'set', id: 'td_1', status: 'blocked', blockedBy: 'waiting for the release tag' }]);
    expect(blocked.items[0]!.blockedBy).toBe('waiting for the release tag');
    expect(apply(blocked, [{ op: 'set', id: 'td_1', status: 'pending' }]).items[0]!.blockedBy).toBeUndefined();
    expect(applyTodoUpdate(s, 1, [])).toMatchObject({ refused: { code: 'empty_batch' } });
  });
  it('fails closed on stored state with a status this build does not know', () => {
    const corrupt = { ...empty, items: [{ id: 'td_1', title: 'a', status: 'cancelled', dependsOn: [] }] };
    expect(() => applyTodoUpdate(corrupt as unknown as TodoState, 0, [{ op: 'add', title: 'b' }])).toThrow(
      TodoCorruption,
    );
  });
});
