/**
 * The steps every shell run shares, foreground (`runShell`) or background
 * (`runBackground`, activities/tools/bg/): validate the arguments, resolve
 * the working directory, read and analyze the command text (SH1, SH2), choose
 * the sandbox (SH10), and start the command behind the guard with the
 * stripped environment (SH4–SH6) — inside bubblewrap when the plan says so.
 */
import { performance } from 'node:perf_hooks';
import { resolve } from 'node:path';
import { shellArgs, shellTimeoutMs, type ShellArgs, type ShellExitPolicy } from '../../../core/tools/shell.js';
import type { SandboxPolicy } from '../../../core/sandbox.js';
import { formatArgIssues } from '../../../core/tools/registry.js';
import { resolveWorkspacePath } from '../paths.js';
import { KNOWN_PIPEFAIL_SHELLS, analyzeParsed } from './analyze.js';
import { shellEnv } from './env.js';
import { runGuarded, type CommandStatus, type GuardedRun } from './guard-run.js';
import { receiptId } from './receipt.js';
import { receiptLine } from './render.js';
import { planSandbox, type SandboxPlan } from './sandbox.js';
import { parseCommand, type ParseResult } from './syntax.js';
import type { CommandAnalysis, ShellOutcome, VerificationReceipt } from './types.js';
import { programBase } from './words.js';
import type { ErrorCode } from '../../../core/error-codes.js';

/** The receipt fields known before anything runs. */
export type ReceiptBase = Omit<VerificationReceipt, 'verdict' | 'authority' | 'limitations'>;

/** What {@link prepareRun} needs from the caller's context. */
export interface PrepareContext {
  /** Absolute workspace root. */
  workspace: string;
  sessionId: string;
  /** The call's tool-call row id (`tc_<turn>_<step>_<position>`): with the call id it names the receipt (SH3). */
  rowId: string;
  callId: string;
  /** Interpreter (name or path; default `bash`). */
  interpreter?: string;
  signal?: AbortSignal;
  /** The session's sandbox policy (SH10; absent: the auto default). */
  sandbox?: SandboxPolicy;
}

/** A validated call, ready to start. */
export interface PreparedRun {
  args: ShellArgs;
  base: ReceiptBase;
  /** Interpreter as given (name or path). */
  interpreter: string;
  /** Absolute directory the command runs in. */
  cwd: string;
  parsed: ParseResult;
  analysis: CommandAnalysis;
  /** Hard limit, in milliseconds ({@link shellTimeoutMs}). */
  timeoutMs: number;
  /** How the run is confined (its facts are also on `base.sandbox`). */
  sandbox: SandboxPlan;
}

/** How the command gets its environment and is observed while it runs. */
export interface StartContext {
  /** Host environment before `ZUNO_*` stripping (default `process.env`). */
  env?: NodeJS.ProcessEnv;
  /** SH6 host env hook, applied after stripping. */
  envHook?: (env: Record<string, string>) => Record<string, string>;
  /** The host the call runs on, given to the command as `ZUNO_HOST_ID` (issue 33; absent: not set). */
  hostId?: string;
  signal?: AbortSignal;
  onCommandExit?: (status: CommandStatus) => void;
}

/** Interpreter arguments for an exit policy (SH1); pipefail only where it is known to work. */
export function interpreterArgs(interpreter: string, policy: ShellExitPolicy, command: string): string[] {
  const known = KNOWN_PIPEFAIL_SHELLS.has(programBase(interpreter));
  const opts: string[] = [];
  if (policy === 'all') opts.push('-e');
  if (known && policy !== 'last') opts.push('-o', 'pipefail');
  return [...opts, '-c', command];
}

/**
 * The `error` outcome of a call where nothing ran: the message, then the
 * receipt line of an `unknown` receipt with no authority.
 *
 * @param started `performance.now()` when the call began (for `durationMs`).
 */
export function notRun(errorCode: ErrorCode, message: string, base: ReceiptBase, started: number): ShellOutcome {
  const receipt: VerificationReceipt = { ...base, verdict: 'unknown', authority: 'none', limitations: [] };
  return {
    outcome: 'error',
    errorCode,
    output: `${message}\n${receiptLine(receipt)}`,
    receipt,
    writtenPaths: [],
    outputBytes: 0,
    outputLines: 0,
    outputPaths: [],
    durationMs: Math.round(performance.now() - started),
  };
}

/**
 * Validates a call and reads its command text.
 *
 * @param rawArgs the call's arguments (validated against `shellArgs`).
 * @param started `performance.now()` when the call began.
 * @returns `{ ok: true, prep }`, or `{ ok: false, outcome }` with an `error`
 *   {@link ShellOutcome} (nothing ran): `invalid_arguments`, `cancelled`
 *   (signal already aborted), `path_outside_workspace`/`not_found`/
 *   `not_a_directory` for `workdir`, `sandbox_unavailable` (the policy asks
 *   for confinement this host cannot give, SB1). Never throws.
 */
export async function prepareRun(
  rawArgs: unknown,
  ctx: PrepareContext,
  started: number,
): Promise<{ ok: true; prep: PreparedRun } | { ok: false; outcome: ShellOutcome }> {
  const interpreter = ctx.interpreter ?? 'bash';
  const parsedArgs = shellArgs.safeParse(rawArgs);
  const command = parsedArgs.success
    ? parsedArgs.data.command
    : String((rawArgs as { command?: unknown })?.command ?? '');
  const exitPolicy: ShellExitPolicy = parsedArgs.success ? (parsedArgs.data.exitPolicy ?? 'pipefail') : 'pipefail';
  const base: ReceiptBase = {
    id: receiptId(ctx.sessionId, ctx.rowId, ctx.callId),
    command,
    interpreter: programBase(interpreter),
    exitPolicy,
  };
  const fail = (code: ErrorCode, message: string) => ({
    ok: false as const,
    outcome: notRun(code, message, base, started),
  });
  if (!parsedArgs.success)
    return fail('invalid_arguments', `Invalid arguments for tool "shell":\n${formatArgIssues(parsedArgs.error)}`);
  const args = parsedArgs.data;
  if (ctx.signal?.aborted) return fail('cancelled', 'The call was cancelled before the command started; nothing ran.');

  let cwd = resolve(ctx.workspace);
  if (args.workdir !== undefined) {
    const r = await resolveWorkspacePath(ctx.workspace, args.workdir);
    if (!r.ok) return fail(r.result.errorCode ?? 'invalid_arguments', `workdir: ${r.result.output} Nothing ran.`);
    if (!r.value.stat.isDirectory())
      return fail('not_a_directory', `workdir "${args.workdir}" is not a directory; nothing ran.`);
    cwd = r.value.abs;
  }
  const decision = await planSandbox(ctx.sandbox, { workspace: ctx.workspace, cwd });
  if (!decision.ok) return fail(decision.errorCode, decision.message);
  const sandbox = decision.plan;
  const parsed = await parseCommand(command);
  const analysis = analyzeParsed(parsed, exitPolicy, interpreter);
  return {
    ok: true,
    prep: {
      args,
      base: { ...base, sandbox: sandbox.facts },
      interpreter,
      cwd,
      parsed,
      analysis,
      timeoutMs: shellTimeoutMs(args),
      sandbox,
    },
  };
}

/**
 * Starts a prepared command behind the guard in its own process group, its
 * stdout and stderr going to `outFd`, and waits until the group is gone
 * (SH4, SH5, TD10); the guard runs inside bubblewrap when `prep.sandbox`
 * has a helper (SH10). Never throws.
 *
 * @param io.nonce this run's secret token (the guard's diagnostic line carries it).
 * @param io.onStart called with the guard's pid (= its process group id) once it is spawned.
 */
export function startGuarded(
  prep: PreparedRun,
  ctx: StartContext,
  io: { outFd: number; nonce: string; onStart?: (guardPid: number) => void },
): Promise<GuardedRun> {
  return runGuarded({
    file: prep.interpreter,
    args: interpreterArgs(prep.interpreter, prep.base.exitPolicy, prep.base.command),
    cwd: prep.cwd,
    env: shellEnv(ctx.env ?? process.env, ctx.envHook, ctx.hostId),
    nonce: io.nonce,
    outFd: io.outFd,
    timeoutMs: prep.timeoutMs,
    ...(ctx.signal ? { signal: ctx.signal } : {}),
    ...(ctx.onCommandExit ? { onCommandExit: ctx.onCommandExit } : {}),
    ...(io.onStart ? { onStart: io.onStart } : {}),
    ...(prep.sandbox.bwrap ? { sandbox: { bwrap: prep.sandbox.bwrap.file, args: prep.sandbox.bwrap.args } } : {}),
  });
}
