/**
 * The shell engine (SH1–SH7, TD9, TD10), self-contained: no Temporal, no
 * projection store. `runShell` runs one call; `runShellTool` adapts it to the
 * common `ToolResult` shape of activities/tools. The model-facing
 * description is `activities/tools/shell.txt`.
 */
import type { ShellArgs } from '../../../core/tools/shell.js';
import type { ToolResult } from '../../../core/tools/types.js';
import type { ToolContext } from '../context.js';
import type { ToolActivityFacts, ToolBody } from '../tool-body.js';
import { defaultArtifactDir, runShell, type ShellRunContext } from './run.js';
import type { ShellOutcome } from './types.js';
import { backgroundStart, isBackgroundCall } from './background.js';

export { analyzeCommand, analyzeParsed, KNOWN_PIPEFAIL_SHELLS } from './analyze.js';
export { shellEnv, isZunoPrivate } from './env.js';
export { COOPERATIVE_WINDOW_MS, type CommandStatus } from './guard-run.js';
export { receiptId } from './receipt.js';
export { planSandbox, SANDBOX_UNAVAILABLE, type SandboxPlan } from './sandbox.js';
export { BWRAP_ENV, BWRAP_INSTALL_HINT, discoverBubblewrap } from './sandbox-probe.js';
export { receiptLine } from './render.js';
export { defaultArtifactDir, interpreterArgs, runShell, type ShellRunContext } from './run.js';
export {
  notRun,
  prepareRun,
  startGuarded,
  type PreparedRun,
  type PrepareContext,
  type ReceiptBase,
  type StartContext,
} from './prepare.js';
export type * from './types.js';
export { backgroundStart, isBackgroundCall } from './background.js';

/**
 * Maps a {@link ShellOutcome} to a `ToolResult`: `isError` only for `error`
 * outcomes (nothing ran); a failing command is a normal result whose verdict
 * is in the receipt. `data` carries the typed facts for the tool part:
 * `receipt`, `uncertain` (+ `uncertainCause`), `exitCode`, `signal`, `stop`,
 * `writtenPaths`, `outputPaths`, `withheldOutput`, `binaryOutput`,
 * `outputBytes`, `outputLines`, `durationMs`.
 */
export function shellToolResult(o: ShellOutcome): ToolResult {
  const data: Record<string, unknown> = {
    receipt: o.receipt,
    uncertain: o.outcome === 'uncertain',
    writtenPaths: o.writtenPaths,
    outputPaths: o.outputPaths,
    outputBytes: o.outputBytes,
    outputLines: o.outputLines,
    durationMs: o.durationMs,
  };
  if (o.uncertainCause) data.uncertainCause = o.uncertainCause;
  if (o.exitCode !== undefined) data.exitCode = o.exitCode;
  if (o.signal) data.signal = o.signal;
  if (o.stop) data.stop = o.stop;
  if (o.timeLimitMs !== undefined) data.timeLimitMs = o.timeLimitMs;
  if (o.withheldOutput) data.withheldOutput = o.withheldOutput;
  if (o.binaryOutput) data.binaryOutput = o.binaryOutput;
  return o.outcome === 'error'
    ? { output: o.output, isError: true, errorCode: o.errorCode ?? 'shell_error', data }
    : { output: o.output, isError: false, ...(o.outcome === 'uncertain' ? { uncertain: true } : {}), data };
}

/**
 * `shell` for the activity tool table: runs with the workspace's
 * `.zuno/artifacts` as artifact directory and the default TD9 caps. A call
 * with `background: true` is only checked and answered with its task id
 * (`ctx.backgroundTaskID`, see ./background.ts); the session runs it.
 * `extra` overrides any {@link ShellRunContext} field (caps from config, env hook, …).
 */
export async function runShellTool(
  args: ShellArgs,
  ctx: ToolContext,
  extra: Partial<ShellRunContext> = {},
): Promise<ToolResult> {
  if (isBackgroundCall(args))
    return backgroundStart(
      args,
      {
        workspace: ctx.workspace,
        sessionId: ctx.sessionId,
        rowId: ctx.rowId,
        callId: ctx.callId,
        ...(ctx.signal ? { signal: ctx.signal } : {}),
        ...(ctx.sandbox ? { sandbox: ctx.sandbox } : {}),
      },
      ctx.backgroundTaskID,
      shellToolResult,
    );
  const outcome = await runShell(args, {
    workspace: ctx.workspace,
    sessionId: ctx.sessionId,
    rowId: ctx.rowId,
    callId: ctx.callId,
    artifactDir: defaultArtifactDir(ctx.workspace),
    ...(ctx.signal ? { signal: ctx.signal } : {}),
    ...(ctx.onProgress ? { onProgress: ctx.onProgress } : {}),
    ...(ctx.sandbox ? { sandbox: ctx.sandbox } : {}),
    ...(ctx.host !== undefined ? { hostId: ctx.host } : {}),
    ...extra,
  });
  return shellToolResult(outcome);
}

/** The outcome-deciding facts of a shell result (exit code, signal, time limit hit, receipt verdict, withheld) for the activity result. */
function shellActivityFacts(r: ToolResult): ToolActivityFacts {
  const d = r.data ?? {};
  const receipt = d.receipt as { verdict?: unknown } | undefined;
  const facts: ToolActivityFacts = {};
  if (typeof d.exitCode === 'number') facts.exitCode = d.exitCode;
  if (typeof d.signal === 'string') facts.signal = d.signal;
  if (typeof d.timeLimitMs === 'number') facts.timeLimitMs = d.timeLimitMs;
  if (typeof receipt?.verdict === 'string') facts.verdict = receipt.verdict;
  if (d.withheldOutput) facts.withheld = true;
  if ((facts.exitCode !== undefined && facts.exitCode !== 0) || facts.verdict === 'failed' || facts.signal) {
    facts.failed = true;
  }
  return facts;
}

/**
 * The `shell` body: withholds its own output as raw bytes (TD9, never a
 * decoded copy: `output: 'own'`); a `background: true` start hands out a
 * task id the workflow then runs (BG6); the activity result carries exit
 * code, signal and receipt verdict.
 */
export const shellTool: ToolBody<ShellArgs> = {
  run: (args, ctx) => runShellTool(args, ctx),
  output: 'own',
  backgroundFacts: (r) =>
    r.data?.background === true && typeof r.data.taskID === 'string'
      ? { taskID: r.data.taskID, started: true }
      : undefined,
  activityFacts: shellActivityFacts,
};
