/**
 * Declaration of the `bg` tool (BG1–BG5, TD1): inspect, wait for or cancel a
 * background shell command, and read back output that did not enter the
 * transcript in bounded windows. Deterministic: zod + pure code only,
 * imported by the session workflow to validate arguments (TD8). The
 * implementation is activities/tools/bg/.
 */
import { z } from 'zod';
import type { ToolDeclaration, ToolEffect } from './types.js';
import { summaryLine } from './summary.js';

/** BG1: default window size of a read-back, in bytes. */
export const BG_DEFAULT_LIMIT = 16_384;
/** BG1: largest window of one read-back, in bytes; larger requests are clamped, not rejected. */
export const BG_MAX_LIMIT = 51_200;
/** BG5: default observation time of one `bg wait`, in milliseconds. */
export const BG_WAIT_DEFAULT_MS = 30_000;
/** BG5: longest observation of one `bg wait`, in milliseconds. */
export const BG_WAIT_MAX_MS = 60_000;
/** Shape of a background task id (`bg_<turn>_<step>_<position>` as the workflow derives it). */
export const BG_TASK_ID_PATTERN = /^bg_[A-Za-z0-9_-]{1,64}$/;
/** The `bg` actions (BG1). */
export const BG_ACTIONS = ['list', 'output', 'wait', 'cancel', 'artifact'] as const;
/** One `bg` action. */
export type BgAction = (typeof BG_ACTIONS)[number];

const taskID = z
  .string()
  .regex(BG_TASK_ID_PATTERN, 'a taskID looks like bg_1_0_0 (as returned by shell with background: true)')
  .describe('The task id returned by shell with background: true (e.g. bg_3_1_0).');
const cursor = z
  .number()
  .int()
  .min(0)
  .optional()
  .describe('Absolute byte offset where the window starts; pass back a reply’s nextCursor (or windowFrom) to page.');
const limit = z
  .number()
  .int()
  .min(1)
  .optional()
  .describe(`Window size in bytes. Default ${BG_DEFAULT_LIMIT}; larger values are clamped to ${BG_MAX_LIMIT}.`);
const timeoutMs = z
  .number()
  .int()
  .min(1)
  .max(BG_WAIT_MAX_MS)
  .optional()
  .describe(
    `How long to wait for the task to end, in ms. Default ${BG_WAIT_DEFAULT_MS}, at most ${BG_WAIT_MAX_MS}. Timing out is not a failure: the task keeps running.`,
  );
const outputPath = z
  .string()
  .min(1)
  .describe(
    'Path of a withheld-output artifact exactly as a shell result printed it (under .zuno/artifacts/), or a background task’s output file under .zuno/bg/.',
  );

/** `bg list`: the background tasks of this session. */
export const bgListArgs = z.strictObject({ action: z.literal('list') });
/** `bg output`: a window of a task's output, now (without cursor: the newest window). */
export const bgOutputArgs = z.strictObject({ action: z.literal('output'), taskID, cursor, limit });
/** `bg wait`: wait until the task ends (≤ 60 s), then a window of its output. */
export const bgWaitArgs = z.strictObject({ action: z.literal('wait'), taskID, cursor, limit, timeoutMs });
/** `bg cancel`: stop a running task (idempotent). */
export const bgCancelArgs = z.strictObject({ action: z.literal('cancel'), taskID });
/** `bg artifact`: a window of a withheld-output artifact (without cursor: from byte 0). */
export const bgArtifactArgs = z.strictObject({ action: z.literal('artifact'), outputPath, cursor, limit });

/** Arguments of `bg`: a union discriminated by `action`. */
export const bgArgs = z.discriminatedUnion('action', [
  bgListArgs,
  bgOutputArgs,
  bgWaitArgs,
  bgCancelArgs,
  bgArtifactArgs,
]);

/** Parsed arguments of `bg`. */
export type BgArgs = z.infer<typeof bgArgs>;
export type BgListArgs = z.infer<typeof bgListArgs>;
export type BgOutputArgs = z.infer<typeof bgOutputArgs>;
export type BgWaitArgs = z.infer<typeof bgWaitArgs>;
export type BgCancelArgs = z.infer<typeof bgCancelArgs>;
export type BgArtifactArgs = z.infer<typeof bgArtifactArgs>;

/**
 * The provider-facing (wire) schema of `bg`: one flat object, because
 * providers want `type: object` at the root. Validation always uses
 * {@link bgArgs}; this only feeds the JSON Schema sent to the model.
 */
export const bgWireArgs = z.strictObject({
  action: z
    .enum(BG_ACTIONS)
    .describe(
      'list: background tasks of this session. output: a window of a task’s output now. wait: wait for the task to end (≤ 60 s), then a window. cancel: stop a running task. artifact: a window of a withheld-output artifact.',
    ),
  taskID: taskID.optional().describe('For output, wait, cancel: the task id returned by shell with background: true.'),
  outputPath: outputPath.optional().describe('For artifact: the artifact path exactly as the shell result printed it.'),
  cursor,
  limit,
  timeoutMs,
});

/**
 * TD1 effect of one validated `bg` call: `cancel` is SideEffecting; list,
 * output, wait and artifact are ReadOnly. (The declaration's static `effect`
 * is the strictest class, for a call whose action is unknown.)
 */
export function bgEffect(args: Pick<BgArgs, 'action'>): ToolEffect {
  return args.action === 'cancel' ? 'SideEffecting' : 'ReadOnly';
}

/** `bg` declaration plus the per-call effect classification (TD1). */
export interface BgDeclaration extends ToolDeclaration<BgArgs> {
  /** Effect of one validated call; see {@link bgEffect}. */
  effectOf(args: BgArgs): ToolEffect;
}

/**
 * `bg` declaration: replay Safe (reads are pure; cancel is idempotent),
 * ParallelSafe (a wait blocks nobody), effect per action via `effectOf`;
 * the static `effect` is SideEffecting, the TD1 class of an unknown action.
 */
export const bgDeclaration: BgDeclaration = {
  name: 'bg',
  effect: 'SideEffecting',
  replay: 'Safe',
  concurrency: 'ParallelSafe',
  args: bgArgs,
  effectOf: bgEffect,
  // Issue 13: a look at a task (list, output window, artifact window) is a short read; wait and cancel are not.
  runsLocally: (args) => args.action === 'list' || args.action === 'output' || args.action === 'artifact',
  onSchedule: (args) => (args.action === 'cancel' ? { cancelsBackgroundTask: args.taskID } : undefined),
  summarize(args) {
    switch (args.action) {
      case 'list':
        return 'bg: list';
      case 'cancel':
        return summaryLine(`bg: cancel ${args.taskID}`);
      case 'artifact':
        return summaryLine(
          `bg: artifact ${args.outputPath.split('/').pop() || args.outputPath}${args.cursor !== undefined ? ` @${args.cursor}` : ''}`,
        );
      default:
        return summaryLine(`bg: ${args.action} ${args.taskID}${args.cursor !== undefined ? ` @${args.cursor}` : ''}`);
    }
  },
};
