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
/** Largest `timeoutMs` a foreground call may ask for, in milliseconds (10 min). */
export const SHELL_MAX_TIMEOUT_MS = 600_000;
/** Default hard limit of one background command (`background: true`), in milliseconds (1 h). */
export const SHELL_BACKGROUND_DEFAULT_TIMEOUT_MS = 3_600_000;
/** Largest `timeoutMs` a background call may ask for, in milliseconds (24 h). */
export const SHELL_BACKGROUND_MAX_TIMEOUT_MS = 86_400_000;
/** SH9 background purposes: `remoteObserver` marks a command that only observes remote work (CI, deploys, releases). */
export const SHELL_BACKGROUND_PURPOSES = ['remoteObserver'] as const;
/** One SH9 background purpose. */
export type ShellBackgroundPurpose = (typeof SHELL_BACKGROUND_PURPOSES)[number];
/** Longest command summary (first line of the command), in UTF-16 code units. */
export const SHELL_SUMMARY_COMMAND_MAX = 100;

/** Arguments of `shell`. */
export const shellArgs = z
  .strictObject({
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
      .max(SHELL_BACKGROUND_MAX_TIMEOUT_MS)
      .optional()
      .describe(
        `Hard limit in milliseconds; the command's process group is stopped when it is reached and the outcome is uncertain. Foreground: default ${SHELL_DEFAULT_TIMEOUT_MS}, at most ${SHELL_MAX_TIMEOUT_MS}. Background: default ${SHELL_BACKGROUND_DEFAULT_TIMEOUT_MS}, at most ${SHELL_BACKGROUND_MAX_TIMEOUT_MS}.`,
      ),
    workdir: z
      .string()
      .min(1)
      .optional()
      .describe(
        'Directory to run in, relative to the workspace root (must be inside it). Default: the workspace root.',
      ),
    accept_large_output: z
      .boolean()
      .optional()
      .describe(
        'Return output over the tool_output caps inline instead of withholding it to an artifact. An explicit backdoor: it spends the context the cap protects. Prefer reading a withheld artifact with bg action "artifact".',
      ),
    background: z
      .boolean()
      .optional()
      .describe(
        'Run in the background: the call returns a taskID at once; read the output with bg action "output" or "wait"; the completion arrives later as a report. Only for work that can run while you do something else.',
      ),
    backgroundPurpose: z
      .enum(SHELL_BACKGROUND_PURPOSES)
      .optional()
      .describe(
        '"remoteObserver": the command only observes remote work (CI, a deploy, a release). Recorded with the task; it changes no permission, and a local exit is not the remote system\'s state.',
      ),
  })
  .superRefine((args, issues) => {
    if (args.background !== true && args.timeoutMs !== undefined && args.timeoutMs > SHELL_MAX_TIMEOUT_MS) {
      issues.addIssue({
        code: 'custom',
        path: ['timeoutMs'],
        message: `A foreground command may run at most ${SHELL_MAX_TIMEOUT_MS} ms; up to ${SHELL_BACKGROUND_MAX_TIMEOUT_MS} ms needs background: true.`,
      });
    }
  });

/** Parsed arguments of `shell`. */
export type ShellArgs = z.infer<typeof shellArgs>;

/**
 * The hard limit a validated call runs under, in milliseconds: `timeoutMs`
 * when given, else {@link SHELL_BACKGROUND_DEFAULT_TIMEOUT_MS} for
 * `background: true` and {@link SHELL_DEFAULT_TIMEOUT_MS} otherwise.
 */
export function shellTimeoutMs(args: Pick<ShellArgs, 'timeoutMs' | 'background'>): number {
  return args.timeoutMs ?? (args.background === true ? SHELL_BACKGROUND_DEFAULT_TIMEOUT_MS : SHELL_DEFAULT_TIMEOUT_MS);
}

/**
 * A shell time limit in words, e.g. `120 s`, `1.5 s`, `250 ms` (`ms`: the
 * limit in milliseconds). Pure.
 */
export function timeLimitWords(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Math.round(ms / 100) / 10} s`;
}

/**
 * What a call that hit its time limit says about it, for people and the
 * model alike: `timed out after 120 s (the call's time limit; pass timeoutMs
 * to change it)` (`ms`: the limit in milliseconds). Pure.
 */
export function timedOutWords(ms: number): string {
  return `timed out after ${timeLimitWords(ms)} (the call's time limit; pass timeoutMs to change it)`;
}

/** `shell` declaration: SideEffecting, replay Never, Exclusive (TD1, TD3, TD5); the summary marks background calls. */
export const shellDeclaration: ToolDeclaration<ShellArgs> = {
  name: 'shell',
  effect: 'SideEffecting',
  replay: 'Never',
  concurrency: 'Exclusive',
  args: shellArgs,
  subjectOf: (args) => ({
    kind: 'command',
    command: args.command,
    ...(args.workdir !== undefined ? { workdir: args.workdir } : {}),
  }),
  summarize(args) {
    const first = args.command.split('\n', 1)[0] ?? '';
    const label = args.background === true ? 'shell (background)' : 'shell';
    return summaryLine(`${label}: ${summaryLine(first.trim(), SHELL_SUMMARY_COMMAND_MAX)}`);
  },
  background: {
    limitMs: shellTimeoutMs,
    maxLimitMs: SHELL_BACKGROUND_MAX_TIMEOUT_MS,
    label: (args) => summaryLine((args.command.split('\n', 1)[0] ?? '').trim(), SHELL_SUMMARY_COMMAND_MAX),
  },
};
