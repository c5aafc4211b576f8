/**
 * What a tool implementation receives besides its arguments.
 */
import type { RgLocator } from './rg.js';

/** Per-call context of a tool run. */
export interface ToolContext {
  /** Absolute path of the workspace root; every path argument is resolved against it. */
  workspace: string;
  /** Aborts the call (activity cancellation, TD10); tools kill their child processes. */
  signal?: AbortSignal;
  sessionId: string;
  callId: string;
  /** rg discovery cache to use (tests inject one); default: the process-wide locator (SR6). */
  rg?: RgLocator;
}
