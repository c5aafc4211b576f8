/**
 * Declaration of the `read` tool (FT1, TD1). Deterministic: zod + pure code
 * only, imported by the session workflow to validate arguments (TD8).
 * The implementation is activities/tools/read.ts.
 */
import { z } from 'zod';
import type { ToolDeclaration } from './types.js';
import { summaryLine } from './summary.js';

/** Default first line (1-based) of a read. */
export const READ_DEFAULT_OFFSET = 1;
/** Default number of lines (or directory entries) of a read. */
export const READ_DEFAULT_LIMIT = 2000;
/** Lines longer than this many UTF-16 code units are cut with a marker. */
export const READ_MAX_LINE_LENGTH = 2000;

/** Arguments of `read`. */
export const readArgs = z.strictObject({
  path: z
    .string()
    .min(1)
    .describe(
      'File or directory to read, relative to the workspace root (an absolute path inside the workspace is also accepted).',
    ),
  offset: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe(`1-based line number to start at (for a directory: entry number). Default ${READ_DEFAULT_OFFSET}.`),
  limit: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe(`Maximum number of lines (or directory entries) to return. Default ${READ_DEFAULT_LIMIT}.`),
});

/** Parsed arguments of `read`. */
export type ReadArgs = z.infer<typeof readArgs>;

/**
 * The read credential a successful file read issues (FT1), stored in the
 * result's `data.credential`. apply_patch (FT3) checks it against the file's
 * current state. The durable per-session *read generation* counter lives in
 * the projection (a later issue); within this layer the credential is the
 * content digest plus size and mtime, which is what a tool activity can know
 * without durable state.
 */
export interface ReadCredential {
  /** Canonical (symlinks resolved) path, relative to the workspace root, `/`-separated. */
  path: string;
  /** SHA-256 of the full file bytes, lowercase hex. */
  sha256: string;
  /** Size of the file in bytes (= bytes hashed). */
  bytes: number;
  /** Modification time in ms since the epoch, as reported by fstat. */
  mtimeMs: number;
}

/** `read` declaration: ReadOnly, replay Safe, ParallelSafe (TD1, TD3). */
export const readDeclaration: ToolDeclaration<ReadArgs> = {
  name: 'read',
  effect: 'ReadOnly',
  replay: 'Safe',
  concurrency: 'ParallelSafe',
  runsLocally: () => true,
  args: readArgs,
  subjectOf: (args) => ({ kind: 'paths', paths: [args.path] }),
  summarize(args) {
    const range = args.offset !== undefined ? `:${args.offset}` : '';
    return summaryLine(`read: ${args.path}${range}`);
  },
};
