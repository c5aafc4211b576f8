/**
 * Building a background task's {@link BgCompletion} and its settled
 * `status.json` from how the run ended (SH4, SH5): state mapping, the
 * not-started and internal-failure completions, and the output tail quoted in
 * the report.
 */
import { performance } from 'node:perf_hooks';
import type { ShellBackgroundPurpose } from '../../../core/tools/shell.js';
import { notRun, type ReceiptBase } from '../shell/prepare.js';
import { receiptId, type RunEnding } from '../shell/receipt.js';
import type { ShellOutcome } from '../shell/types.js';
import { buildReport, REPORT_TAIL_BYTES } from './report.js';
import type { ByteRing } from './ring.js';
import type { BackgroundContext } from './context.js';
import type { BgCompletion, BgSettledState, BgStatusSettled, BgStatusStart } from './types.js';
import { readFileRange } from './window.js';

/** A completion for a task where nothing ran (`not_started`), from the shell's not-run outcome. */
export function notStartedCompletion(
  ctx: Pick<BackgroundContext, 'taskID'>,
  outcome: ShellOutcome,
  outputPath: string,
  purpose: ShellBackgroundPurpose | undefined,
): BgCompletion {
  const message = outcome.output.split('\n').slice(0, -1).join(' ');
  return {
    taskID: ctx.taskID,
    state: 'not_started',
    receipt: outcome.receipt,
    totalWritten: 0,
    durationMs: outcome.durationMs,
    outcome: 'error',
    errorCode: outcome.errorCode ?? 'not_started',
    outputPath,
    ...(purpose ? { backgroundPurpose: purpose } : {}),
    report: buildReport({
      taskID: ctx.taskID,
      command: outcome.receipt.command,
      state: 'not_started',
      statusLine: message,
      receipt: outcome.receipt,
      totalWritten: 0,
      durationMs: outcome.durationMs,
      tail: Buffer.alloc(0),
      remoteObserver: purpose === 'remoteObserver',
    }),
  };
}

export function settledStatus(start: BgStatusStart, c: BgCompletion, endedAtMs: number): BgStatusSettled {
  return {
    ...start,
    state: c.state as BgSettledState,
    ...(c.exitCode !== undefined ? { exitCode: c.exitCode } : {}),
    ...(c.signal !== undefined ? { signal: c.signal } : {}),
    receipt: c.receipt,
    totalWritten: c.totalWritten,
    endedAtMs,
    durationMs: c.durationMs,
    outcome: c.outcome,
    ...(c.uncertainCause ? { uncertainCause: c.uncertainCause } : {}),
    ...(c.errorCode ? { errorCode: c.errorCode } : {}),
    report: c.report,
  };
}

/** The state a settled run is written with (see `BgState` in ./types.ts). */
export function settledState(ending: RunEnding): BgSettledState {
  switch (ending.kind) {
    case 'exited':
    case 'not_started':
    case 'signaled':
      return 'exited';
    case 'guard_failed':
    case 'guard_lost':
      return 'failed';
    case 'stopped':
      return ending.stop.reason === 'timeout' ? 'timed_out' : 'cancelled';
  }
}

/** The newest ≤ {@link REPORT_TAIL_BYTES} bytes ending at `totalWritten`: from the ring, else from the file. */
export async function newestBytes(ring: ByteRing, path: string, totalWritten: number): Promise<Uint8Array> {
  const from = Math.max(0, totalWritten - REPORT_TAIL_BYTES);
  const held = ring.read(from, totalWritten);
  if (held) return held;
  try {
    return (await readFileRange(path, from, totalWritten)).bytes;
  } catch {
    return Buffer.alloc(0);
  }
}

/** The completion of a run that broke inside Zuno (a bug, not the command): uncertain. */
export function internalFailure(
  ctx: Pick<BackgroundContext, 'taskID' | 'sessionId' | 'rowId' | 'callId'>,
  outputPath: string,
  err: unknown,
): BgCompletion {
  const why = err instanceof Error ? err.message : String(err);
  const base: ReceiptBase = {
    id: receiptId(ctx.sessionId, ctx.rowId, ctx.callId),
    command: '',
    interpreter: 'bash',
    exitPolicy: 'pipefail',
  };
  const o = notRun(
    'internal_error',
    `UNCERTAIN: the background engine failed (${why}); whether the command ran and what it changed is unknown. Inspect state first; it will not be re-run.`,
    base,
    performance.now(),
  );
  return {
    ...notStartedCompletion(ctx, o, outputPath, undefined),
    state: 'failed',
    outcome: 'uncertain',
    uncertainCause: 'guard_lost',
  };
}
