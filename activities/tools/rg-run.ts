import type { ToolResult } from '../../core/tools/types.js';
import { errorResult } from './common.js';
/**
 * Runs ripgrep for glob/grep with bounded, streamed output (SR2) and
 * cancellation (TD10).
 */
import { spawn } from 'node:child_process';
import { RG_MAX_OUTPUT_BYTES } from '../../core/tools/grep.js';

/** Options of {@link runRg}. */
export interface RgRunOptions {
  /** Absolute path of rg (from the locator). */
  bin: string;
  /** Arguments; `--no-config` is always prepended so RIPGREP_CONFIG_PATH cannot change behaviour. */
  args: string[];
  cwd: string;
  signal?: AbortSignal;
  /** Stdout budget in bytes (default 64 MiB, SR2); exceeding it kills rg and sets `overLimit`. */
  maxOutputBytes?: number;
  /** Receives stdout chunks in order, until the budget is exceeded. */
  onStdout(chunk: Buffer): void;
}

/** How an rg run ended. */
export interface RgRunResult {
  /** Exit status (0 match/files, 1 none, 2 error), null when killed. */
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  /** First 64 KiB of stderr, trimmed. */
  stderr: string;
  /** Total stdout bytes seen (including the chunk that crossed the budget). */
  stdoutBytes: number;
  overLimit: boolean;
  aborted: boolean;
  /** Set when rg could not be started at all. */
  spawnError?: Error;
}

const STDERR_KEEP = 64 * 1024;

/**
 * Spawns rg and streams its stdout to `onStdout`. Never rejects: every ending
 * (normal exit, over-budget kill, abort, spawn failure) is described by the
 * result. The child is SIGKILLed on abort or over-budget (rg is read-only, so
 * killing it has no side effect to settle).
 */
export function runRg(opts: RgRunOptions): Promise<RgRunResult> {
  const max = opts.maxOutputBytes ?? RG_MAX_OUTPUT_BYTES;
  return new Promise((resolvePromise) => {
    let stdoutBytes = 0;
    let overLimit = false;
    let aborted = false;
    let spawnError: Error | undefined;
    const errChunks: Buffer[] = [];
    let errLen = 0;

    if (opts.signal?.aborted) {
      resolvePromise({ exitCode: null, signal: null, stderr: '', stdoutBytes: 0, overLimit: false, aborted: true });
      return;
    }
    const env = { ...process.env };
    delete env.RIPGREP_CONFIG_PATH;
    const child = spawn(opts.bin, ['--no-config', ...opts.args], {
      cwd: opts.cwd,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const kill = () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    };
    const onAbort = () => {
      aborted = true;
      kill();
    };
    opts.signal?.addEventListener('abort', onAbort, { once: true });

    child.stdout.on('data', (chunk: Buffer) => {
      if (overLimit || aborted) return;
      stdoutBytes += chunk.length;
      if (stdoutBytes > max) {
        overLimit = true;
        kill();
        return;
      }
      opts.onStdout(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      if (errLen >= STDERR_KEEP) return;
      errChunks.push(chunk);
      errLen += chunk.length;
    });
    child.on('error', (err) => {
      spawnError = err;
    });
    child.on('close', (code, sig) => {
      opts.signal?.removeEventListener('abort', onAbort);
      const stderr = Buffer.concat(errChunks).subarray(0, STDERR_KEEP).toString('utf8').trim();
      resolvePromise({
        exitCode: code,
        signal: sig,
        stderr,
        stdoutBytes,
        overLimit,
        aborted,
        ...(spawnError ? { spawnError } : {}),
      });
    });
  });
}

/** Which argument an rg fatal error is about, from rg's own message. */
export function classifyRgFatal(stderr: string): 'include' | 'pattern' | null {
  if (/^rg: error parsing glob/m.test(stderr)) return 'include';
  if (/regex parse error|size limit|regex could not be compiled|error parsing/i.test(stderr)) return 'pattern';
  return null;
}

/**
 * The `rg_failed` error result for an rg that died by a signal or exited with
 * a code above 2 (0 = matches, 1 = none, 2 = errors), or null for a normal exit.
 */
export function abnormalRgExit(run: Pick<RgRunResult, 'exitCode' | 'signal' | 'stderr'>): ToolResult | null {
  if (run.exitCode !== null && run.exitCode <= 2) return null;
  return errorResult(
    'rg_failed',
    `ripgrep ended abnormally (${run.signal ?? `exit ${run.exitCode}`}).${run.stderr ? `\n${run.stderr}` : ''}`,
  );
}
