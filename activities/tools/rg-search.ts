/**
 * The rg search step `glob` and `grep` share (SR1, SR2, SR5, TD10): find rg,
 * run it in a held directory with streamed output, and turn every way the run
 * can fail — cancelled, not started, output over budget, a fatal error that
 * names an argument, an abnormal exit — into the tool's typed error result.
 * What the tool does with the output it received is its own.
 */
import { RG_MAX_OUTPUT_BYTES } from '../../core/tools/grep.js';
import type { ToolResult } from '../../core/tools/types.js';
import { cancelledResult, errorResult, zunoErrorResult } from './common.js';
import type { ToolContext } from './context.js';
import { heldPath } from './path-authority.js';
import { defaultRgLocator, type RgInfo } from './rg.js';
import { abnormalRgExit, classifyRgFatal, runRg } from './rg-run.js';

/** Test observation point of a search: after the search root is authorized and opened, just before rg starts. */
export interface RgSearchHooks {
  beforeSearch?: () => void | Promise<void>;
}

/** What a search needs: the call's context (`hooks` only in tests). */
export interface RgSearchContext extends ToolContext {
  hooks?: RgSearchHooks;
}

/** Which argument an rg fatal error is about (see rg-run.ts `classifyRgFatal`). */
export type RgFatalField = 'include' | 'pattern';

/** One search of {@link searchWithRg}. */
export interface RgSearch {
  /** The tool name, for the `cancelled` result. */
  tool: 'glob' | 'grep';
  ctx: RgSearchContext;
  /** The held descriptor of rg's working directory (entered in the child, before exec). */
  cwdFd: number;
  /** rg's arguments (rg-run.ts prepends `--no-config`). */
  args: string[];
  /** Receives rg's stdout in order, up to the 64 MiB budget (SR2). */
  onStdout(chunk: Buffer): void;
  /** The `output_too_large` message: what rg printed too much of and how to narrow it. */
  tooLarge: string;
  /** The `invalid_arguments` result for a fatal rg error about `field` (quoting rg's `stderr`). */
  invalidArgument(field: RgFatalField, stderr: string): ToolResult;
}

/**
 * Runs one rg search. Resolves to undefined when rg ran to a normal end
 * (exit 0, 1, or 2 with empty stderr: only suppressed per-path errors, SR5),
 * so the output `onStdout` received is the whole answer; otherwise to the
 * error result the tool returns: `rg_missing` / `rg_too_old` /
 * `rg_probe_failed` (locator), `cancelled`, `rg_failed` (not started, a
 * fatal error about no argument, an abnormal exit), `output_too_large`, or
 * the tool's own `invalid_arguments`. Never throws for these.
 */
export async function searchWithRg(s: RgSearch): Promise<ToolResult | undefined> {
  let rg: RgInfo;
  try {
    rg = await (s.ctx.rg ?? defaultRgLocator()).resolve();
  } catch (err) {
    return zunoErrorResult(err);
  }
  if (s.ctx.signal?.aborted) return cancelledResult(s.tool);
  await s.ctx.hooks?.beforeSearch?.();
  const run = await runRg({
    bin: rg.path,
    cwd: heldPath(s.cwdFd),
    args: s.args,
    ...(s.ctx.signal ? { signal: s.ctx.signal } : {}),
    onStdout: s.onStdout,
  });
  if (run.aborted) return cancelledResult(s.tool);
  if (run.spawnError) return errorResult('rg_failed', `Could not start ${rg.path}: ${run.spawnError.message}`);
  if (run.overLimit) return errorResult('output_too_large', s.tooLarge, { limitBytes: RG_MAX_OUTPUT_BYTES });
  if (run.exitCode === 2 && run.stderr !== '') {
    const field = classifyRgFatal(run.stderr);
    if (field !== null) return s.invalidArgument(field, run.stderr);
    return errorResult('rg_failed', `ripgrep failed:\n${run.stderr}`, { rgError: run.stderr });
  }
  return abnormalRgExit(run) ?? undefined;
}
