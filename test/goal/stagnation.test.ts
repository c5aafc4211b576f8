import { describe, expect, it } from 'vitest';
import { FRESH_STAGNATION, observeStep, type StepObservation } from '../../core/work/stagnation.js';

/** The stagnant flags of a sequence of observations. */
function run(obs: StepObservation[]): boolean[] {
  let s = FRESH_STAGNATION;
  return obs.map((o) => {
    const r = observeStep(s, o);
    s = r.state;
    return r.stagnant;
  });
}

const read = (tool = 'plan_get', fingerprint = 'f1'): StepObservation => ({ kind: 'read', tool, fingerprint });

describe('stagnant-loop guard (GP22)', () => {
  it('the third identical successful read is stagnant, then the count starts over', () => {
    expect(run([read(), read(), read(), read()])).toEqual([false, false, true, false]);
  });
  it('a different tool, a changed state or any other step in between resets the count', () => {
    expect(run([read(), read(), read('todo_get'), read(), read()])).toEqual([false, false, false, false, false]);
    expect(run([read(), read(), read('plan_get', 'f2'), read('plan_get', 'f2')])).toEqual([false, false, false, false]);
    expect(run([read(), read(), { kind: 'reset' }, read(), read()])).toEqual([false, false, false, false, false]);
  });
});
