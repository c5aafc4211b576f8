import { ParentClosePolicy, startChild, workflowInfo, type ChildWorkflowHandle } from '@temporalio/workflow';
import { type CouncilResult, type CouncilWorkflowInput, councilWorkflowId } from '../core/council/contract.js';
import { ZunoCouncilStatus, ZunoKind, ZunoParentSession, ZunoRootSession } from '../core/search-attributes.js';
import { markdownLiteral } from '../core/ui-text.js';

/** The council workflow's type name (started by name: a session's bundle need not import the council's code path). */
const COUNCIL_WORKFLOW = 'councilWorkflow';

/**
 * Starts a `council/<runId>` child workflow from a session workflow (issue
 * 12 item 5: the session's `council_run` call, foreground): on the caller's
 * task queue, `ZunoKind=council`, `ZunoCouncilStatus=preparing`, and for a
 * Council with a parent `ZunoParentSession` / `ZunoRootSession`; static
 * summary `summary` (e.g. core/council/contract.ts `councilSummary`); `REQUEST_CANCEL` when the
 * parent closes. Resolves to the handle once the child started; its
 * `result()` resolves to the {@link CouncilResult} or rejects with a
 * ChildWorkflowFailure whose cause is the Council's typed ApplicationFailure
 * (`council_quorum_missed`…, details = [CouncilResult]). Deterministic.
 */
export async function startCouncilChild(
  input: CouncilWorkflowInput,
  summary: string,
): Promise<ChildWorkflowHandle<(i: CouncilWorkflowInput) => Promise<CouncilResult>>> {
  return startChild<(i: CouncilWorkflowInput) => Promise<CouncilResult>>(COUNCIL_WORKFLOW, {
    workflowId: councilWorkflowId(input.runId),
    taskQueue: workflowInfo().taskQueue,
    args: [input],
    parentClosePolicy: ParentClosePolicy.REQUEST_CANCEL,
    staticSummary: markdownLiteral(summary),
    staticDetails: markdownLiteral(
      `preset ${input.preset} · model ${input.base.provider.id}/${input.base.model} · workspace ${input.base.workspace}`,
    ),
    typedSearchAttributes: [
      { key: ZunoKind, value: 'council' },
      { key: ZunoCouncilStatus, value: 'preparing' },
      ...(input.parent
        ? [
            { key: ZunoParentSession, value: input.parent.sessionId },
            { key: ZunoRootSession, value: input.parent.rootSessionId },
          ]
        : []),
    ],
  });
}
