import type { Client } from '@temporalio/client';
import {
  GOAL_QUERY,
  GOAL_REQUEST_INPUT_UPDATE,
  GOAL_UPDATE_UPDATE,
  type GoalSnapshot,
  type GoalUpdateRequest,
  type GoalUpdateResult,
  goalWorkflowId,
} from '../../core/goal/contract.js';
import type { GoalPort } from '../infra/ports.js';
import type { ProjectionStore } from '../projection/types.js';
import { findReceipts } from './receipt-lookup.js';

/**
 * Builds the {@link GoalPort} of one tool call (`at.workspace`: the session's
 * workspace, where settled background tasks — remote observers — keep their
 * receipts). Updates carry the id
 * `<sessionId>:<rowId>/<callId>`: a tool activity that runs twice sends the same
 * Update, and the Goal returns its first result (Temporal deduplicates
 * Update ids; the Goal also remembers recent ones across continue-as-new).
 */
export function goalPort(
  store: ProjectionStore,
  client: Client,
  at: { sessionId: string; rowId: string; callId: string; goalId: string; turn: number; workspace?: string },
): GoalPort {
  const handle = client.workflow.getHandle(goalWorkflowId(at.goalId));
  // The row id (tc_<turn>_<step>_<position>) is unique in the session; the provider's call id is not (a
  // provider may number its calls per response). A redone step reuses row ids, so both together.
  const updateId = `${at.sessionId}:${at.rowId}/${at.callId}`;
  return {
    goalId: at.goalId,
    get: () => handle.query<GoalSnapshot>(GOAL_QUERY),
    async update(req) {
      const ids = [...new Set((req.settle ?? []).flatMap((s) => (s.receiptId ? [s.receiptId] : [])))];
      const receipts = await findReceipts(store, at.sessionId, ids, at.workspace);
      const full: GoalUpdateRequest = { ...req, receipts, turn: at.turn };
      return handle.executeUpdate<GoalUpdateResult, [GoalUpdateRequest]>(GOAL_UPDATE_UPDATE, {
        args: [full],
        updateId,
      });
    },
    requestInput(expectedRevision, question) {
      return handle.executeUpdate(GOAL_REQUEST_INPUT_UPDATE, {
        args: [{ expectedRevision, question, callId: at.callId }],
        updateId,
      });
    },
  };
}
