import type { ToolActivityResult } from '../../core/session-contract.js';
import type { ProjectionStore } from '../projection/types.js';
import { recordCompleted, type ToolCompletion } from '../session/tool-records.js';

/**
 * Records the result of a call the session workflow ran itself (a
 * delegation: `task`, `council_run`) on its tool-call row, through the one
 * writer of tool-call rows (tool-records.ts: row, result part and
 * `tool.completed` in one transaction; a second run keeps the first
 * record; a call the workflow already settled keeps that record and this
 * result is logged late). Returns what a tool activity would return.
 * @throws Error when the row does not exist (the call was never planned).
 */
export async function recordDelegatedCall(
  store: ProjectionStore,
  sessionId: string,
  rowId: string,
  done: Omit<ToolCompletion, 'attempt'> & { attempt?: number },
): Promise<ToolActivityResult> {
  const row = await store.getToolCall(sessionId, rowId);
  if (!row) throw new Error(`tool call ${rowId} of session ${sessionId} is not recorded`);
  const identity = {
    id: row.id,
    sessionId,
    turn: row.turn,
    step: row.step,
    position: row.position,
    callId: row.callId,
    tool: row.tool,
    argsJson: row.argsJson,
  };
  const recorded = await recordCompleted(store, identity, { attempt: 1, ...done }, { abandon: false });
  if (recorded.kind === 'late') return { outcome: recorded.stands, outputBytes: 0, late: true };
  const stands = recorded.kind === 'written' ? recorded.outcome : done.outcome;
  const failed = done.facts?.failed === true;
  return {
    outcome: stands,
    outputBytes: recorded.kind === 'written' ? recorded.outputBytes : 0,
    status: stands === 'error' || stands === 'uncertain' || failed ? 'failed' : 'ok',
    ...(done.errorCode ? { errorCode: done.errorCode } : {}),
    ...(done.facts && Object.keys(done.facts).length > 0 ? { facts: done.facts } : {}),
  };
}
