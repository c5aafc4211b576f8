import { statSync } from 'node:fs';
import {
  type ToolPause,
  WORKSPACE_UNAVAILABLE,
  type WorkspaceProblem,
  workspaceUnavailableMessage,
} from '../../core/session/workspace-pause.js';
import type { ToolActivityResult } from '../../core/session/tool-activity.js';
import type { ProjectionStore } from '../projection/types.js';
import { processHostId } from '../infra/host-id.js';
import { recordCompleted, type ToolCallIdentity } from './tool-records.js';

/**
 * Whether the session's workspace directory is there on this host (issue
 * 33), checked before a tool body runs (tool-activity.ts) and before a
 * model step assembles its request (model-step.ts): null when `workspace`
 * is a directory; else what is wrong — `missing` (ENOENT, or a path
 * component is not a directory), `not_directory`, or `unreadable` with the
 * errno code (EACCES, EIO…). One `stat`; never throws.
 */
export function workspaceProblem(workspace: string): WorkspaceProblem | null {
  try {
    return statSync(workspace).isDirectory() ? null : { kind: 'not_directory' };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'unknown';
    return code === 'ENOENT' || code === 'ENOTDIR' ? { kind: 'missing' } : { kind: 'unreadable', code };
  }
}

/**
 * The pause a call or step of a session asks for when its workspace is not
 * there on this host, or null when it is. `host` is the session's route
 * host (absent: this process's host id); `goalId` the Goal driving it (the
 * message then says to resume the Goal).
 */
export function workspacePause(
  owner: { sessionId: string; goalId?: string | undefined },
  workspace: string,
  host: string | undefined,
): ToolPause | null {
  const problem = workspaceProblem(workspace);
  if (!problem) return null;
  const who = { sessionId: owner.sessionId, ...(owner.goalId ? { goalId: owner.goalId } : {}) };
  const message = workspaceUnavailableMessage(workspace, host ?? processHostId(), who, problem);
  return { reason: WORKSPACE_UNAVAILABLE, message };
}

/**
 * Records a call whose workspace is missing as `blocked` with code
 * `workspace_unavailable` (no tool body ran, so no `tool.started`) and
 * returns the activity result that asks the workflow to pause the turn.
 * When the call's row was already completed (an earlier attempt ran it, or
 * the workflow settled it), that record stands and no pause is asked.
 */
export async function recordWorkspaceBlocked(
  store: ProjectionStore,
  identity: ToolCallIdentity,
  at: { attempt: number; startedAtMs: number },
  pause: ToolPause,
): Promise<ToolActivityResult> {
  const completion = {
    outcome: 'blocked' as const,
    output: `Not run: ${pause.message}.`,
    errorCode: WORKSPACE_UNAVAILABLE,
    data: { pause: pause.reason },
    attempt: at.attempt,
    startedAtMs: at.startedAtMs,
    endedAtMs: Date.now(),
  };
  const recorded = await recordCompleted(store, identity, completion, { abandon: false });
  if (recorded.kind === 'late') return { outcome: recorded.stands, outputBytes: 0, late: true };
  if (recorded.kind === 'abandoned') throw new Error('unreachable: a blocked record is never abandoned');
  const paused = recorded.outcome === 'blocked';
  return {
    outcome: recorded.outcome,
    outputBytes: recorded.outputBytes,
    status: recorded.outcome === 'ok' ? 'ok' : 'failed',
    ...(paused ? { errorCode: WORKSPACE_UNAVAILABLE, pause } : {}),
  };
}
