import { CancellationScope, isCancellation } from '@temporalio/workflow';
import type { CouncilResult, CouncilWorkflowInput } from '../core/council/contract.js';
import { CouncilMachine } from './council-machine.js';

/**
 * The `council` workflow, id `council/<runId>` (DC5, DC23–DC27; issue 12
 * item 5; docs/council.md). Thin: {@link CouncilMachine} runs the
 * `balanced-review` preset — three reviewer seats as child sessions sharing
 * one 540 000 ms deadline, then the synthesis inside the 60 000 ms reserve.
 * Whoever starts it sets `ZunoKind=council` (client/council-start.ts, or
 * workflows/council-start.ts from a session); it upserts `ZunoCouncilStatus`.
 * Completes with the {@link CouncilResult} on success; fails with a typed,
 * non-retryable ApplicationFailure (`council_quorum_missed`,
 * `council_synthesis_failed`, `council_diff_invalid`; details = [CouncilResult]).
 * A cancelled Council records its row `failed` / `cancelled`, then ends Cancelled.
 */
export async function councilWorkflow(input: CouncilWorkflowInput): Promise<CouncilResult> {
  const machine = new CouncilMachine(input);
  try {
    return await machine.run();
  } catch (err) {
    // Cancelled (Ctrl-C, the parent closed): the row says so before the workflow ends Cancelled.
    if (isCancellation(err)) await CancellationScope.nonCancellable(() => machine.recordCancelled());
    throw err;
  }
}
