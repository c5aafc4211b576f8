/**
 * A session's workspace missing on its host (issue 33): the typed pause a
 * tool call or a model step turns it into. The workspace lives on the host
 * of the session's route; when the directory is gone there (deleted,
 * unmounted, or a worker claiming a host it is not), nothing of the turn
 * can go on, so the call is `blocked` and the turn ends `paused` with
 * reason {@link WORKSPACE_UNAVAILABLE} until a person restores it and
 * resumes the session. Deterministic: plain data.
 */
import type { ErrorCode } from '../error-codes.js';

/** The pause reason, the blocked call's error code and the model step's failure type. */
export const WORKSPACE_UNAVAILABLE = 'workspace_unavailable' satisfies ErrorCode;

/** What a tool activity hands the workflow when the call asks the turn to pause (ToolActivityResult `pause`). */
export interface ToolPause {
  reason: typeof WORKSPACE_UNAVAILABLE;
  /** The person-facing sentence ({@link workspaceUnavailableMessage}). */
  message: string;
}

/** How the workspace directory failed its check: gone, not a directory, or not openable (with the errno code). */
export type WorkspaceProblem = { kind: 'missing' } | { kind: 'not_directory' } | { kind: 'unreadable'; code: string };

/**
 * The plain sentence of a missing workspace:
 * `the workspace /x does not exist on host h; restore it and run zuno session resume ses_…`
 * (a Goal's session: `zuno goal resume goal_…`, which resumes the session with its Goal). Pure.
 */
export function workspaceUnavailableMessage(
  workspace: string,
  host: string,
  owner: { sessionId: string; goalId?: string },
  problem: WorkspaceProblem = { kind: 'missing' },
): string {
  const what =
    problem.kind === 'missing'
      ? 'does not exist'
      : problem.kind === 'not_directory'
        ? 'is not a directory'
        : `cannot be opened (${problem.code})`;
  const resume = owner.goalId ? `zuno goal resume ${owner.goalId}` : `zuno session resume ${owner.sessionId}`;
  return `the workspace ${workspace} ${what} on host ${host}; restore it and run ${resume}`;
}
