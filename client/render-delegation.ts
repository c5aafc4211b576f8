import type { DelegationFact } from '../core/tools/types.js';
import { formatElapsed } from './live-progress.js';

/** What {@link delegationEndLine} reads of a `tool.completed` event. */
export interface DelegatedCallEnd {
  tool: string;
  errorCode?: string | null;
  durationMs?: number;
  child: DelegationFact;
}

/**
 * The line `zuno run` prints when a delegated call returns (issue 12; the
 * call's start is its summary, `→ task explore: <objective>`): a
 * background job just started — `✓ task explore (background): job
 * job_0_1_0 started, child ses_…`; a foreground task — how its child ended,
 * `✓ task explore: child ses_… completed, 42s` (`✗` when it did not
 * complete, `?` when its end is uncertain, with the error code). The child's
 * own events stay in its session (`zuno session show <child>`). Pure.
 */
export function delegationEndLine(d: DelegatedCallEnd): string {
  const c = d.child;
  if (c.status === 'running')
    return `✓ ${d.tool} ${c.agent} (background): job ${c.jobId ?? '?'} started, child ${c.sessionId}`;
  const mark = c.status === 'completed' ? '✓' : c.status === 'uncertain' ? '?' : '✗';
  return (
    `${mark} ${d.tool} ${c.agent}: child ${c.sessionId} ${c.status}` +
    `${d.errorCode ? ` (${d.errorCode})` : ''}${d.durationMs !== undefined ? `, ${formatElapsed(d.durationMs)}` : ''}`
  );
}

/** What {@link councilEndLine} reads of a `tool.completed` event. */
export interface CouncilCallEnd {
  tool: string;
  durationMs?: number;
  council: { runId: string; status: string; valid: number; needed: number };
}

/**
 * The line `zuno run` prints when a `council_run` call returns:
 * `✓ council_run: council cr_… succeeded, 3 valid reports (quorum 2), 41s`
 * (`✗` when it failed). `zuno council show <runId>` has the seats. Pure.
 */
export function councilEndLine(d: CouncilCallEnd): string {
  const c = d.council;
  const mark = c.status === 'succeeded' ? '✓' : '✗';
  return (
    `${mark} ${d.tool}: council ${c.runId} ${c.status}, ${c.valid} valid report${c.valid === 1 ? '' : 's'} (quorum ${c.needed})` +
    `${d.durationMs !== undefined ? `, ${formatElapsed(d.durationMs)}` : ''} · zuno council show ${c.runId}`
  );
}
