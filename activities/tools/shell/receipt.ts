/**
 * Verification receipts (SH1, SH3) and the reading of how a run ended
 * (SH4 guard codes and signals, SH5 cancellation).
 */
import { createHash } from 'node:crypto';
import type { ShellExitPolicy } from '../../../core/tools/shell.js';
import type { CommandStatus } from './guard-run.js';
import type {
  CommandAnalysis,
  Limitation,
  SandboxFacts,
  ShellStop,
  UncertainCause,
  VerificationReceipt,
} from './types.js';

/**
 * The receipt id of a call (SH3, issue 26 item 5): `rcp_` + the first 16 hex
 * digits of SHA-256(`sessionId` NUL `rowId` NUL `callId`). The row id
 * (`tc_<turn>_<step>_<position>`) is unique per call in the session; the
 * provider's call id is not (providers number their calls per response), so
 * two calls of one session never share a receipt. The call id stays in the
 * digest because a redone model step reuses the row ids of its positions.
 * Deterministic, so a retried activity writes the same receipt. Rows
 * recorded before keep the ids they were given (SHA-256 of session and call
 * id only); evidence lookup refuses an id that more than one of them holds
 * (`evidence_ambiguous`, activities/goal/goal-port.ts).
 */
export function receiptId(sessionId: string, rowId: string, callId: string): string {
  return `rcp_${createHash('sha256').update(`${sessionId}\0${rowId}\0${callId}`).digest('hex').slice(0, 16)}`;
}

/** How a run ended, read from the guard's report (see {@link settleRun}). */
export type RunEnding =
  | { kind: 'exited'; code: number; cancelledAfterExit: boolean }
  | { kind: 'not_started'; code: 126 | 127; byGuard: boolean }
  | { kind: 'signaled'; signal: string }
  | { kind: 'guard_failed'; code: number }
  | { kind: 'guard_lost' }
  | { kind: 'stopped'; stop: ShellStop; observed: CommandStatus | null };

/** Receipt plus outcome facts of a settled run. */
export interface Settlement {
  ending: RunEnding;
  receipt: VerificationReceipt;
  uncertainCause?: UncertainCause;
}

/** Inputs of {@link settleRun}. */
export interface SettleInput {
  id: string;
  command: string;
  interpreter: string;
  exitPolicy: ShellExitPolicy;
  analysis: CommandAnalysis;
  /** The guard's report, or null when it ended without one. */
  status: CommandStatus | null;
  stop?: ShellStop;
  /** Whether the guard's own diagnostic line (with this run's nonce) is in the captured output. */
  guardLineSeen: boolean;
  /** How the run was confined (SH10), copied onto the receipt. */
  sandbox?: SandboxFacts;
}

function runLimitation(ending: RunEnding): Limitation | null {
  switch (ending.kind) {
    case 'exited':
      return null;
    case 'not_started':
      return {
        kind: 'not_started',
        note:
          ending.code === 127
            ? 'Exit 127: the program was not found, so it never started; the code is recorded but judges nothing.'
            : 'Exit 126: the program exists but could not be executed, so it never started; the code is recorded but judges nothing.',
        remedy:
          ending.code === 127
            ? 'Check the program name and PATH (or install it), then run the command again.'
            : 'Check the file is executable (chmod +x) and has a valid interpreter line.',
      };
    case 'signaled':
      return {
        kind: 'signal',
        note: `The command was killed by a signal (${ending.signal}); it has no exit code and its work was not judged.`,
        remedy: 'Find out what sent the signal (memory limit, a kill inside the command) before re-running it.',
      };
    case 'guard_failed':
      return {
        kind: 'guard_failed',
        note: `The shell guard itself failed (exit ${ending.code}): whether the command ran, and what it changed, is unknown.`,
        remedy:
          'Inspect the state the command would have changed before deciding anything; it is never re-run automatically.',
      };
    case 'guard_lost':
      return {
        kind: 'guard_lost',
        note: 'The shell guard ended without reporting how the command ended: whether it finished, and what it changed, is unknown.',
        remedy:
          'Inspect the state the command would have changed before deciding anything; it is never re-run automatically.',
      };
    case 'stopped':
      return ending.stop.reason === 'timeout'
        ? {
            kind: 'timeout',
            note: 'The command hit its time limit and was stopped there; it reached no verdict, and what it changed before that is unknown.',
            remedy:
              'Inspect the state it would have changed first; then raise timeoutMs or split the work before running it again.',
          }
        : {
            kind: 'cancelled',
            note: 'The call was cancelled while the command was still running; it reached no verdict, and what it changed before that is unknown.',
            remedy: 'Inspect the state it would have changed first, then decide whether to run it again.',
          };
  }
}

function readEnding(input: SettleInput): RunEnding {
  const { status, stop } = input;
  if (stop && !stop.commandHadExited) return { kind: 'stopped', stop, observed: status };
  if (status === null) return { kind: 'guard_lost' };
  if (status.kind === 'signaled') return { kind: 'signaled', signal: status.signal };
  const code = status.code;
  const byGuard = status.kind === 'guard_failed' || (code === 125 && input.guardLineSeen);
  if (code === 126 || code === 127) return { kind: 'not_started', code, byGuard };
  if (byGuard) return { kind: 'guard_failed', code };
  return { kind: 'exited', code, cancelledAfterExit: stop !== undefined && stop.commandHadExited };
}

/**
 * Reads how a run ended and builds its receipt (SH1, SH4, SH5):
 * - the command exited with its own code (a self-chosen 125 included, since
 *   the guard's diagnostic line is absent) → `passed`/`failed` with the
 *   analysis authority; marked `cancelled` if the call was cancelled after
 *   the command had exited;
 * - 126/127 → code recorded, verdict `unknown`, authority `none`;
 * - 125 with the guard's line, or no report at all → uncertain;
 * - killed by a signal → no exit code, the signal named, `unknown`/`none`;
 * - cancelled or timed out while running → `unknown`, no exit code, uncertain.
 * The run's sandbox facts (SH10), when given, are copied onto the receipt.
 */
export function settleRun(input: SettleInput): Settlement {
  const ending = readEnding(input);
  const extra = runLimitation(ending);
  const limitations = extra ? [...input.analysis.limitations, extra] : [...input.analysis.limitations];
  const receipt: VerificationReceipt = {
    id: input.id,
    command: input.command,
    interpreter: input.interpreter,
    exitPolicy: input.exitPolicy,
    verdict: 'unknown',
    authority: 'none',
    limitations,
    ...(input.sandbox ? { sandbox: input.sandbox } : {}),
  };
  let uncertainCause: UncertainCause | undefined;
  switch (ending.kind) {
    case 'exited':
      receipt.verdict = ending.code === 0 ? 'passed' : 'failed';
      receipt.exitCode = ending.code;
      receipt.authority = input.analysis.authority;
      break;
    case 'not_started':
      receipt.exitCode = ending.code;
      break;
    case 'signaled':
      receipt.signal = ending.signal;
      break;
    case 'guard_failed':
    case 'guard_lost':
      uncertainCause = ending.kind;
      break;
    case 'stopped':
      uncertainCause = ending.stop.reason;
      break;
  }
  if (input.stop?.reason === 'cancelled') receipt.cancelled = true;
  return uncertainCause ? { ending, receipt, uncertainCause } : { ending, receipt };
}

/**
 * SH5: a status Zuno could not settle (e.g. the output capture failed after
 * the command exited) is not a verdict anything can cite: the receipt becomes
 * `unknown` with no authority and no exit code, with a `capture_failed`
 * limitation naming `why`. Mutates `receipt`.
 */
export function markUnsettled(receipt: VerificationReceipt, why: string): void {
  receipt.verdict = 'unknown';
  receipt.authority = 'none';
  delete receipt.exitCode;
  receipt.limitations.push({
    kind: 'capture_failed',
    note: `The command's output could not be measured or stored after it ended (${why}); its status cannot be cited.`,
    remedy:
      'Inspect the state the command would have changed before deciding anything; it is never re-run automatically.',
  });
}
