/**
 * Declaration of the `shell` tool (SH1–SH7, TD1, TD9). Deterministic: zod +
 * pure code only, imported by the session workflow to validate arguments
 * (TD8). The implementation is activities/tools/shell/.
 */
import { z } from 'zod';
import type { ToolDeclaration } from './types.js';
import { summaryLine } from './summary.js';

/** SH1 exit policies: `pipefail` (default), `all` (also stop at the first failing statement), `last` (POSIX). */
export const SHELL_EXIT_POLICIES = ['pipefail', 'all', 'last'] as const;
/** One SH1 exit policy. */
export type ShellExitPolicy = (typeof SHELL_EXIT_POLICIES)[number];

/** Default hard limit of one foreground command, in milliseconds. */
export const SHELL_DEFAULT_TIMEOUT_MS = 120_000;
/** Largest `timeoutMs` a call may ask for, in milliseconds (10 min). */
export const SHELL_MAX_TIMEOUT_MS = 600_000;
/** Longest command summary (first line of the command), in UTF-16 code units. */
export const SHELL_SUMMARY_COMMAND_MAX = 100;

/** Arguments of `shell`. */
export const shellArgs = z.strictObject({
  command: z
    .string()
    .min(1)
    .describe(
      'The command to run, as bash source text (pipes, &&, ||, loops and redirections allowed). Runs with `set -o pipefail` unless exitPolicy says otherwise.',
    ),
  exitPolicy: z
    .enum(SHELL_EXIT_POLICIES)
    .optional()
    .describe(
      'How the exit status is decided. `pipefail` (default): any failing pipeline stage fails the command. `all`: additionally stop at the first failing statement (set -e). `last`: only the last pipeline stage counts (POSIX); choose it only when a stage is allowed to fail.',
    ),
  timeoutMs: z
    .number()
    .int()
    .min(1)
    .max(SHELL_MAX_TIMEOUT_MS)
    .optional()
    .describe(
      `Hard limit in milliseconds; the command's process group is stopped when it is reached and the outcome is uncertain. Default ${SHELL_DEFAULT_TIMEOUT_MS}, at most ${SHELL_MAX_TIMEOUT_MS}.`,
    ),
  workdir: z
    .string()
    .min(1)
    .optional()
    .describe('Directory to run in, relative to the workspace root (must be inside it). Default: the workspace root.'),
  accept_large_output: z
    .boolean()
    .optional()
    .describe(
      'Return output over the tool_output caps inline instead of withholding it to an artifact. An explicit backdoor: it spends the context the cap protects. Prefer reading a withheld artifact with bg action "artifact".',
    ),
});

/** Parsed arguments of `shell`. */
export type ShellArgs = z.infer<typeof shellArgs>;

/** `shell` declaration: SideEffecting, replay Never, Exclusive (TD1, TD3, TD5). */
export const shellDeclaration: ToolDeclaration<ShellArgs> = {
  name: 'shell',
  effect: 'SideEffecting',
  replay: 'Never',
  concurrency: 'Exclusive',
  args: shellArgs,
  summarize(args) {
    const first = args.command.split('\n', 1)[0] ?? '';
    return summaryLine(`shell: ${summaryLine(first.trim(), SHELL_SUMMARY_COMMAND_MAX)}`);
  },
};
