/**
 * Declaration of the `glob` tool (SR1–SR5, TD1). Deterministic: zod + pure
 * code only. The implementation is activities/tools/glob.ts.
 */
import { z } from 'zod';
import type { ToolDeclaration } from './types.js';
import { summaryLine } from './summary.js';

/** Maximum number of paths a glob returns; more marks the output truncated. */
export const GLOB_MAX_RESULTS = 100;

/** Arguments of `glob`. */
export const globArgs = z.strictObject({
  pattern: z
    .string()
    .min(1)
    .describe(
      'Glob matched against file paths relative to `path`, e.g. `**/*.ts`, `src/**/*.test.ts`, `*.{json,yaml}`.',
    ),
  path: z
    .string()
    .min(1)
    .optional()
    .describe('Directory to search, relative to the workspace root. Default: the workspace root.'),
});

/** Parsed arguments of `glob`. */
export type GlobArgs = z.infer<typeof globArgs>;

/** `glob` declaration: ReadOnly, replay Safe, ParallelSafe (TD1, TD3). */
export const globDeclaration: ToolDeclaration<GlobArgs> = {
  name: 'glob',
  effect: 'ReadOnly',
  replay: 'Safe',
  concurrency: 'ParallelSafe',
  runsLocally: () => true,
  args: globArgs,
  subjectOf: (args) => ({ kind: 'paths', paths: [args.path ?? '.'] }),
  summarize(args) {
    return summaryLine(`glob: ${args.pattern}${args.path !== undefined ? ` in ${args.path}` : ''}`);
  },
};
