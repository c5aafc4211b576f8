/**
 * What one background task runs with ({@link BackgroundContext}), apart from
 * the engine (./run.ts) so the completion helpers (./completion.ts) can name
 * it without importing the engine.
 */
import type { SandboxPolicy } from '../../../core/sandbox.js';
import type { CommandStatus } from '../shell/guard-run.js';

/** Per-task context of `runBackground` (./run.ts). */
export interface BackgroundContext {
  /** Absolute workspace root. */
  workspace: string;
  sessionId: string;
  /** The tool-call row of the shell call that started the task (`tc_<turn>_<step>_<position>`). */
  rowId: string;
  /** The shell call that started the task (receipt id = f(sessionId, rowId, callId), SH3). */
  callId: string;
  /** The task id the workflow derived (`bg_<turn>_<step>_<position>`); validated before use in a path. */
  taskID: string;
  /** Cancels the task (SH5): SIGTERM to the group, 2 s window, then SIGKILL. */
  signal?: AbortSignal;
  /** Called when the output grows and at least once a second while the command runs, with the byte count and the newest output line (heartbeat hook). */
  onProgress?: (totalWritten: number, lastLine: string | undefined) => void;
  /** Called once when the command has ended and its status is known. */
  onCommandExit?: (status: CommandStatus) => void;
  /** Host environment before `ZUNO_*` stripping (default `process.env`). */
  env?: NodeJS.ProcessEnv;
  /** SH6 host env hook, applied after stripping. */
  envHook?: (env: Record<string, string>) => Record<string, string>;
  /** The host the task runs on, given to the command as `ZUNO_HOST_ID` (issue 33; absent: not set). */
  hostId?: string;
  /** Interpreter (default `bash`). */
  interpreter?: string;
  /** The session's sandbox policy (SH10; absent: the auto default), the same as for foreground calls. */
  sandbox?: SandboxPolicy;
}
