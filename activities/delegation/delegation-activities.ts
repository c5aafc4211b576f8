import { Context } from '@temporalio/activity';
import type {
  DelegationActivities,
  OpenDelegationInput,
  SettleDelegationInput,
  SettleDelegationResult,
} from '../../core/delegation/contract.js';
import { taskReport } from '../../core/delegation/report.js';
import { EV } from '../../core/events.js';
import { sessionWorkflowId } from '../../core/ids.js';
import type { ToolActivityResult } from '../../core/session/tool-activity.js';
import type { ProjectionStore, ProjectionWrites } from '../projection/types.js';
import { childEvidence } from './child-evidence.js';
import { recordDelegatedCall, recordDelegatedStart } from './record-call.js';

/** Longest report admitted to a parent's inbox (UTF-16 units); the job row and `job status` hold it whole. */
export const INBOX_REPORT_MAX = 8_000;

/**
 * Builds the delegation activities (DC1–DC4, DC15–DC17):
 * - `openDelegation`, before the child starts: the child's session row
 *   (agent, parent, root, depth — listed at once), the `delegations` row
 *   (`running`) and `delegation.started`, in one transaction of the
 *   parent; for a background delegation also the call's own result (the job
 *   id), returned as the call's activity result. Idempotent.
 * - `settleDelegation`, once the parent's workflow saw the child end: the
 *   report (core/delegation/report.ts) from the child's final answer and
 *   its evidence, the `delegations` row settled with metadata schema 3,
 *   `delegation.settled`; for a foreground task the call's result. Returns
 *   the call result and the report the workflow admits to the inbox of a
 *   background job's parent. Idempotent: a second run rebuilds the same
 *   report and keeps the first records.
 */
export function createDelegationActivities(store: ProjectionStore): DelegationActivities {
  return {
    async recordCallStarted(input) {
      await recordDelegatedStart(store, input.sessionId, input.rowId, Context.current().info.attempt, Date.now());
    },
    openDelegation: (input) => openDelegation(store, input),
    settleDelegation: (input) => settleDelegation(store, input),
  };
}

async function openDelegation(store: ProjectionStore, input: OpenDelegationInput): Promise<ToolActivityResult | null> {
  const now = Date.now();
  const existing = await store.getDelegation(input.parentSessionId, input.rowId);
  if (!existing)
    await recordDelegatedStart(store, input.parentSessionId, input.rowId, Context.current().info.attempt, now);
  await store.transaction(input.parentSessionId, async (tx) => {
    const child = await tx.getSession(input.childSessionId);
    await tx.upsertSession({
      id: input.childSessionId,
      workflowId: sessionWorkflowId(input.childSessionId),
      workspace: input.child.workspace,
      provider: input.child.provider.id,
      model: input.child.model,
      status: child?.status ?? 'running',
      title: input.child.title,
      host: input.child.route?.host ?? null,
      taskQueue: input.child.route?.taskQueue ?? null,
      agent: input.agent,
      parentSessionId: input.parentSessionId,
      rootSessionId: input.rootSessionId,
      depth: input.depth,
      createdAtMs: child?.createdAtMs ?? now,
      updatedAtMs: now,
    });
    if (existing) return;
    await recordOpened(tx, input, now);
  });
  if (!input.jobId) return null;
  return recordDelegatedCall(store, input.parentSessionId, input.rowId, {
    outcome: 'ok',
    output: [
      `Started background job ${input.jobId}: ${input.agent} in child session ${input.childSessionId}.`,
      'Its report arrives as a message of its own when it settles (once). Go on with the independent work you',
      'split off; use job status / job wait / job cancel with this job id.',
    ].join(' '),
    errorCode: null,
    data: { jobId: input.jobId, childSessionId: input.childSessionId, agent: input.agent },
    facts: {
      child: { sessionId: input.childSessionId, agent: input.agent, status: 'running', jobId: input.jobId },
    },
    attempt: Context.current().info.attempt,
    startedAtMs: input.startedAtMs,
    endedAtMs: now,
  });
}

/** The new `delegations` row (running) and `delegation.started`, inside the parent's transaction. */
async function recordOpened(tx: ProjectionWrites, input: OpenDelegationInput, now: number): Promise<void> {
  const mode = modeOf(input);
  await tx.upsertDelegation({
    parentSessionId: input.parentSessionId,
    rowId: input.rowId,
    callId: input.callId,
    jobId: input.jobId ?? null,
    childSessionId: input.childSessionId,
    rootSessionId: input.rootSessionId,
    agent: input.agent,
    depth: input.depth,
    mode,
    objective: input.objective,
    status: 'running',
    errorCode: null,
    error: null,
    report: null,
    metadata: null,
    startedAtMs: input.startedAtMs,
    settledAtMs: null,
  });
  await tx.appendEvent({
    id: `${input.rowId}:delegation:started`,
    sessionId: input.parentSessionId,
    type: EV.delegationStarted,
    data: {
      ...delegationEventBase(input),
      depth: input.depth,
      objective: input.objective,
    },
    atMs: now,
  });
}

async function settleDelegation(store: ProjectionStore, input: SettleDelegationInput): Promise<SettleDelegationResult> {
  const now = Date.now();
  const row = await store.getDelegation(input.parentSessionId, input.rowId);
  const child = await store.getSession(input.childSessionId);
  const evidence = await childEvidence(store, input.childSessionId, row?.startedAtMs ?? 0);
  const who = {
    agent: input.agent,
    childSessionId: input.childSessionId,
    ...(input.jobId ? { jobId: input.jobId } : {}),
  };
  const report = taskReport(who, input.end, child?.finalText ?? null, evidence);
  await store.transaction(input.parentSessionId, (tx) => recordSettled(tx, input, report, now));
  const stored = (await store.getDelegation(input.parentSessionId, input.rowId))?.report ?? report.text;
  const failed = input.end.status !== 'completed';
  const call: ToolActivityResult = input.jobId
    ? { outcome: 'ok', outputBytes: 0 }
    : await recordDelegatedCall(store, input.parentSessionId, input.rowId, {
        outcome: input.end.status === 'uncertain' ? 'uncertain' : failed ? 'error' : 'ok',
        output: stored,
        errorCode: failed ? `task_${input.end.status}` : null,
        data: { delegation: report.metadata },
        attempt: Context.current().info.attempt,
        startedAtMs: row?.startedAtMs ?? now,
        endedAtMs: now,
        facts: {
          child: { sessionId: input.childSessionId, agent: input.agent, status: input.end.status },
          ...(failed ? { failed: true } : {}),
        },
      });
  const inbox =
    stored.length > INBOX_REPORT_MAX
      ? `${stored.slice(0, INBOX_REPORT_MAX)}\n… (cut; job status ${input.jobId ?? ''} shows the whole report)`
      : stored;
  return { call, report: inbox };
}

/** The `delegations` row settled (once: a settled row is kept) and `delegation.settled`, inside the parent's transaction. */
async function recordSettled(
  tx: ProjectionWrites,
  input: SettleDelegationInput,
  report: ReturnType<typeof taskReport>,
  now: number,
): Promise<void> {
  const now2 = await tx.getDelegation(input.parentSessionId, input.rowId);
  if (!now2 || now2.settledAtMs !== null) return;
  await tx.upsertDelegation({
    ...now2,
    status: input.end.status,
    errorCode: input.end.code ?? null,
    error: input.end.message ?? null,
    report: report.text,
    metadata: report.metadata as unknown as Record<string, unknown>,
    settledAtMs: input.settledAtMs,
  });
  await tx.appendEvent({
    id: `${input.rowId}:delegation:settled`,
    sessionId: input.parentSessionId,
    type: EV.delegationSettled,
    data: {
      ...delegationEventBase(input),
      status: input.end.status,
      ...(input.end.code ? { errorCode: input.end.code } : {}),
    },
    atMs: now,
  });
}

/** A delegation's mode: background when it has a job id. */
function modeOf(input: { jobId?: string | null }): 'background' | 'foreground' {
  return input.jobId ? 'background' : 'foreground';
}

/** The fields `delegation.started` and `delegation.settled` share: the call, the child, its role and mode. */
function delegationEventBase(input: OpenDelegationInput | SettleDelegationInput) {
  return {
    rowId: input.rowId,
    callId: input.callId,
    childSessionId: input.childSessionId,
    agent: input.agent,
    mode: modeOf(input),
    ...(input.jobId ? { jobId: input.jobId } : {}),
  };
}
