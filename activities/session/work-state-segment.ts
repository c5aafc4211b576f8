import type { SystemSegment } from '../../core/messages.js';
import { decodePlan, decodeTodo } from '../../core/work/codec.js';
import { PlanCorruption } from '../../core/work/plan.js';
import { TodoCorruption } from '../../core/work/todo.js';
import { renderWorkState, WORK_STATE_SEGMENT_ID, type WorkPart } from '../../core/work/work-state.js';
import type { ProjectionStore } from '../projection/types.js';
import { readWorkState } from '../projection/work-state.js';

/**
 * The `runtime.work_state` system segment of one model request (GP6, GP32):
 * rendered from the work state committed now, so every request — the next
 * one after an update included — carries the current Plan and Todo list,
 * never a copy from earlier tool results. Null when the session has neither
 * (the segment is then absent). A part this build cannot read is rendered
 * as corrupt rather than failing the request.
 */
export async function workStateSegment(store: ProjectionStore, sessionId: string): Promise<SystemSegment | null> {
  const text = await workStateText(store, sessionId);
  return text === null ? null : { segment: WORK_STATE_SEGMENT_ID, text };
}

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
