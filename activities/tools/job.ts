/**
 * The `job` tool body (DC15; declaration core/tools/job.ts): reads the
 * session's background delegations from the projection. The waiting of
 * `wait` and the stopping of `cancel` are done by the session workflow
 * before this runs (a workflow timer; the child workflow's cancellation),
 * so this only reports what is recorded. A read that sees a job settled
 * tells the workflow (`backgroundFacts.terminal`): the job's report, read
 * here, is consumed and not delivered again (like `bg`, BG6).
 */
import { jobWireArgs, type JobArgs } from '../../core/tools/job.js';
import type { ToolResult } from '../../core/tools/types.js';
import type { DelegationRow } from '../projection/types.js';
import type { ToolBody } from './tool-body.js';

/** One line of a job for `list`. */
function jobLine(d: DelegationRow): string {
  const ended =
    d.settledAtMs !== null ? ` · settled after ${Math.round((d.settledAtMs - d.startedAtMs) / 1000)} s` : '';
  return `${d.jobId} · ${d.status} · ${d.agent} · child ${d.childSessionId}${ended} · ${d.objective.slice(0, 120)}`;
}

/** The whole state of one job (status, wait, cancel). */
function jobState(d: DelegationRow, action: JobArgs['action'], timedOut: boolean): string {
  const lines = [
    `job ${d.jobId}: ${d.status}`,
    `agent: ${d.agent}`,
    `child session: ${d.childSessionId}`,
    `objective: ${d.objective}`,
  ];
  if (d.status === 'running') {
    if (action === 'wait' && timedOut)
      lines.push('timedOut: true — the job is still running under the same id; wait again or do other work.');
    if (action === 'cancel')
      lines.push('Cancellation was requested; the child is stopping. Its outcome arrives as a report.');
    return lines.join('\n');
  }
  if (d.errorCode) lines.push(`error: ${d.errorCode}${d.error ? ` — ${d.error}` : ''}`);
  if (d.report) lines.push('', d.report);
  return lines.join('\n');
}

export const jobTool: ToolBody<JobArgs> = {
  needsJobs: true,
  wire: jobWireArgs,
  async run(args, ctx): Promise<ToolResult> {
    const jobs = ctx.jobs;
    if (!jobs)
      return { output: 'job: the session has no job store here', isError: true, errorCode: 'jobs_unavailable' };
    if (args.action === 'list') {
      const all = await jobs.list();
      return {
        output: all.length === 0 ? 'No background jobs in this session.' : all.map(jobLine).join('\n'),
        isError: false,
        data: { jobs: all.map((d) => ({ jobId: d.jobId, status: d.status })) },
      };
    }
    const d = await jobs.get(args.job_id);
    if (!d)
      return {
        output: `job ${args.job_id} is not a background job of this session (job list shows them)`,
        isError: true,
        errorCode: 'job_not_found',
      };
    const terminal = d.status !== 'running';
    return {
      output: jobState(d, args.action, args.action === 'wait' && !terminal),
      isError: false,
      data: { jobId: d.jobId, status: d.status, childSessionId: d.childSessionId, terminal },
    };
  },
  backgroundFacts: (r) => {
    const d = r.data as { jobId?: unknown; terminal?: unknown } | undefined;
    return typeof d?.jobId === 'string' && d.terminal === true ? { taskID: d.jobId, terminal: true } : undefined;
  },
};
