/**
 * `recordCouncil` (issue 12 item 5): the one writer of a Council's row in
 * the `councils` table, called by the `council` workflow at every change
 * (start, each seat settlement, synthesis, end). An upsert keyed by the run
 * id; the synthesis text, written by `synthesizeCouncil`, is kept.
 */
import type { RecordCouncilInput } from '../../core/council/contract.js';
import { councilWorkflowId } from '../../core/council/contract.js';
import type { ProjectionStore } from '../projection/types.js';

/** Builds the activity. */
export function createRecordCouncil(store: ProjectionStore) {
  return async function recordCouncil(input: RecordCouncilInput): Promise<void> {
    const existing = await store.getCouncil(input.runId);
    await store.upsertCouncil({
      id: input.runId,
      workflowId: councilWorkflowId(input.runId),
      workspace: input.workspace,
      question: input.question,
      preset: input.preset,
      diffRange: input.diffRange ?? null,
      status: input.status,
      errorCode: input.errorCode ?? null,
      seats: input.seats,
      synthesis: existing?.synthesis ?? null,
      parentSessionId: input.parentSessionId ?? null,
      startedAtMs: input.startedAtMs,
      seatDeadlineMs: input.seatDeadlineMs,
      deadlineMs: input.deadlineMs,
      updatedAtMs: input.updatedAtMs,
    });
  };
}
