/**
 * Shapes of the shell engine: command analysis, verification receipts and
 * the settled outcome of one run (SH1–SH7, TD9, TD10). Plain data, safe to
 * store as JSON.
 */
import type { SandboxFacts } from '../../../core/sandbox.js';
import type { ShellExitPolicy } from '../../../core/tools/shell.js';
import type { ErrorCode } from '../../../core/error-codes.js';

export type { SandboxFacts, ShellExitPolicy };

/**
 * Why a receipt is not authoritative. Analysis kinds (SH1, SH2) come from
 * the command text and the interpreter; run kinds (SH4, SH5) from what
 * happened when it ran.
 */
export type LimitationKind =
  // analysis (SH1, SH2)
  | 'unparsed'
  | 'interpreter'
  | 'exit_policy_last'
  | 'or_fallback'
  | 'errexit_off'
  | 'pipefail_off'
  | 'nested_shell'
  | 'condition'
  | 'loop'
  | 'and_chain'
  | 'sequence'
  | 'background'
  // run (SH4, SH5)
  | 'not_started'
  | 'guard_failed'
  | 'guard_lost'
  | 'signal'
  | 'cancelled'
  | 'timeout'
  | 'capture_failed';

/** One reason a receipt is not authoritative: the construct, and how to get an authoritative result. */
export interface Limitation {
  kind: LimitationKind;
  /** What the construct does to the exit status, naming it (e.g. "`cargo test || true` exits 0 …"). */
  note: string;
  /** What to do instead to get an authoritative status. */
  remedy: string;
}

/**
 * SH1/SH2 authority of a command's exit status: `authoritative` — the
 * status covers every stage and statement; `derived` — recorded, but not
 * evidence (some failure can go unseen).
 */
export type AnalysisAuthority = 'authoritative' | 'derived';

/** Result of analyzeCommand (SH1, SH2). */
export interface CommandAnalysis {
  authority: AnalysisAuthority;
  /** Empty exactly when `authority` is `authoritative`; at most one entry per kind. */
  limitations: Limitation[];
}

/** Verdict of a receipt: `unknown` when the run judged nothing (never started, signal, guard failure, cancelled, timeout). */
export type Verdict = 'passed' | 'failed' | 'unknown';

/**
 * Authority of a receipt: the analysis authority when the command reported
 * its own status, `none` when the recorded status says nothing about the
 * command (SH4 126/127/125, signal death; SH5 unknown cancellation).
 */
export type ReceiptAuthority = AnalysisAuthority | 'none';

/**
 * The verification receipt every shell result carries (SH1, SH3), addressed
 * as `[verification rcp_…]`. Goal evidence cites `id`; only an
 * `authoritative` receipt is evidence.
 */
export interface VerificationReceipt {
  /** `rcp_` + 16 lowercase hex, derived from session id + row id + call id (unique per call; a retried activity gets the same id). */
  id: string;
  /** The command text exactly as run. */
  command: string;
  /** Interpreter the command ran under, as named (e.g. `bash`, `sh`). */
  interpreter: string;
  exitPolicy: ShellExitPolicy;
  verdict: Verdict;
  /** The command's own exit code; absent for signal death, guard loss and unknown cancellations. */
  exitCode?: number;
  /** Name of the signal that killed the command (`SIGKILL`), when it died by one. */
  signal?: string;
  authority: ReceiptAuthority;
  limitations: Limitation[];
  /** Set when the call was cancelled (SH5): the receipt is the command's own when it had already exited. */
  cancelled?: boolean;
  /** How the command was confined (SH10): backend, mode, network. Absent when nothing ran, and in receipts recorded before the sandbox existed. */
  sandbox?: SandboxFacts;
}

/** TD9: output over a cap, kept whole in an artifact instead of inline. */
export interface WithheldOutput {
  /** Measured size of the output, in bytes. */
  bytes: number;
  /** Measured number of lines (a final line without `\n` counts). */
  lines: number;
  /** The cap that was exceeded (`max_bytes` when both were). */
  cap: 'max_bytes' | 'max_lines';
  /** Absolute path of the artifact holding every raw byte. */
  artifactPath: string;
  /** SHA-256 (lowercase hex) of the artifact's bytes: the output as it stood when the call ended; the artifact never changes after. */
  sha256: string;
}

/** Output that is not valid UTF-8 text (or contains NUL bytes), shown lossily inline. */
export interface BinaryOutput {
  /** Absolute path of the artifact holding the exact bytes. */
  artifactPath: string;
  /** Number of NUL bytes in the output. */
  nulBytes: number;
  /** SHA-256 (lowercase hex) of the artifact's bytes. */
  sha256: string;
}

/** Why a run was stopped before the command ended by itself (SH5, TD10). */
export interface ShellStop {
  reason: 'cancelled' | 'timeout';
  /**
   * `cooperative`: the process group ended inside the 2 s window after
   * SIGTERM (or had already ended); `forced`: SIGKILL was needed.
   */
  mode: 'cooperative' | 'forced';
  /** true when the command had already exited with its own status before the stop was requested. */
  commandHadExited: boolean;
}

/** Why an outcome is uncertain: nothing tells what the command did or changed (TD4, SH4, SH5). */
export type UncertainCause = 'guard_failed' | 'guard_lost' | 'cancelled' | 'timeout' | 'capture_failed';

/**
 * The settled result of one shell call. `outcome`: `ok` — the command ran and
 * reported (any exit code, signal death or 126/127 included; the verdict is in
 * the receipt); `uncertain` — never replay, inspect state first; `error` —
 * nothing ran (bad arguments, bad workdir, cancelled before start).
 */
export interface ShellOutcome {
  outcome: 'ok' | 'error' | 'uncertain';
  /** Stable code when `outcome` is `error`: `invalid_arguments`, `path_outside_workspace`, `not_found`, `not_a_directory`, `cancelled`, `sandbox_unavailable`, `output_capture_failed`. */
  errorCode?: ErrorCode;
  uncertainCause?: UncertainCause;
  /** The model-visible text: a status line, the receipt, limitations, written paths, then the output or the withheld-output notice. */
  output: string;
  receipt: VerificationReceipt;
  /** Exit code as observed (reported even when the receipt may not cite it). */
  exitCode?: number;
  /** Signal that killed the command, as observed. */
  signal?: string;
  stop?: ShellStop;
  /** SH7: workspace-relative, `/`-separated paths observed changed or created (a lower bound). */
  writtenPaths: string[];
  /** Size of the captured output (stdout and stderr interleaved), in bytes. */
  outputBytes: number;
  /** Lines of the captured output. */
  outputLines: number;
  /** TD9: artifacts holding output bytes (withheld or binary output). */
  outputPaths: string[];
  withheldOutput?: WithheldOutput;
  binaryOutput?: BinaryOutput;
  /** Wall time of the run, in milliseconds. */
  durationMs: number;
  /** The call's time limit in milliseconds, set when the command hit it (it was still running and was stopped). */
  timeLimitMs?: number;
}
