import { randomBytes } from 'node:crypto';
import type { Client, WorkflowHandle } from '@temporalio/client';
import { TypedSearchAttributes } from '@temporalio/common';
import { type CouncilWorkflowInput, councilSummary, councilWorkflowId } from '../core/council/contract.js';
import { ZunoCouncilStatus, ZunoKind } from '../core/search-attributes.js';
import { markdownLiteral } from '../core/ui-text.js';

/** A new Council run id: `cr_` + time (base36) + 8 random hex chars; sortable by creation time. */
export function newCouncilRunId(): string {
  return `cr_${Date.now().toString(36)}${randomBytes(4).toString('hex')}`;
}

/**
 * Starts a `council/<runId>` workflow from a client (`zuno council run`, tests):
 * `ZunoKind=council`, `ZunoCouncilStatus=preparing`, summary
 * `council: review <range>` / `council: <question>`. Returns its handle.
 * @throws WorkflowExecutionAlreadyStartedError for a run id in use; Temporal connection errors.
 */
export async function startCouncil(
  client: Client,
  taskQueue: string,
  input: CouncilWorkflowInput,
): Promise<WorkflowHandle> {
  return client.workflow.start('councilWorkflow', {
    workflowId: councilWorkflowId(input.runId),
    taskQueue,
    args: [input],
    staticSummary: markdownLiteral(councilSummary(input)),
    staticDetails: markdownLiteral(
      `preset ${input.preset} · model ${input.base.provider.id}/${input.base.model} · workspace ${input.base.workspace}`,
    ),
    typedSearchAttributes: new TypedSearchAttributes([
      { key: ZunoKind, value: 'council' },
      { key: ZunoCouncilStatus, value: 'preparing' },
    ]),
  });
}
