/**
 * One task end to end: its verified tarball, a fresh workspace with the bug
 * reintroduced, one attempt (model or recorded trajectory), the checker's
 * verdict and the attempt's cost. What `npm run eval` and the tests share.
 */
import { join } from 'node:path';
import { type Driver, runAttempt } from './drive.js';
import { attemptCost } from './metrics.js';
import { packageTarball, type PackSource } from './packs.js';
import type { EvalTask } from './tasks/index.js';
import type { Attempt } from './types.js';
import { prepareWorkspace } from './workspace.js';
import type { ZunoEnv } from './zuno.js';

/** The outcome of one task, as printed and as written to the report. */
export interface TaskOutcome {
  id: string;
  mode: string;
  pass: boolean;
  reasons: string[];
  /** Tokens and tool calls from the stored record; null when it could not be read. */
  tokens: number | null;
  toolCalls: number | null;
  /** Wall time of the attempt's command (ms). */
  wallMs: number;
  exitCode: number | null;
  sessionId: string | null;
  goalId: string | null;
  councilId: string | null;
  workspace: string;
}

/** Where a task runs: its packages, the folder its workspace is made in, the driver and the zuno home. */
export interface TaskRunOptions {
  packs: PackSource;
  workRoot: string;
  driver: Driver;
  z: ZunoEnv;
}

/** The outcome of an attempt that the checker judged (its error, if it threw, is a failing reason). */
async function judge(task: EvalTask, ws: string, attempt: Attempt, z: ZunoEnv) {
  try {
    return await task.check({ task: task.def, ws, attempt, z });
  } catch (err) {
    return { pass: false, reasons: [`the checker could not read the record: ${(err as Error).message}`] };
  }
}

/** A typed error of the command line itself: the model, its provider or its key — no task can run (not a verdict). */
const SETUP_ERROR =
  /^zuno: (api_key_missing|model_invalid|model_missing|provider_unknown|config_invalid|provider_auth): .*$/m;

/** Thrown when an attempt shows the eval's own set-up is wrong; `npm run eval` stops and exits 1. */
export class EvalSetupError extends Error {}

/** `zuno exited N: <its last stderr line>`. */
function exitReason(attempt: Attempt): string {
  const last = attempt.command.stderr.trim().split('\n').at(-1) ?? '';
  return `zuno exited ${attempt.command.code}${last ? `: ${last.slice(0, 300)}` : ''}`;
}

/**
 * Runs one task.
 * @throws when the tarball or the workspace cannot be made (a broken eval, not a failed task); EvalSetupError when
 *   the attempt's command refused the model, its provider or its key.
 */
export async function runTask(task: EvalTask, opts: TaskRunOptions): Promise<TaskOutcome> {
  const tarball = await packageTarball(task.def.package, opts.packs);
  const ws = prepareWorkspace(task.def, tarball, join(opts.workRoot, `ws-${task.def.id}`));
  const attempt = await runAttempt(task.def, ws, opts.driver, opts.z);
  const setup = SETUP_ERROR.exec(attempt.command.stderr);
  if (setup) throw new EvalSetupError(`the eval could not run ${task.def.id}: ${setup[0]}`);
  const verdict = await judge(task, ws, attempt, opts.z);
  const reasons = attempt.command.timedOut ? ['the attempt timed out', ...verdict.reasons] : verdict.reasons;
  // Context for a failed task: how its command ended (its verdict stays the checker's).
  if (!verdict.pass && attempt.command.code !== 0) reasons.push(exitReason(attempt));
  const cost = await attemptCost(task.def, attempt, opts.z);
  return {
    id: task.def.id,
    mode: task.def.mode,
    pass: verdict.pass && !attempt.command.timedOut,
    reasons,
    tokens: cost?.tokens ?? null,
    toolCalls: cost?.toolCalls ?? null,
    wallMs: attempt.command.wallMs,
    exitCode: attempt.command.code,
    sessionId: attempt.sessionId,
    goalId: attempt.goalId,
    councilId: attempt.councilId,
    workspace: ws,
  };
}
