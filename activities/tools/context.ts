/**
 * What a tool implementation receives besides its arguments.
 */
import type { SandboxPolicy } from '../../core/sandbox.js';
import type { NetworkSessionConfig } from '../../core/network.js';
import type { PermissionPolicy } from '../../core/permission/types.js';
import type { ReadCredential } from '../../core/tools/read.js';
import type { GoalPort, JobsPort, McpPort, QuestionPort, WorkStatePort } from '../infra/ports.js';
import type { ToolProgress } from './progress.js';
import type { RgLocator } from './rg.js';

export type { GoalPort, JobsPort, McpPort, QuestionPort, WorkStatePort } from '../infra/ports.js';

/** Per-call context of a tool run. */
export interface ToolContext {
  /** Absolute path of the workspace root; every path argument is resolved against it. */
  workspace: string;
  /**
   * The host the call runs on (the session's route host, issue 33); a shell
   * command sees it as `ZUNO_HOST_ID` (SH6). Absent outside a session (tests):
   * the command sees no `ZUNO_HOST_ID`.
   */
  host?: string;
  /** Aborts the call (activity cancellation, TD10); tools kill their child processes. */
  signal?: AbortSignal;
  sessionId: string;
  /** The call's tool-call row id `tc_<turn>_<step>_<position>` (unique per call in the session; the call id is not). */
  rowId: string;
  callId: string;
  /** The task id a `shell` call with `background: true` hands out (`bg_{turn}_{step}_{position}`, BG1). */
  backgroundTaskID?: string;
  /** rg discovery cache to use (tests inject one); default: the process-wide locator (SR6). */
  rg?: RgLocator;
  /**
   * The session's newest read credential for a workspace-relative path (FT1),
   * for tools that must prove a file was read before changing it (FT2, FT3).
   */
  credentials?: (relPath: string) => ReadCredential | undefined;
  /** The Goal driving the session (for tools that declare `needsGoal`); absent when no Goal drives it. */
  goal?: GoalPort;
  /** The session's questions, for tools that declare `needsQuestions` (the session workflow holds them). */
  questions?: QuestionPort;
  /** The session's stored Plan/Todo state, for tools that declare `needsWorkState` (GP15–GP32). */
  workState?: WorkStatePort;
  /** The session's background delegations as recorded (DC15), for tools that declare `needsJobs`. */
  jobs?: JobsPort;
  /** The session's MCP servers, for tools that declare `needsMcp` (issue 30: `tool_search`, MCP calls). */
  mcp?: McpPort;
  /** Progress of a long-running call (output bytes, newest line); the activity heartbeats it. */
  onProgress?: (p: ToolProgress) => void;
  /** The session's sandbox policy for `shell` (SH10; absent: the auto default). */
  sandbox?: SandboxPolicy;
  /** The session's network settings (issue 31): the private allowlist and the search backend of the web tools. */
  network?: NetworkSessionConfig;
  /** The session's permission policy, for a tool that checks more than its arguments (webfetch's redirect hops). */
  permission?: PermissionPolicy;
}
