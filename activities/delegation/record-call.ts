import type { ToolActivityResult } from '../../core/session/tool-activity.js';
import type { ProjectionStore } from '../projection/types.js';
import { recordCompleted, recordStarted, type ToolCallIdentity, type ToolCompletion } from '../session/tool-records.js';
import { toolDeclarations } from '../../core/tools/registry.js';

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
  const identity = await identityOf(store, sessionId, rowId);
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

/** The identity of a recorded tool-call row. @throws Error when the row does not exist. */
async function identityOf(store: ProjectionStore, sessionId: string, rowId: string): Promise<ToolCallIdentity> {
  const row = await store.getToolCall(sessionId, rowId);
  if (!row) throw new Error(`tool call ${rowId} of session ${sessionId} is not recorded`);
  return {
    id: row.id,
    sessionId,
    turn: row.turn,
    step: row.step,
    position: row.position,
    callId: row.callId,
    tool: row.tool,
    argsJson: row.argsJson,
  };
}

/**
 * Records a delegated call running (row `running` + `tool.started`, through
 * tool-records.ts), with the summary its declaration gives — what
 * `zuno run` shows as `→ task explore: …`. Idempotent per attempt.
 */
export async function recordDelegatedStart(
  store: ProjectionStore,
  sessionId: string,
  rowId: string,
  attempt: number,
  startedAtMs: number,
): Promise<void> {
  const identity = await identityOf(store, sessionId, rowId);
  const decl = toolDeclarations[identity.tool];
  let summary = identity.tool;
  try {
    if (decl) summary = decl.summarize(decl.args.parse(JSON.parse(identity.argsJson)) as never);
  } catch {
    // The call was validated when it was planned; a summary is only for people.
  }
  await recordStarted(store, identity, attempt, startedAtMs, summary);
}
