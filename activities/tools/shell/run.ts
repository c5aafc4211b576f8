/**
 * `runShell`: one shell call end to end (SH1–SH7, TD9, TD10) — validate,
 * analyze the command text, snapshot statically known paths, run it under
 * the guard in its own process group with the stripped environment, settle
 * the receipt, present the output, report observed writes. Self-contained:
 * no Temporal, no projection store.
 */
import { randomBytes } from 'node:crypto';
import type { SandboxPolicy } from '../../../core/sandbox.js';
import { stat } from 'node:fs/promises';
import { performance } from 'node:perf_hooks';
import { join, relative, resolve } from 'node:path';
import { ensureRealDir } from '../state-dir.js';
import { OUTPUT_MAX_BYTES, OUTPUT_MAX_LINES } from '../common.js';
import { openCapture, type Capture } from './capture.js';
import { guardLineMarker, type CommandStatus, type GuardedRun } from './guard-run.js';
import { presentOutput, type PresentedOutput } from './output.js';
import { notRun, prepareRun, startGuarded, type PreparedRun } from './prepare.js';
import { markUnsettled, settleRun, type Settlement } from './receipt.js';
import { renderResult } from './render.js';
import { sealCapture } from './seal.js';
import type { ShellOutcome } from './types.js';
import { changedPaths, snapshotPaths, staticPaths, type PathSnapshot } from './written-paths.js';

import { type ToolProgress, watchFileProgress } from '../progress.js';

export { interpreterArgs } from './prepare.js';

/** Per-call context of {@link runShell}. */
export interface ShellRunContext {
  /** Absolute workspace root; the command runs here (or in `workdir` inside it). */
  workspace: string;
  sessionId: string;
  /** The call's tool-call row id (`tc_<turn>_<step>_<position>`): with the call id it names the receipt (SH3). */
  rowId: string;
  callId: string;
  /** Directory for withheld and binary output artifacts (created if missing), e.g. `<workspace>/.zuno/artifacts`. */
  artifactDir: string;
  /** Cancels the call (TD10): SIGTERM to the group, 2 s window, then SIGKILL. */
  signal?: AbortSignal;
  /** Host environment the command inherits after `ZUNO_*` is stripped (default `process.env`). */
  env?: NodeJS.ProcessEnv;
  /** SH6 host env hook, applied after stripping: the only way to put a value back. */
  envHook?: (env: Record<string, string>) => Record<string, string>;
  /** The host the call runs on, given to the command as `ZUNO_HOST_ID` (issue 33; absent: not set). */
  hostId?: string;
  /** Interpreter (name or path; default `bash`). Outside bash/ksh/zsh the receipt is only `derived` and pipefail is not requested. */
  interpreter?: string;
  /** TD9 `tool_output.max_bytes` (default 51200). */
  maxBytes?: number;
  /** TD9 `tool_output.max_lines` (default 2000). */
  maxLines?: number;
  /** Observer: called once when the command has ended and its status is known (e.g. to heartbeat). */
  onCommandExit?: (status: CommandStatus) => void;
  /** Observer: the capture's size and newest line, about once a second while the command runs. */
  onProgress?: (p: ToolProgress) => void;
  /** The session's sandbox policy (SH10; absent: the auto default — bubblewrap workspace-write when it works). */
  sandbox?: SandboxPolicy;
}

/** How often a running command's capture is measured for `onProgress`, in ms. */
const PROGRESS_EVERY_MS = 1_000;

/** The conventional artifact directory of a workspace: `<workspace>/.zuno/artifacts`. */
export function defaultArtifactDir(workspace: string): string {
  return join(workspace, '.zuno', 'artifacts');
}

/**
 * Runs one `shell` call.
 *
 * @param rawArgs the call's arguments (validated again against `shellArgs`).
 * @param ctx see {@link ShellRunContext}.
 * @returns a settled {@link ShellOutcome}; never throws for anything the
 *   command or the guard does. `error` outcomes mean nothing ran
 *   (`invalid_arguments`, `path_outside_workspace`/`not_found`/`not_a_directory`
 *   for `workdir`, `cancelled` before start, `sandbox_unavailable` (an
 *   explicit sandbox policy this host cannot honour), `output_capture_failed`,
 *   `background_not_routed` for `background: true`, which belongs to
 *   `runBackground` in activities/tools/bg/).
 */
export async function runShell(rawArgs: unknown, ctx: ShellRunContext): Promise<ShellOutcome> {
  const started = performance.now();
  const prepared = await prepareRun(rawArgs, ctx, started);
  if (!prepared.ok) return prepared.outcome;
  const { prep } = prepared;
  const { args, base, parsed } = prep;
  if (args.background === true)
    return notRun(
      'background_not_routed',
      'background: true runs through the background engine (runBackground), not the foreground shell; nothing ran.',
      base,
      started,
    );
  const snapshot: PathSnapshot = await snapshotPaths(
    ctx.workspace,
    prep.cwd,
    parsed.ok ? staticPaths(parsed.root) : [],
  );
  const capture = await captureFile(ctx);
  if (typeof capture === 'string') {
    return notRun(
      'output_capture_failed',
      `Could not create the output capture file in ${ctx.artifactDir} (${capture}); nothing ran.`,
      base,
      started,
    );
  }
  const nonce = randomBytes(16).toString('hex');
  const { run, endBytes } = await runCaptured(prep, ctx, capture, nonce);
  const read = await readBack(prep, ctx, capture.path, endBytes, nonce, run);
  const writtenPaths = await changedPaths(snapshot);
  return shellOutcome(prep, run, read, writtenPaths, started);
}

/** The call's output capture file (inside the workspace its directory must be a real one), or why it cannot be made. */
async function captureFile(ctx: ShellRunContext): Promise<Capture | string> {
  try {
    // Inside the workspace the artifact directory must be a real one (a symlinked .zuno would hide the output).
    const inside = !relative(resolve(ctx.workspace), resolve(ctx.artifactDir)).startsWith('..');
    if (inside) await ensureRealDir(resolve(ctx.workspace), resolve(ctx.artifactDir));
    return await openCapture(ctx.artifactDir, ctx.sessionId, ctx.callId);
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

/** Runs the command under the guard with its output in the capture file; `endBytes`: the file's size when it ended. */
async function runCaptured(
  prep: PreparedRun,
  ctx: ShellRunContext,
  capture: Capture,
  nonce: string,
): Promise<{ run: GuardedRun; endBytes: number | undefined }> {
  try {
    const run = await watchFileProgress(
      capture.path,
      ctx.onProgress,
      PROGRESS_EVERY_MS,
      startGuarded(prep, ctx, { outFd: capture.handle.fd, nonce }),
    );
    // What the call produced is what the file held when it ended; an escaped process may append more.
    const endBytes = (await capture.handle.stat().catch(() => undefined))?.size;
    return { run, endBytes };
  } finally {
    await capture.handle.close().catch(() => {});
  }
}

/** What reading the output back settled: the receipt, the model-facing output, its size, or why it failed. */
interface ReadBack {
  settlement: Settlement;
  presented: PresentedOutput;
  bytes: number;
  lines: number;
  captureError?: string;
}

/** Seals the capture at `endBytes`, settles the run (SH4 guard line) and presents its output within the caps. */
async function readBack(
  prep: PreparedRun,
  ctx: ShellRunContext,
  capturePath: string,
  endBytes: number | undefined,
  nonce: string,
  run: GuardedRun,
): Promise<ReadBack> {
  const settle = (guardLineSeen: boolean) =>
    settleRun({
      ...prep.base,
      analysis: prep.analysis,
      status: run.status,
      ...(run.stop ? { stop: run.stop } : {}),
      guardLineSeen,
    });
  let settlement: Settlement | undefined;
  let bytes = 0;
  let lines = 0;
  let rawPath = capturePath;
  try {
    const sealed = await sealCapture(capturePath, endBytes ?? (await stat(capturePath)).size, guardLineMarker(nonce));
    rawPath = sealed.path;
    const { stats } = sealed;
    bytes = stats.bytes;
    lines = stats.lines;
    settlement = settle(stats.markerSeen);
    const presented = await presentOutput({
      capturePath: sealed.path,
      stats,
      artifactDir: ctx.artifactDir,
      sessionId: ctx.sessionId,
      callId: ctx.callId,
      maxBytes: ctx.maxBytes ?? OUTPUT_MAX_BYTES,
      maxLines: ctx.maxLines ?? OUTPUT_MAX_LINES,
      acceptLarge: prep.args.accept_large_output === true,
    });
    return { settlement, presented, bytes, lines };
  } catch (err) {
    const captureError = err instanceof Error ? err.message : String(err);
    const presented = {
      body: `(the output could not be read back: ${captureError}; the raw capture file is ${rawPath})`,
      outputPaths: [rawPath],
    };
    return { settlement: settlement ?? settle(false), presented, bytes, lines, captureError };
  }
}

/** The call's settled outcome: `uncertain` when the run or the read-back could not settle it. */
function shellOutcome(
  prep: PreparedRun,
  run: GuardedRun,
  read: ReadBack,
  writtenPaths: string[],
  started: number,
): ShellOutcome {
  const { timeoutMs } = prep;
  const { presented, captureError } = read;
  const { ending, receipt } = read.settlement;
  let { uncertainCause } = read.settlement;
  if (captureError !== undefined) {
    markUnsettled(receipt, captureError);
    uncertainCause = 'capture_failed';
  }
  const rendered = renderResult({
    ending,
    receipt,
    timeoutMs,
    writtenPaths,
    body: presented.body,
    sandbox: prep.sandbox,
  });
  const output =
    captureError === undefined
      ? rendered
      : `UNCERTAIN: the output could not be settled after the command ended; inspect state first.\n${rendered}`;
  const status = run.status;
  return {
    outcome: uncertainCause ? 'uncertain' : 'ok',
    ...(uncertainCause ? { uncertainCause } : {}),
    output,
    receipt,
    ...(status && status.kind !== 'signaled' ? { exitCode: status.code } : {}),
    ...(status?.kind === 'signaled' ? { signal: status.signal } : {}),
    ...(run.stop ? { stop: run.stop } : {}),
    ...(ending.kind === 'stopped' && ending.stop.reason === 'timeout' ? { timeLimitMs: timeoutMs } : {}),
    writtenPaths,
    outputBytes: read.bytes,
    outputLines: read.lines,
    outputPaths: presented.outputPaths,
    ...(presented.withheldOutput ? { withheldOutput: presented.withheldOutput } : {}),
    ...(presented.binaryOutput ? { binaryOutput: presented.binaryOutput } : {}),
    durationMs: Math.round(performance.now() - started),
  };
}
