import { describe, expect, it } from 'vitest';
import {
  applyPlanUpdate,
  MAX_PLAN_DEPTH,
  PlanCorruption,
  planFinished,
  type PlanState,
  type PlanUpdate,
} from '../../core/work/plan.js';

/** Applies updates in order, failing the test on a refusal. */
function apply(state: PlanState | null, ...updates: PlanUpdate[]): PlanState {
  let s = state;
  for (const u of updates) {
    const r = applyPlanUpdate(s, u);
    if ('refused' in r) throw new Error(`refused: ${r.refused.code}: ${r.refused.message}`);
    s = r.state;
  }
  return s!;
}

const two = [{ title: 'reproduce' }, { title: 'fix' }];

describe('plan_update (GP3, GP18–GP20)', () => {
  it('create gives host step ids and revision 1; every later action needs the current revision', () => {
    const s = apply(null, { action: 'create', steps: two });
    expect(s).toEqual({
      revision: 1,
      nextStep: 3,
      levels: [
        {
          steps: [
            { id: 'st_1', title: 'reproduce', status: 'pending' },
            { id: 'st_2', title: 'fix', status: 'pending' },
          ],
        },
      ],
    });
    expect(applyPlanUpdate(s, { action: 'append', expected_revision: 0, steps: [{ title: 'x' }] })).toEqual({
      refused: { code: 'stale_revision', message: expect.stringContaining('revision 1, not 0') },
    });
    expect(applyPlanUpdate(s, { action: 'create', steps: two })).toMatchObject({
      refused: { code: 'revision_required' },
    });
    const replaced = apply(s, { action: 'create', expected_revision: 1, steps: [{ title: 'a' }, { title: 'b' }] });
    expect(replaced.levels[0]!.steps.map((x) => x.id)).toEqual(['st_3', 'st_4']); // ids are never reused
  });

  it('refuses a one-step Plan, an action on no Plan, and leaves the state untouched on refusal', () => {
    expect(applyPlanUpdate(null, { action: 'create', steps: [{ title: 'only' }] })).toMatchObject({
      refused: { code: 'one_step_plan' },
    });
    expect(applyPlanUpdate(null, { action: 'pop', expected_revision: 0 })).toMatchObject({
      refused: { code: 'no_plan' },
    });
    const s = apply(null, { action: 'create', steps: two });
    const before = JSON.stringify(s);
    applyPlanUpdate(s, { action: 'patch', expected_revision: 1, steps: [{ id: 'st_9', status: 'completed' }] });
    expect(JSON.stringify(s)).toBe(before);
  });

  it('patch changes only the named steps; completed and superseded never move again', () => {
    const s = apply(
      null,
      { action: 'create', steps: two },
      { action: 'patch', expected_revision: 1, steps: [{ id: 'st_1', status: 'completed' }] },
    );
    expect(s.levels[0]!.steps.map((x) => x.status)).toEqual(['completed', 'pending']);
    expect(
      applyPlanUpdate(s, { action: 'patch', expected_revision: 2, steps: [{ id: 'st_1', status: 'in_progress' }] }),
    ).toMatchObject({ refused: { code: 'terminal_step' } });
    expect(
      applyPlanUpdate(s, { action: 'patch', expected_revision: 2, steps: [{ id: 'st_7', title: 'x' }] }),
    ).toMatchObject({ refused: { code: 'unknown_step' } });
    const done = apply(s, { action: 'patch', expected_revision: 2, steps: [{ id: 'st_2', status: 'superseded' }] });
    expect(planFinished(done)).toBe(true);
    expect(planFinished(s)).toBe(false);
  });

  it('push opens a focused child level and pop restores exactly the parent', () => {
    const root = apply(null, { action: 'create', steps: two });
    const child = apply(root, { action: 'push', expected_revision: 1, steps: [{ title: 'bisect' }] });
    expect(child.levels).toHaveLength(2);
    expect(child.levels[1]!.steps[0]!.id).toBe('st_3');
    const back = apply(child, { action: 'pop', expected_revision: 2 });
    expect(back.levels).toEqual(root.levels);
    expect(back.revision).toBe(3);
    expect(applyPlanUpdate(back, { action: 'pop', expected_revision: 3 })).toMatchObject({
      refused: { code: 'nothing_to_pop' },
    });
    let deep = back;
    for (let i = 1; i < MAX_PLAN_DEPTH; i++)
      deep = apply(deep, { action: 'push', expected_revision: deep.revision, steps: [{ title: `l${i}` }] });
    expect(
      applyPlanUpdate(deep, { action: 'push', expected_revision: deep.revision, steps: [{ title: 'too deep' }] }),
    ).toMatchObject({
      refused: { code: 'stack_too_deep' },
    });
  });

  it('stored state with a missing, unknown or legacy cancelled status fails closed (GP20, GL30)', () => {
    for (const status of ['cancelled', 'blocked', undefined]) {
      const corrupt = {
        revision: 1,
        nextStep: 2,
        levels: [{ steps: [{ id: 'st_1', title: 'x', status }] }],
      } as unknown as PlanState;
      expect(() => applyPlanUpdate(corrupt, { action: 'pop', expected_revision: 1 })).toThrow(PlanCorruption);
      expect(() => planFinished(corrupt)).toThrow(/corrupt/);
    }
  });
});
