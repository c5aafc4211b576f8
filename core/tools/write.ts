/**
 * Declaration of the `write` tool (FT2, TD1). Deterministic: zod + pure code
 * only, imported by the session workflow to validate arguments (TD8).
 * The implementation is activities/tools/write.ts.
 */
import { z } from 'zod';
import type { ToolDeclaration } from './types.js';
import { summaryLine } from './summary.js';
import { tempFilePattern } from './temp-files.js';

/** Arguments of `write`. */
export const writeArgs = z.strictObject({
  path: z
    .string()
    .min(1)
    .describe(
      'File to create or replace, relative to the workspace root (an absolute path inside the workspace is also accepted). Missing parent directories are created.',
    ),
  content: z
    .string()
    .describe('The complete new content of the file, written exactly as given (UTF-8). It replaces the whole file.'),
});

/** Parsed arguments of `write`. */
export type WriteArgs = z.infer<typeof writeArgs>;

/**
 * `write` declaration: SideEffecting, replay Never, Exclusive (TD1, TD3,
 * TD5: writes stay Exclusive). Summary: `write: src/a.ts`.
 */
export const writeDeclaration: ToolDeclaration<WriteArgs> = {
  name: 'write',
  effect: 'SideEffecting',
  replay: 'Never',
  concurrency: 'Exclusive',
  args: writeArgs,
  subjectOf: (args) => ({ kind: 'paths', paths: [args.path] }),
  summarize(args) {
    return summaryLine(`write: ${args.path}`);
  },
  /** The target and its temp-file pattern (a killed worker may leave one, see temp-files.ts). */
  affectedPaths: (args) => [args.path, tempFilePattern(args.path)],
  changeArgs: { content: 'content' },
};
