import type { TurnWorkFacts } from '../../core/session/activities.js';
import { decodePlan, decodeTodo } from '../../core/work/codec.js';
import { planFinished } from '../../core/work/plan.js';
import { readWorkState } from '../projection/work-state.js';
import type { ProjectionStore } from '../projection/types.js';
import { workStateFingerprint } from '../tools/work-state.js';

/** Todo statuses that are done with (core/work/todo.ts: terminal). */
const TODO_DONE = new Set(['completed', 'dropped']);

/**
 * The work-state facts a Goal decides on at a turn's end (GL23, GL26):
 * the fingerprint of the committed Plan/Todo state (the same hash the
 * work-state reads report, GP22) and whether any Plan step or Todo is not
 * terminal. A corrupt stored state counts as unfinished work (fail closed:
 * it never lets a Goal look done).
 */
export async function turnWorkFacts(store: ProjectionStore, sessionId: string): Promise<TurnWorkFacts> {
  const cols = await readWorkState(store, sessionId);
  const fingerprint = workStateFingerprint(cols);
  try {
    const plan = decodePlan(cols);
    const todo = decodeTodo(cols);
    const planOpen = plan !== null && !planFinished(plan);
    const todoOpen = todo !== null && todo.items.some((t) => !TODO_DONE.has(t.status));
    return { fingerprint, remains: planOpen || todoOpen };
  } catch {
    return { fingerprint, remains: true };
  }
}
