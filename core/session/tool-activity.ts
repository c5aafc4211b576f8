/**
 * The tool activity's contract (`tool_<name>`, TD8, issue 13): its input and
 * small result, its activity type name, and the local-activity rules.
 */
import type { SandboxPolicy } from '../sandbox.js';
import type { ToolActivityFacts, ToolOutcome } from '../tools/types.js';
import type { PlannedToolCall } from './tool-calls.js';
import type { ErrorCode } from '../error-codes.js';
import type { McpSessionConfig } from '../mcp/types.js';
import type { PermissionPolicy } from '../permission/types.js';
import type { NetworkSessionConfig } from '../network.js';
import type { ToolPause } from './workspace-pause.js';

/** Input of a tool activity (`tool_<name>`). */
export interface ToolActivityInput {
  sessionId: string;
  workspace: string;
  turn: number;
  step: number;
  call: PlannedToolCall;
  /** The Goal driving the session (goal tools reach it through its workflow). */
  goalId?: string;
  /** The session's sandbox policy (`SessionMeta.sandbox`; absent: the auto default). */
  sandbox?: SandboxPolicy;
  /**
   * Set when the call runs as a local activity (issue 13): the task queue
   * whose worker must run it — the session's route, or the workflow's own
   * task queue for a session without one. A worker that does not serve it
   * refuses with {@link LOCAL_ELSEWHERE} and the workflow schedules the
   * regular activity on the route.
   */
  localOn?: string;
  /** The session's MCP servers (SessionMeta `mcp`), for an MCP call and `tool_search` (issue 30). */
  mcp?: McpSessionConfig;
  /**
   * The session's permission policy: with `mcp`, so `tool_search` never
   * finds a tool a whole-tool rule denies (MC1); for `webfetch`, so each
   * redirect hop meets the rules its first URL met (issue 31).
   */
  permission?: PermissionPolicy;
  /** The session's network settings (SessionMeta `network`), for the web tools (issue 31). */
  network?: NetworkSessionConfig;
  /**
   * The host of the session's route (SessionMeta `route.host`, issue 33):
   * the host the call runs on, named when its workspace is missing and given
   * to shell commands as `ZUNO_HOST_ID`. Absent (sessions recorded before
   * routing, or before it was sent): the worker's own host id.
   */
  host?: string;
}

/**
 * Longest a tool call runs as a local activity before the regular activity
 * takes over, in ms (issue 13). Temporal keeps the workflow task open while
 * its local activities run, so nothing reaches the workflow meanwhile — an
 * interrupt (TD10), a steered input: kept within INTERRUPT_DELIVERY_MS.
 */
export const LOCAL_ACTIVITY_TIMEOUT_MS = 500;

/** Failure type of a local activity refused by a worker that does not serve the session's route. */
export const LOCAL_ELSEWHERE = 'local_elsewhere' satisfies ErrorCode;

/** Output of a tool activity: small; the output text is in the projection. */
export interface ToolActivityResult {
  outcome: ToolOutcome;
  /**
   * The tool's code (a `ToolResult.errorCode`, catalogued in
   * core/error-codes.ts), or for a delegated call the child's end code,
   * which may be Temporal's failure type (`TerminatedFailure`): text here.
   */
  errorCode?: string;
  outputBytes: number;
  /**
   * What an operator reads first in the Temporal UI: `failed` when the
   * outcome is error/uncertain or the tool's own facts say it failed (a
   * shell exit ≠ 0). A tool failure is still a completed activity (TD8).
   */
  status?: 'ok' | 'failed';
  /** Small outcome-deciding facts (exit code, receipt verdict, conflict kind…); never the output. */
  facts?: ToolActivityFacts;
  /** true when the workflow had already recorded the call (forced interrupt) and this result was only logged. */
  late?: boolean;
  /**
   * Background-task facts the workflow acts on (BG6): `started` — a `shell`
   * call with `background: true` handed out this taskID and the workflow now
   * runs the command; `terminal` — a `bg` read observed the task's final
   * state, which consumes its completion report.
   */
  background?: { taskID: string; started?: boolean; terminal?: boolean };
  /**
   * The call could not run and the turn must pause for a person (issue 33:
   * the session's workspace does not exist on its host; the call's outcome is
   * `blocked`, code `workspace_unavailable`). The workflow ends the turn
   * `paused` with this reason and message; no tool body ran. Never set in
   * histories recorded before it existed (the branch keyed on it is replay-safe).
   */
  pause?: ToolPause;
}

/** Activity type of every MCP tool call (issue 30): one activity, its summary names the tool. */
export const MCP_TOOL_ACTIVITY = 'tool_mcp';

/** Activity type name of a tool's activity: `tool_<name>` (an MCP call: {@link MCP_TOOL_ACTIVITY}). */
export function toolActivityName(tool: string, mcp?: boolean): `tool_${string}` {
  return mcp ? MCP_TOOL_ACTIVITY : `tool_${tool}`;
}

/** The tool activities by activity type name ({@link toolActivityName}), as the session workflow calls them. */
export type ToolActivities = Record<`tool_${string}`, (input: ToolActivityInput) => Promise<ToolActivityResult>>;
