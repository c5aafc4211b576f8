import type { SystemSegment } from '../../core/messages.js';
import { WORK_STATE_SEGMENT_ID } from '../../core/work/work-state.js';
import type { ProjectionStore } from '../projection/types.js';
import { workStateText } from '../projection/work-state-text.js';

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
