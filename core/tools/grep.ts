/**
 * Declaration of the `grep` tool (SR1–SR5, TD1). Deterministic: zod + pure
 * code only. The implementation is activities/tools/grep.ts.
 */
import { z } from 'zod';
import type { ToolDeclaration } from './types.js';
import { summaryLine } from './summary.js';

/** Maximum number of matches a grep returns; more marks the output truncated. */
export const GREP_MAX_MATCHES = 100;
/** SR4: match lines are capped at this many UTF-16 code units. */
export const GREP_MAX_LINE_UNITS = 2000;
/** SR4: a single rg JSON record larger than this (bytes) is skipped. */
export const GREP_MAX_RECORD_BYTES = 1024 * 1024;
/** SR2: total rg output larger than this (bytes) rejects the call. */
export const RG_MAX_OUTPUT_BYTES = 64 * 1024 * 1024;

/** Arguments of `grep`. */
export const grepArgs = z.strictObject({
  pattern: z
    .string()
    .min(1)
    .describe(
      'Regular expression (Rust regex syntax, as ripgrep) searched for in file contents, e.g. `TODO`, `function\\s+\\w+`, `(?i)error`.',
    ),
  path: z
    .string()
    .min(1)
    .optional()
    .describe('File or directory to search, relative to the workspace root. Default: the workspace root.'),
  include: z
    .string()
    .min(1)
    .optional()
    .describe(
      'Glob restricting which files are searched, matched relative to the searched directory, e.g. `*.ts`, `*.{ts,tsx}`, `src/**/*.rs`.',
    ),
});

/** Parsed arguments of `grep`. */
export type GrepArgs = z.infer<typeof grepArgs>;

/** `grep` declaration: ReadOnly, replay Safe, ParallelSafe (TD1, TD3). */
export const grepDeclaration: ToolDeclaration<GrepArgs> = {
  name: 'grep',
  effect: 'ReadOnly',
  replay: 'Safe',
  concurrency: 'ParallelSafe',
  runsLocally: () => true,
  args: grepArgs,
  subjectOf: (args) => ({ kind: 'paths', paths: [args.path ?? '.'] }),
  summarize(args) {
    const where = args.path !== undefined ? ` in ${args.path}` : '';
    const incl = args.include !== undefined ? ` (${args.include})` : '';
    return summaryLine(`grep: ${args.pattern}${where}${incl}`);
  },
};
