/**
 * The background-command engine and the `bg` tool (BG1–BG5, SH9),
 * self-contained: no Temporal, no projection store. `runBackground` runs one
 * background shell command (the session's long-running activity calls it);
 * `runBg` is the `bg` tool. The model-facing description is
 * `activities/tools/bg.txt`.
 */
export { runBackground, type BackgroundContext } from './run.js';
export { bgTool, runBg, BG_CANCEL_WAIT_MS, BG_POLL_MS } from './tool.js';
export { openArtifact, type OpenedArtifact } from './artifact.js';
export { getLiveTask, liveTaskCount, TAIL_POLL_MS, PROGRESS_TICK_MS, type LiveTask } from './live.js';
export { buildReport, REPORT_MAX_BYTES, REPORT_TAIL_BYTES } from './report.js';
export { ByteRing, LIVE_RETAINED_BYTES } from './ring.js';
export {
  bgRoot,
  isValidTaskId,
  listStatuses,
  readStatus,
  sessionKey,
  sessionTasksDir,
  taskDir,
  taskOutputPath,
} from './store.js';
export { viewTask, SETTLE_GRACE_MS, type TaskView } from './view.js';
export { planWindow, readWindow, type CursorOutOfRange, type WindowRequest } from './window.js';
export type * from './types.js';
