/**
 * Shapes of the background-command engine (BG1–BG5, SH9): the persisted
 * task status, the settled completion, and a read-back window. Plain data,
 * safe to store as JSON.
 */
import type { ShellBackgroundPurpose } from '../../../core/tools/shell.js';
import type { ReceiptBase } from '../shell/prepare.js';
import type { UncertainCause, VerificationReceipt } from '../shell/types.js';
import type { ErrorCode } from '../../../core/error-codes.js';

/**
 * How a background task stands.
 * - `running`: the command is running (or settling);
 * - `exited`: the command ended by itself, with an exit code or by a signal
 *   (a cancel that arrived after it had exited leaves it `exited`, with the
 *   receipt marked `cancelled`, SH5);
 * - `cancelled` / `timed_out`: stopped while running (SH5, TD10): no verdict, uncertain;
 * - `failed`: the guard failed or vanished, or the output could not be settled: uncertain;
 * - `not_started`: nothing ran (bad arguments, bad workdir, storage failure);
 * - `lost`: never written; read from a `running` status whose guard and
 *   owning process are gone without a final status: uncertain.
 */
export type BgState = 'running' | 'exited' | 'cancelled' | 'timed_out' | 'failed' | 'not_started' | 'lost';

/** The states a finished task is written with. */
export type BgSettledState = Exclude<BgState, 'running' | 'lost'>;

/** Why a background outcome is uncertain: a shell cause, or `lost`. */
export type BgUncertainCause = UncertainCause | 'lost';

/** Fields of `status.json` written when the task starts. */
export interface BgStatusStart {
  taskID: string;
  sessionId: string;
  callId: string;
  /** The command text exactly as run. */
  command: string;
  /** SH9, persisted as given. */
  backgroundPurpose?: ShellBackgroundPurpose;
  /** Receipt fields known before the run (id, command, interpreter, exit policy). */
  receiptBase: ReceiptBase;
  /** Hard limit of the run, in milliseconds (absent when the arguments were invalid). */
  timeoutMs?: number;
  /** Wall-clock start, ms since the epoch. */
  startedAtMs: number;
  /** Pid of the guard (= its process group id); absent until it is spawned. */
  guardPid?: number;
  /** Pid of the process running the task (the worker). */
  workerPid: number;
}

/** `status.json` while the task runs. */
export interface BgStatusRunning extends BgStatusStart {
  state: 'running';
}

/** `status.json` once the task settled: the start fields plus the completion. */
export interface BgStatusSettled extends BgStatusStart {
  state: BgSettledState;
  exitCode?: number;
  signal?: string;
  receipt: VerificationReceipt;
  /** Bytes of output in the task's output file. */
  totalWritten: number;
  endedAtMs: number;
  durationMs: number;
  outcome: BgCompletion['outcome'];
  uncertainCause?: BgUncertainCause;
  /** Stable code for `not_started`. */
  errorCode?: ErrorCode;
  /** The completion report (see {@link BgCompletion.report}). */
  report: string;
}

/** The persisted status of one task, `<task dir>/status.json`. */
export type BgStatus = BgStatusRunning | BgStatusSettled;

/**
 * How a background task ended, as `runBackground` returns it (and as it is
 * stored in `status.json`).
 */
export interface BgCompletion {
  taskID: string;
  state: Exclude<BgState, 'running'>;
  /** The command's exit code as observed (also for 126/127 and a cancel after exit). */
  exitCode?: number;
  /** Signal that killed the command, when it died by one. */
  signal?: string;
  /** The shell verification receipt (SH1, SH3, SH5); `rcp_` id from session id + row id + call id. */
  receipt: VerificationReceipt;
  /** Bytes of output (stdout and stderr interleaved) in the output file. */
  totalWritten: number;
  /** Wall time of the run, in milliseconds. */
  durationMs: number;
  /** `ok`: the command ran and reported; `uncertain`: inspect state first, never re-run; `error`: nothing ran. */
  outcome: 'ok' | 'uncertain' | 'error';
  uncertainCause?: BgUncertainCause;
  /** Stable code when `outcome` is `error` (`invalid_arguments`, `invalid_task_id`, `not_found`, …). */
  errorCode?: ErrorCode;
  /** Absolute path of the task's output file (every raw byte). */
  outputPath: string;
  backgroundPurpose?: ShellBackgroundPurpose;
  /**
   * Model-facing report, ≤ 4 KiB: what ran, how it ended, the receipt line,
   * the last ≤ 2 KiB of output, and how to page the rest with bg output.
   */
  report: string;
}

/** One read-back window (BG1–BG4). All offsets are absolute byte offsets. */
export interface BgWindow {
  /** Where the window starts (the cursor given, or derived: newest window / 0). */
  cursor: number;
  /** Where the next window starts (= end of this one); pass it back as `cursor` to page forward. */
  nextCursor: number;
  /** Bytes exist after this window (now). */
  hasMore: boolean;
  /** First byte of this window (= `cursor`); page backwards from it. */
  windowFrom: number;
  /** Bytes exist before this window. */
  hasEarlier: boolean;
  /** Bytes in the source now. */
  totalWritten: number;
  /** true: read from the file on disk; false: from the in-memory newest 2 MiB of a running task. */
  fromDisk: boolean;
  /** Bytes in this window. */
  bytes: number;
  /** The window size used (default 16384, clamped to 51200). */
  limit: number;
  /** The limit asked for, when it was clamped. */
  requestedLimit?: number;
  /** The window starts inside a multi-byte UTF-8 character (its first bytes show as U+FFFD). */
  startsInsideCharacter: boolean;
  /** The window ends inside a multi-byte UTF-8 character (its last bytes show as U+FFFD). */
  endsInsideCharacter: boolean;
  /** The window holds bytes that are not UTF-8 text (invalid sequences or NUL). */
  binary: boolean;
  /** The window decoded lossily as UTF-8 (invalid bytes and NUL as U+FFFD). */
  text: string;
}
