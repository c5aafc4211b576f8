/**
 * The delegation parts of `zuno session show` (issue 12, docs/delegation.md
 * "Where people see delegations"): the agent a session runs as and, for a
 * child, who delegated to it; then one entry per delegation the session
 * made — agent, foreground or background (its job id), where in the session
 * (turn and step from 1), the child session, its status, the objective and
 * the first line of the report or error. Pure.
 */
import { DEFAULT_AGENT_NAME } from '../../core/agents.js';
import type { DelegationRow, SessionRow } from '../../activities/projection/index.js';
import { cut } from '../text-table.js';
import type { ShowView } from './show-text.js';

/** How long an objective or a report line is in the default view (code points; `--full`: whole). */
const LINE_MAX = 160;

/** Who delegated to a session: from its row, else from the delegation that started it. */
export interface DelegatedBy {
  parentSessionId: string;
  rootSessionId: string;
  depth: number;
}

/** The parent, root and depth of a child session, or null for a session a person started. */
export function delegatedBy(s: SessionRow, started: DelegationRow | null): DelegatedBy | null {
  if (s.parentSessionId)
    return {
      parentSessionId: s.parentSessionId,
      rootSessionId: s.rootSessionId ?? s.parentSessionId,
      depth: s.depth ?? 1,
    };
  if (started)
    return { parentSessionId: started.parentSessionId, rootSessionId: started.rootSessionId, depth: started.depth };
  return null;
}

/**
 * `agent explore · delegated by ses_p (depth 1)`; with a root other than the
 * parent, `… by ses_p, root ses_r (depth 2)`; `agent build` for a session a
 * person started.
 */
export function agentLine(s: Pick<SessionRow, 'agent'>, by: DelegatedBy | null): string {
  const agent = `agent ${s.agent ?? DEFAULT_AGENT_NAME}`;
  if (!by) return agent;
  const root = by.rootSessionId !== by.parentSessionId ? `, root ${by.rootSessionId}` : '';
  return `${agent} · delegated by ${by.parentSessionId}${root} (depth ${by.depth})`;
}

/** `turn 2, step 1` from a tool-call row id `tc_<turn>_<step>_<position>` (0-based), or null. */
function placeOf(rowId: string): string | null {
  const m = /^tc_(\d+)_(\d+)_\d+$/.exec(rowId);
  return m ? `turn ${Number(m[1]) + 1}, step ${Number(m[2]) + 1}` : null;
}

/** The first line of a report that says something: leading `<task_result>`-style tags and blank lines skipped. */
export function firstReportLine(text: string): string {
  for (const raw of text.split('\n')) {
    const line = raw.replace(/^(\s*<\/?[a-z_]+(?:\s[^>]*)?>)+/i, '').trim();
    if (line !== '') return line;
  }
  return '';
}

/** The "Delegations" section (empty string when the session delegated nothing). */
export function renderDelegations(rows: readonly DelegationRow[], view: Pick<ShowView, 'full'>): string {
  if (rows.length === 0) return '';
  const fit = (s: string) => (view.full ? s : cut(s, LINE_MAX));
  const lines = ['', `Delegations (${rows.length})`];
  rows.forEach((d, i) => {
    const mode = d.mode === 'background' ? `background ${d.jobId ?? ''}`.trimEnd() : 'foreground';
    const place = placeOf(d.rowId);
    lines.push(
      `  ${i + 1}. ${d.agent}, ${mode}${place ? ` · ${place}` : ''} · ${d.childSessionId} · ${d.status}`,
      `     objective: ${fit(d.objective.replace(/\s+/g, ' ').trim())}`,
    );
    if (d.error || d.errorCode) {
      const message = d.error ? fit(firstReportLine(d.error)) : '';
      lines.push(`     error${d.errorCode ? ` (${d.errorCode})` : ''}${message ? `: ${message}` : ''}`);
    }
    if (d.report) {
      const first = firstReportLine(d.report);
      if (first) lines.push(`     report: ${fit(first)}`);
    }
  });
  lines.push(`  (each child: zuno session show <child session>)`);
  return `${lines.join('\n')}\n`;
}
