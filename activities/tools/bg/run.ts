/**
 * `runBackground`: one background shell command end to end (BG2, SH1–SH6,
 * SH9). The same engine as the foreground shell (argument validation, command
 * analysis, the guard in its own process group, `ZUNO_*` stripping, receipts,
 * SH5 cancellation), but the output goes to the task's own file and stays
 * there whole, the newest 2 MiB are tailed into memory while it runs, and the
 * result is a {@link BgCompletion} with a short report instead of the output.
 * When the command ends the file is sealed in place (`shell/seal.ts`) at the
 * size it had then, so a process that escaped the group and still holds the
 * file cannot change the finished task's output or its `totalWritten`.
 * SH7 written paths are not reported for background commands.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, open, stat, type FileHandle } from 'node:fs/promises';
import { ensureRealDir } from '../state-dir.js';
import { resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { guardLineMarker, type GuardedRun } from '../shell/guard-run.js';
import { notRun, prepareRun, startGuarded, type PreparedRun, type ReceiptBase } from '../shell/prepare.js';
import { markUnsettled, receiptId, settleRun, type Settlement } from '../shell/receipt.js';
import { statusLine } from '../shell/render.js';
import { sealCapture } from '../shell/seal.js';
import type { BackgroundContext } from './context.js';
import { internalFailure, newestBytes, notStartedCompletion, settledState, settledStatus } from './completion.js';
import { getLiveTask, registerLiveTask, startTail, unregisterLiveTask, type LiveTask, type Tail } from './live.js';
import { buildReport } from './report.js';
import { ByteRing } from './ring.js';
import { isValidTaskId, sessionTasksDir, StatusWriter, taskDir, taskOutputPath, writeStatus } from './store.js';
import type { BgCompletion, BgStatusStart } from './types.js';

export type { BackgroundContext } from './context.js';
import { viewTask } from './view.js';

function withBackground(rawArgs: unknown): unknown {
  return rawArgs && typeof rawArgs === 'object' && !Array.isArray(rawArgs)
    ? { ...(rawArgs as Record<string, unknown>), background: true }
    : rawArgs;
}

interface TaskPaths {
  dir: string;
  outputPath: string;
}

/** What the run needs of its live registration. */
interface TaskHandle {
  ring: ByteRing;
  controller: AbortController;
  setCatchUp(f: () => Promise<void>): void;
  /** Drops the live registration (the task directory belongs to an earlier attempt). */
  release(): void;
}

/** A task directory that already exists: never run again; report what is known. */
async function existingTask(ctx: BackgroundContext, paths: TaskPaths, base: ReceiptBase): Promise<BgCompletion> {
  for (;;) {
    const view = await viewTask(ctx.workspace, ctx.sessionId, ctx.taskID, { ignoreLive: true });
    if (view?.completion) return view.completion;
    if (!view || ctx.signal?.aborted) {
      const why = view
        ? `Background task ${ctx.taskID} is run by another process (pid ${view.status?.workerPid}); this attempt only observed it and stopped when it was cancelled. Check it with bg list.`
        : `Background task ${ctx.taskID} was claimed earlier but has no status; it is not run again.`;
      const o = notRun('task_exists', why, base, performance.now());
      return {
        ...notStartedCompletion(ctx, o, paths.outputPath, undefined),
        state: 'lost',
        outcome: 'uncertain',
        uncertainCause: 'lost',
      };
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Runs the prepared command with its output in the task's file, tailing it live. */
async function execute(
  ctx: BackgroundContext,
  prep: PreparedRun,
  paths: TaskPaths,
  task: TaskHandle,
  started: number,
  startedAtMs: number,
): Promise<BgCompletion> {
  const purpose = prep.args.backgroundPurpose;
  const start: BgStatusStart = {
    taskID: ctx.taskID,
    sessionId: ctx.sessionId,
    callId: ctx.callId,
    command: prep.base.command,
    ...(purpose ? { backgroundPurpose: purpose } : {}),
    receiptBase: prep.base,
    timeoutMs: prep.timeoutMs,
    startedAtMs,
    workerPid: process.pid,
  };
  const statuses = new StatusWriter(paths.dir);
  const storage = await openStorage(ctx, prep, paths, task, start, statuses, started);
  if ('state' in storage) return storage;
  const nonce = randomBytes(16).toString('hex');
  const { run, endBytes } = await runInTask(ctx, prep, task, storage.out, nonce, start, statuses);
  await storage.tail.stop(endBytes);
  const settled = await settleTask(prep, paths, run, endBytes ?? task.ring.end, endBytes, nonce);
  const completion = await completionOf(ctx, prep, paths, task, run, settled, started);
  await statuses.write(settledStatus(start, completion, Date.now()));
  return completion;
}

/**
 * Creates the task's output file, writes its `running` status and starts the
 * live tail; the `task_storage_failed` completion (nothing ran) when any of
 * them fails.
 */
async function openStorage(
  ctx: BackgroundContext,
  prep: PreparedRun,
  paths: TaskPaths,
  task: TaskHandle,
  start: BgStatusStart,
  statuses: StatusWriter,
  started: number,
): Promise<{ out: FileHandle; tail: Tail } | BgCompletion> {
  const storageFailed = (why: string) =>
    notStartedCompletion(
      ctx,
      notRun(
        'task_storage_failed',
        `Could not set up the task's storage in ${paths.dir} (${why}); nothing ran.`,
        prep.base,
        started,
      ),
      paths.outputPath,
      prep.args.backgroundPurpose,
    );
  let out: FileHandle;
  try {
    out = await open(paths.outputPath, 'wx', 0o600);
  } catch (err) {
    return storageFailed(err instanceof Error ? err.message : String(err));
  }
  await statuses.write({ ...start, state: 'running' });
  let tail: Tail | undefined;
  if (statuses.error === undefined) {
    try {
      tail = await startTail(paths.outputPath, task.ring, ctx.onProgress);
      task.setCatchUp(tail.catchUp);
    } catch (err) {
      statuses.error = err instanceof Error ? err.message : String(err);
    }
  }
  if (statuses.error !== undefined || !tail) {
    await out.close().catch(() => {});
    const c = storageFailed(statuses.error ?? 'no tail');
    await statuses.write(settledStatus(start, c, Date.now()));
    return c;
  }
  return { out, tail };
}

/** Runs the command under the guard into `out` (closed after); `endBytes`: the file's size when the command ended. */
async function runInTask(
  ctx: BackgroundContext,
  prep: PreparedRun,
  task: TaskHandle,
  out: FileHandle,
  nonce: string,
  start: BgStatusStart,
  statuses: StatusWriter,
): Promise<{ run: GuardedRun; endBytes: number | undefined }> {
  try {
    const run = await startGuarded(
      prep,
      {
        ...(ctx.env ? { env: ctx.env } : {}),
        ...(ctx.envHook ? { envHook: ctx.envHook } : {}),
        ...(ctx.hostId !== undefined ? { hostId: ctx.hostId } : {}),
        signal: task.controller.signal,
        ...(ctx.onCommandExit ? { onCommandExit: ctx.onCommandExit } : {}),
      },
      {
        outFd: out.fd,
        nonce,
        onStart: (guardPid) => {
          start.guardPid = guardPid;
          void statuses.write({ ...start, state: 'running' });
        },
      },
    );
    // The task's output is what the file held when the command ended; an escaped process may append more.
    const endBytes = (await out.stat().catch(() => undefined))?.size;
    return { run, endBytes };
  } finally {
    await out.close().catch(() => {});
  }
}

/** How the task's run settled: its receipt, the output size, and why reading the output failed (if it did). */
interface TaskSettled {
  settlement: Settlement;
  totalWritten: number;
  captureError?: string;
}

/** Seals the output in place at the size it had when the command ended and settles the run (SH4 guard line). */
async function settleTask(
  prep: PreparedRun,
  paths: TaskPaths,
  run: GuardedRun,
  written: number,
  endBytes: number | undefined,
  nonce: string,
): Promise<TaskSettled> {
  const settleInput = {
    ...prep.base,
    analysis: prep.analysis,
    status: run.status,
    ...(run.stop ? { stop: run.stop } : {}),
  };
  let totalWritten = written;
  try {
    totalWritten = endBytes ??= (await stat(paths.outputPath)).size;
    // Sealed in place: readers of the output path get exactly these bytes from now on (a finished task's output never changes).
    const { stats } = await sealCapture(paths.outputPath, endBytes, guardLineMarker(nonce), { inPlace: true });
    return { settlement: settleRun({ ...settleInput, guardLineSeen: stats.markerSeen }), totalWritten };
  } catch (err) {
    const captureError = err instanceof Error ? err.message : String(err);
    const settlement = settleRun({ ...settleInput, guardLineSeen: false });
    markUnsettled(settlement.receipt, captureError);
    settlement.uncertainCause = 'capture_failed';
    return { settlement, totalWritten, captureError };
  }
}

/** The task's completion record, with its short report (the newest output bytes as its tail). */
async function completionOf(
  ctx: BackgroundContext,
  prep: PreparedRun,
  paths: TaskPaths,
  task: TaskHandle,
  run: GuardedRun,
  { settlement, totalWritten, captureError }: TaskSettled,
  started: number,
): Promise<BgCompletion> {
  const purpose = prep.args.backgroundPurpose;
  const { ending, receipt, uncertainCause } = settlement;
  const state = captureError === undefined ? settledState(ending) : 'failed';
  const status = run.status;
  const durationMs = Math.round(performance.now() - started);
  const tailBytes = await newestBytes(task.ring, paths.outputPath, totalWritten);
  return {
    taskID: ctx.taskID,
    state,
    ...(status && status.kind !== 'signaled' ? { exitCode: status.code } : {}),
    ...(status?.kind === 'signaled' ? { signal: status.signal } : {}),
    receipt,
    totalWritten,
    durationMs,
    outcome: uncertainCause ? 'uncertain' : 'ok',
    ...(uncertainCause ? { uncertainCause } : {}),
    outputPath: paths.outputPath,
    ...(purpose ? { backgroundPurpose: purpose } : {}),
    report: buildReport({
      taskID: ctx.taskID,
      command: prep.base.command,
      state,
      statusLine:
        captureError === undefined
          ? statusLine(ending, prep.timeoutMs)
          : `UNCERTAIN: the output could not be settled after the command ended (${captureError}); inspect state first.`,
      receipt,
      totalWritten,
      durationMs,
      tail: tailBytes,
      remoteObserver: purpose === 'remoteObserver',
    }),
  };
}

/** Claims the task directory, prepares the call and runs it. */
async function claimAndRun(rawArgs: unknown, ctx: BackgroundContext, task: TaskHandle): Promise<BgCompletion> {
  const started = performance.now();
  const startedAtMs = Date.now();
  const paths = {
    dir: taskDir(ctx.workspace, ctx.sessionId, ctx.taskID),
    outputPath: taskOutputPath(ctx.workspace, ctx.sessionId, ctx.taskID),
  };
  const prepared = await prepareRun(withBackground(rawArgs), { ...ctx, signal: task.controller.signal }, started);
  const base = prepared.ok ? prepared.prep.base : prepared.outcome.receipt;
  const purpose = prepared.ok ? prepared.prep.args.backgroundPurpose : undefined;
  try {
    await ensureRealDir(resolve(ctx.workspace), sessionTasksDir(ctx.workspace, ctx.sessionId));
    await mkdir(paths.dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') {
      task.release();
      return existingTask(ctx, paths, base);
    }
    const why = err instanceof Error ? err.message : String(err);
    const o = notRun('task_storage_failed', `Could not create ${paths.dir} (${why}); nothing ran.`, base, started);
    return notStartedCompletion(ctx, o, paths.outputPath, purpose);
  }
  if (!prepared.ok) {
    const c = notStartedCompletion(ctx, prepared.outcome, paths.outputPath, purpose);
    const start: BgStatusStart = {
      taskID: ctx.taskID,
      sessionId: ctx.sessionId,
      callId: ctx.callId,
      command: base.command,
      receiptBase: { id: base.id, command: base.command, interpreter: base.interpreter, exitPolicy: base.exitPolicy },
      startedAtMs,
      workerPid: process.pid,
    };
    await writeStatus(paths.dir, settledStatus(start, c, Date.now())).catch(() => {});
    return c;
  }
  return execute(ctx, prepared.prep, paths, task, started, startedAtMs);
}

/**
 * Runs one background shell command (BG2, SH1–SH6, SH9).
 *
 * Storage: `<workspace>/.zuno/bg/<session key>/<taskID>/output` (every raw
 * byte, stdout and stderr interleaved) and `status.json` (atomic; `running`
 * with `guardPid`/`workerPid` at start, the settled completion at the end).
 * While it runs the task is live in this process: `bg` reads its newest
 * 2 MiB from memory, and `bg cancel` stops it.
 *
 * Idempotent per task: a task directory that already exists is never run
 * again; its stored completion (or `lost`) is returned, and a call for a task
 * live in this process joins it.
 *
 * @param rawArgs `shell` arguments; `background: true` is implied (timeout
 *   default 1 h, at most 24 h).
 * @param ctx see {@link BackgroundContext}; aborting `ctx.signal` cancels the task (SH5).
 * @returns the settled {@link BgCompletion}. Never throws for anything the
 *   command does: nothing ran → `not_started` (`invalid_task_id`,
 *   `invalid_arguments`, a bad `workdir`, `cancelled` before start,
 *   `task_storage_failed`); guard failure or loss → `failed` (uncertain);
 *   stopped while running → `cancelled` / `timed_out` (uncertain, receipt
 *   `unknown`); otherwise `exited`, with the receipt marked `cancelled` when a
 *   cancel arrived after the command had exited.
 */
export async function runBackground(rawArgs: unknown, ctx: BackgroundContext): Promise<BgCompletion> {
  if (!isValidTaskId(ctx.taskID)) {
    const base: ReceiptBase = {
      id: receiptId(ctx.sessionId, ctx.rowId, ctx.callId),
      command: String((rawArgs as { command?: unknown } | null)?.command ?? ''),
      interpreter: 'bash',
      exitPolicy: 'pipefail',
    };
    const o = notRun(
      'invalid_task_id',
      `Invalid background task id ${JSON.stringify(ctx.taskID)} (expected bg_ followed by 1–64 of A-Z a-z 0-9 _ -); nothing ran.`,
      base,
      performance.now(),
    );
    return notStartedCompletion(ctx, o, '', undefined);
  }
  const existing = getLiveTask(ctx.sessionId, ctx.taskID);
  if (existing) return existing.done;

  const controller = new AbortController();
  const ring = new ByteRing();
  let catchUp: () => Promise<void> = () => Promise.resolve();
  let resolveDone!: (c: BgCompletion) => void;
  const done = new Promise<BgCompletion>((r) => (resolveDone = r));
  const live: LiveTask = {
    taskID: ctx.taskID,
    sessionId: ctx.sessionId,
    ring,
    outputPath: taskOutputPath(ctx.workspace, ctx.sessionId, ctx.taskID),
    done,
    cancel: () => controller.abort(),
    catchUp: () => catchUp(),
  };
  registerLiveTask(live);
  const onAbort = (): void => controller.abort();
  if (ctx.signal?.aborted) controller.abort();
  ctx.signal?.addEventListener('abort', onAbort, { once: true });
  let completion: BgCompletion;
  try {
    completion = await claimAndRun(rawArgs, ctx, {
      ring,
      controller,
      setCatchUp: (f) => (catchUp = f),
      release: () => unregisterLiveTask(live),
    });
  } catch (err) {
    completion = internalFailure(ctx, live.outputPath, err);
  } finally {
    ctx.signal?.removeEventListener('abort', onAbort);
  }
  live.completion = completion;
  unregisterLiveTask(live);
  resolveDone(completion);
  return completion;
}
