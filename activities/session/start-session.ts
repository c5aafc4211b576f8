/**
 * Starting a session workflow with its first input (update-with-start, SE1):
 * what `zuno run`, `zuno goal start` and a watched Goal's `startGoalSession`
 * activity share (client/session-start.ts re-exports it).
 */
import { randomBytes } from 'node:crypto';
import {
  type Client,
  WithStartWorkflowOperation,
  type WorkflowHandle,
  WorkflowUpdateFailedError,
} from '@temporalio/client';
import { type Workflow, TypedSearchAttributes } from '@temporalio/common';
import { inertLine } from '../../core/terminal-text.js';
import { markdownLiteral } from '../../core/ui-text.js';
import {
  DEFAULT_AGENT,
  ZunoAgent,
  ZunoKind,
  ZunoModel,
  ZunoSessionId,
  ZunoStatus,
} from '../../core/search-attributes.js';
import { sessionWorkflowId } from '../../core/ids.js';
import type { AdmissionReceipt } from '../../core/session/inbox.js';
import type { SubmitInputRequest } from '../../core/session/updates.js';
import { SUBMIT_INPUT_UPDATE } from '../../core/session/updates.js';
import type { SessionMeta, SessionWorkflowInput, CarriedState } from '../../core/session/meta.js';

/**
 * Starts the session workflow `session/<id>` and admits the first input in
 * one call (update-with-start), returning the admission receipt (SE1) and a
 * handle. With `opts.reopen` it starts a new run of a session whose earlier
 * run closed (same workflow id: Temporal's default id-reuse policy allows a
 * new run once the last one closed), carrying the state read from the projection. The workflow carries the search attributes `ZunoKind=session`,
 * `ZunoSessionId`, `ZunoModel` and a readable static summary.
 * With `opts.attach` a running workflow of that id is used rather than
 * refused (conflict policy USE_EXISTING): with a fixed `clientMessageId` the
 * call may be repeated and admits the input once (a watched Goal's
 * `startGoalSession` activity, retried after a lost outcome).
 * @throws WorkflowUpdateFailedError when the update validator rejects the input (e.g. empty text).
 */
export async function startSessionWorkflow(
  client: Client,
  taskQueue: string,
  meta: SessionMeta,
  first: SubmitInputRequest,
  opts: { exitWhenIdle: boolean; reopen?: CarriedState; attach?: boolean },
): Promise<{ receipt: AdmissionReceipt; workflowId: string; handle: WorkflowHandle }> {
  const workflowId = sessionWorkflowId(meta.sessionId);
  const input: SessionWorkflowInput = {
    meta,
    exitWhenIdle: opts.exitWhenIdle,
    ...(opts.reopen ? { carried: opts.reopen, reopened: true } : {}),
  };
  const startOp = new WithStartWorkflowOperation('sessionWorkflow', {
    workflowId,
    taskQueue,
    args: [input],
    workflowIdConflictPolicy: opts.attach ? 'USE_EXISTING' : 'FAIL',
    // A reopened run names the turn it was opened for: the UI lists each run of the session separately.
    staticSummary: opts.reopen
      ? `session: ${markdownLiteral(meta.title)} — turn ${opts.reopen.nextTurn + 1}: ${markdownLiteral(titleOf(first.text))}`
      : `session: ${markdownLiteral(meta.title)}`,
    staticDetails: markdownLiteral(`model ${meta.provider.id}/${meta.model} · workspace ${meta.workspace}`),
    typedSearchAttributes: new TypedSearchAttributes([
      { key: ZunoKind, value: 'session' },
      { key: ZunoSessionId, value: meta.sessionId },
      { key: ZunoModel, value: `${meta.provider.id}/${meta.model}` },
      { key: ZunoAgent, value: meta.agent ?? DEFAULT_AGENT },
      { key: ZunoStatus, value: 'running' },
    ]),
  });
  let receipt: AdmissionReceipt;
  try {
    receipt = await client.workflow.executeUpdateWithStart<Workflow, AdmissionReceipt, [SubmitInputRequest]>(
      SUBMIT_INPUT_UPDATE,
      { args: [withClientMessageId(first)], startWorkflowOperation: startOp },
    );
  } catch (err) {
    // Update-with-start starts the workflow even when the validator rejects the
    // first input; a session with no admitted input must not linger.
    if (err instanceof WorkflowUpdateFailedError) {
      await client.workflow
        .getHandle(workflowId)
        .terminate('the first input was rejected')
        .catch(() => undefined);
    }
    throw err;
  }
  const handle = await startOp.workflowHandle();
  return { receipt, workflowId, handle };
}

/**
 * SE2: every input a Zuno client sends carries a client message id, so a
 * resend (the client's own retry) is answered with the original receipt;
 * one the caller gave is kept.
 */
export function withClientMessageId(req: SubmitInputRequest): SubmitInputRequest {
  return req.clientMessageId !== undefined ? req : { ...req, clientMessageId: `cmi_${randomBytes(8).toString('hex')}` };
}

/** Shortens a prompt to a one-line, inert title of at most 80 characters (core/terminal-text.ts `inertLine`). */
export function titleOf(prompt: string): string {
  return inertLine(prompt, 80);
}
