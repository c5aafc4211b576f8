/**
 * A session's committed work state (Plan and Todo list, GP6) as the text the
 * model's `runtime.work_state` segment and `zuno goal show` print: read from
 * the projection, rendered by core/work/work-state.ts.
 */
import { decodePlan, decodeTodo } from '../../core/work/codec.js';
import { PlanCorruption } from '../../core/work/plan.js';
import { TodoCorruption } from '../../core/work/todo.js';
import { renderWorkState, type WorkPart } from '../../core/work/work-state.js';
import type { ProjectionStore } from './types.js';
import { readWorkState } from './work-state.js';

/** The session's committed Plan and Todo list rendered with the `runtime.work_state` caps; null when it has neither. */
export async function workStateText(store: ProjectionStore, sessionId: string): Promise<string | null> {
  const row = await readWorkState(store, sessionId);
  return renderWorkState({ plan: part(() => decodePlan(row)), todo: part(() => decodeTodo(row)) });
}

function part<S>(decode: () => S | null): WorkPart<S> | null {
  try {
    const state = decode();
    return state === null ? null : { state };
  } catch (err) {
    if (err instanceof PlanCorruption || err instanceof TodoCorruption) return { corrupt: err.message };
    throw err;
  }
}
