/**
 * Declaration of the `job` tool (DC15; issue 12 item 4; decisions in
 * docs/delegation.md "Jobs"). Inspects and controls the session's
 * background delegations: `list`, `status`, `wait` (the workflow waits on a
 * timer until the job settles, at most 60 s per observation, then the call
 * reads the job — like `bg wait`), `cancel` (the workflow cancels the
 * child workflow; the call then reads what the child recorded). ReadOnly and
 * Safe except `cancel` (SideEffecting). Deterministic.
 */
import { z } from 'zod';
import type { ToolDeclaration, ToolEffect } from './types.js';
import { summaryLine } from './summary.js';

/** Longest wait of one `job wait` observation, ms (DC15, like `bg wait`). */
export const JOB_WAIT_MAX_MS = 60_000;
/** How long `job cancel` waits for the cancelled child to settle before it reads the job, ms. */
export const JOB_CANCEL_WAIT_MS = 15_000;
/** Default of `timeout_ms` for `job wait`. */
export const JOB_WAIT_DEFAULT_MS = 30_000;

const jobId = z
  .string()
  .regex(/^job_[0-9]+_[0-9]+_[0-9]+$/, 'a job id looks like job_<turn>_<step>_<position>, as task returned it');

/** Arguments of `job`: a union discriminated by `action`. */
export const jobArgs = z.discriminatedUnion('action', [
  z.strictObject({ action: z.literal('list') }),
  z.strictObject({ action: z.literal('status'), job_id: jobId }),
  z.strictObject({
    action: z.literal('wait'),
    job_id: jobId,
    timeout_ms: z.number().int().min(0).max(JOB_WAIT_MAX_MS).optional(),
  }),
  z.strictObject({ action: z.literal('cancel'), job_id: jobId }),
]);
export type JobArgs = z.infer<typeof jobArgs>;

/**
 * The provider-facing (wire) schema of `job`: one flat object (providers
 * want `type: object` at the root). Validation always uses {@link jobArgs}.
 */
export const jobWireArgs = z.strictObject({
  action: z
    .enum(['list', 'status', 'wait', 'cancel'])
    .describe(
      'list: this session’s jobs. status: one job. wait: wait until it settles (≤ 60 s). cancel: stop its child.',
    ),
  job_id: jobId.optional().describe('For status, wait, cancel: the job id task returned.'),
  timeout_ms: z
    .number()
    .int()
    .min(0)
    .max(JOB_WAIT_MAX_MS)
    .optional()
    .describe('For wait: how long to wait, ms (default 30000).'),
});

/** The effect of one `job` call: `cancel` stops a child (SideEffecting); reads are ReadOnly. */
export function jobEffect(args: Pick<JobArgs, 'action'>): ToolEffect {
  return args.action === 'cancel' ? 'SideEffecting' : 'ReadOnly';
}

export const jobDeclaration: ToolDeclaration<JobArgs> & { effectOf(args: JobArgs): ToolEffect } = {
  name: 'job',
  effect: 'SideEffecting',
  replay: 'Safe',
  concurrency: 'ParallelSafe',
  args: jobArgs,
  effectOf: jobEffect,
  onSchedule: (args) =>
    args.action === 'cancel'
      ? {
          cancelsBackgroundTask: args.job_id,
          waitsForBackgroundTask: { taskID: args.job_id, timeoutMs: JOB_CANCEL_WAIT_MS },
        }
      : args.action === 'wait'
        ? { waitsForBackgroundTask: { taskID: args.job_id, timeoutMs: args.timeout_ms ?? JOB_WAIT_DEFAULT_MS } }
        : undefined,
  summarize: (a) => summaryLine(a.action === 'list' ? 'job list' : `job ${a.action} ${a.job_id}`),
};
