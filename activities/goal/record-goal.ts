import { EV } from '../../core/events.js';
import type { RecordGoalInput } from '../../core/goal/activities.js';
import { goalWorkflowId } from '../../core/goal/contract.js';
import type { ProjectionStore } from '../projection/types.js';
import { goalReason } from '../../core/goal/transitions.js';
import { keepTransitions } from '../../core/goal/transitions.js';

/**
 * Builds the `recordGoal` activity: the Goal's projection row and, in its
 * session's event log, one `goal.status` event per revision (plus the GL17
 * `notice` when the change was a budget stop), all in one transaction. The
 * row keeps the audit trail (issue 26 item 7): the transitions the workflow
 * hands over are appended to those the row holds, the newest 200 kept.
 * Idempotent: event ids are `goal:<goalId>:<revision>`; the row is an upsert;
 * a transition already kept (same revision and status) is not added again.
 */
export function createRecordGoal(store: ProjectionStore) {
  return async function recordGoal(input: RecordGoalInput): Promise<void> {
    const s = input.snapshot;
    const st = s.state;
    const message = 'message' in st ? st.message : null;
    await store.transaction(s.sessionId, async (tx) => {
      const kept = (await tx.getGoal(s.goalId))?.snapshot.transitions ?? [];
      const transitions = keepTransitions(kept, input.transitions ?? []);
      await tx.upsertGoal({
        id: s.goalId,
        sessionId: s.sessionId,
        workflowId: goalWorkflowId(s.goalId),
        snapshot: transitions.length > 0 ? { ...s, transitions } : s,
      });
      await tx.appendEvent({
        id: `goal:${s.goalId}:${s.revision}`,
        sessionId: s.sessionId,
        type: EV.goalStatus,
        data: {
          goalId: s.goalId,
          revision: s.revision,
          status: st.status,
          reason: goalReason(s),
          message,
          turns: s.spent.turns,
        },
        atMs: s.updatedAtMs,
      });
      if (input.notice) {
        await tx.appendEvent({
          id: `goal:${s.goalId}:${s.revision}:notice`,
          sessionId: s.sessionId,
          type: EV.notice,
          data: { ...input.notice, goalId: s.goalId },
          atMs: s.updatedAtMs,
        });
      }
    });
  };
}
