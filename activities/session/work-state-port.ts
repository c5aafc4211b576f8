import type { ToolResult } from '../../core/tools/types.js';
import type { ProjectionStore } from '../projection/types.js';
import { applyWorkUpdateOnce, readWorkState } from '../projection/work-state.js';
import type { WorkStatePort } from '../infra/ports.js';

/** Which tool call a port serves. */
export interface WorkCall {
  sessionId: string;
  /** The tool-call row id (`tc_{turn}_{step}_{position}`). */
  rowId: string;
  /** The provider's call id. */
  callId: string;
  tool: string;
}

/**
 * The work-state port of one tool call (GP15–GP32), on the projection: reads
 * see the committed row; `updateOnce` is keyed by `<rowId>/<callId>`, so a
 * second run of the same call — a retried or re-delivered activity —
 * returns the recorded result instead of applying again, while a step whose
 * model call was redone (new provider call ids on the same positions) is a
 * new call.
 */
export function workStatePort(store: ProjectionStore, call: WorkCall): WorkStatePort {
  const key = { sessionId: call.sessionId, id: `${call.rowId}/${call.callId}`, tool: call.tool };
  return {
    read: () => readWorkState(store, call.sessionId),
    updateOnce: async (decide) => (await applyWorkUpdateOnce<ToolResult>(store, key, decide, Date.now())).result,
  };
}
