/**
 * How a background task stands right now, from whichever copy knows best:
 * the live registry when this process runs it, else its `status.json`. A
 * `running` status whose guard and owning process are gone reads as `lost`
 * (uncertain, never re-run).
 */
import { stat } from 'node:fs/promises';
import { settleRun } from '../shell/receipt.js';
import { getLiveTask, type LiveTask } from './live.js';
import { buildReport, REPORT_TAIL_BYTES } from './report.js';
import { pidAlive, readStatus, taskDir, taskOutputPath } from './store.js';
import type { BgCompletion, BgState, BgStatus, BgStatusRunning, BgStatusSettled } from './types.js';
import { readFileRange } from './window.js';

/** How long a reader waits for the final status of a task whose guard just ended in another live process, in ms. */
export const SETTLE_GRACE_MS = 1_000;

/** One task as seen now. */
export interface TaskView {
  taskID: string;
  state: BgState;
  /** The task will not change any more (settled or lost). */
  terminal: boolean;
  /** The stored status (null only for a live task before its first status write). */
  status: BgStatus | null;
  /** Set when this process runs the task. */
  live?: LiveTask;
  /** Absolute path of the output file. */
  outputPath: string;
  /** Set when terminal. */
  completion?: BgCompletion;
}

/** The completion stored in a settled status. */
export function completionFromStatus(s: BgStatusSettled, outputPath: string): BgCompletion {
  return {
    taskID: s.taskID,
    state: s.state,
    ...(s.exitCode !== undefined ? { exitCode: s.exitCode } : {}),
    ...(s.signal !== undefined ? { signal: s.signal } : {}),
    receipt: s.receipt,
    totalWritten: s.totalWritten,
    durationMs: s.durationMs,
    outcome: s.outcome,
    ...(s.uncertainCause ? { uncertainCause: s.uncertainCause } : {}),
    ...(s.errorCode ? { errorCode: s.errorCode } : {}),
    outputPath,
    ...(s.backgroundPurpose ? { backgroundPurpose: s.backgroundPurpose } : {}),
    report: s.report,
  };
}

/**
 * The completion of a lost task: its process ended without a final status.
 * Reads the output file's size (the bytes on disk) and newest bytes for the
 * report. When the task ended is unknown: `durationMs` runs from its
 * recorded start to `observedAtMs` (ms since the epoch, default now), when
 * the loss was seen; the report also says when it last wrote output (the
 * output file's mtime, a lower bound of its run time).
 */
export async function lostCompletion(
  s: BgStatusRunning,
  outputPath: string,
  observedAtMs = Date.now(),
): Promise<BgCompletion> {
  let totalWritten = 0;
  let lastOutputMs: number | undefined;
  let tail: Uint8Array = Buffer.alloc(0);
  try {
    const st = await stat(outputPath);
    totalWritten = st.size;
    if (st.size > 0) lastOutputMs = Math.round(Math.max(0, st.mtimeMs - s.startedAtMs));
    tail = (await readFileRange(outputPath, Math.max(0, totalWritten - REPORT_TAIL_BYTES), totalWritten)).bytes;
  } catch {
    // no output file: nothing was written
  }
  const { receipt } = settleRun({
    ...s.receiptBase,
    analysis: { authority: 'derived', limitations: [] },
    status: null,
    guardLineSeen: false,
  });
  const durationMs = Math.round(Math.max(0, observedAtMs - s.startedAtMs));
  const report = buildReport({
    taskID: s.taskID,
    command: s.command,
    state: 'lost',
    statusLine: `UNCERTAIN: the process that ran this task (pid ${s.workerPid}) ended without recording how the command ended; what it changed is unknown. Inspect state first. It will not be re-run.`,
    receipt,
    totalWritten,
    durationMs,
    ...(lastOutputMs !== undefined ? { lastOutputMs } : {}),
    tail,
    remoteObserver: s.backgroundPurpose === 'remoteObserver',
  });
  return {
    taskID: s.taskID,
    state: 'lost',
    receipt,
    totalWritten,
    durationMs,
    outcome: 'uncertain',
    uncertainCause: 'lost',
    outputPath,
    ...(s.backgroundPurpose ? { backgroundPurpose: s.backgroundPurpose } : {}),
    report,
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Whether a running status still has a process behind it: its guard, or (before the guard exists) its worker. */
function stillRunning(s: BgStatusRunning): boolean {
  if (s.guardPid !== undefined) return pidAlive(s.guardPid);
  return s.workerPid !== process.pid && pidAlive(s.workerPid);
}

/**
 * The task `taskID` of `sessionId` as it stands now.
 *
 * @param opts.ignoreLive read the stored status only (for the run that owns the live registration).
 * @returns the view, or null when the task is unknown (no live task, no
 *   readable status of this session). A running status with no process
 *   behind it reads as `lost`; when its worker is still alive, the final
 *   status gets {@link SETTLE_GRACE_MS} to appear first.
 */
export async function viewTask(
  workspace: string,
  sessionId: string,
  taskID: string,
  opts: { ignoreLive?: boolean } = {},
): Promise<TaskView | null> {
  const outputPath = taskOutputPath(workspace, sessionId, taskID);
  const live = opts.ignoreLive ? undefined : getLiveTask(sessionId, taskID);
  const dir = taskDir(workspace, sessionId, taskID);
  if (live) {
    const status = await readStatus(dir);
    if (live.completion)
      return {
        taskID,
        state: live.completion.state,
        terminal: true,
        status,
        live,
        outputPath,
        completion: live.completion,
      };
    return { taskID, state: 'running', terminal: false, status, live, outputPath };
  }
  let status = await readStatus(dir);
  if (!status || status.sessionId !== sessionId || status.taskID !== taskID) return null;
  if (
    status.state === 'running' &&
    !stillRunning(status) &&
    status.workerPid !== process.pid &&
    pidAlive(status.workerPid)
  ) {
    const until = Date.now() + SETTLE_GRACE_MS;
    while (status.state === 'running' && Date.now() < until) {
      await sleep(50);
      status = (await readStatus(dir)) ?? status;
    }
  }
  if (status.state !== 'running')
    return {
      taskID,
      state: status.state,
      terminal: true,
      status,
      outputPath,
      completion: completionFromStatus(status, outputPath),
    };
  if (stillRunning(status)) return { taskID, state: 'running', terminal: false, status, outputPath };
  return {
    taskID,
    state: 'lost',
    terminal: true,
    status,
    outputPath,
    completion: await lostCompletion(status, outputPath),
  };
}
