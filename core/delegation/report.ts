/**
 * What a parent reads of a settled child (DC3, DC13, DC17; docs/delegation.md
 * "Reports" — the DC22 SEED-GAP "the task result shape", decided here):
 *
 * ```
 * <task_result agent="explore" session="ses_…" status="completed">
 * …the child's final answer…
 * </task_result>
 * ```
 * A child that did not complete gets `status="failed"` (or blocked, paused,
 * interrupted, cancelled, uncertain) with its error, the sentence that it is
 * not re-run, and — when it did some work before it ended — an
 * `<execution_progress>` block beside the result (never inside it): model
 * requests answered, tool calls by outcome, report artifacts. Progress does
 * not prove completion (DC13). Pure.
 */
import { escapeClosingTag } from '../terminal-text.js';
import type { ChildEnd } from './contract.js';

/** Longest child answer copied into the parent's result (UTF-16 units); the rest is in the child's session. */
export const REPORT_TEXT_MAX = 16_000;

/** A report artifact of the child (DC17): a `report_write` receipt issued after the job's evidence boundary. */
export interface ReportArtifact {
  name: string;
  path: string;
  sha256?: string;
  bytes?: number;
}

/** Evidence of a child's work, from its projection (DC13: model requests and tool calls are separate from the end). */
export interface ChildEvidence {
  modelRequests: number;
  /** Tool calls by outcome (`ok`, `error`, `blocked`, `uncertain`). */
  toolCalls: Record<string, number>;
  /** Names of the tools the child called, with counts. */
  tools: Record<string, number>;
  /** The child's cumulative token buckets (PR11), null when no provider reported any. */
  tokens: Record<string, number> | null;
  artifacts: ReportArtifact[];
}

/** Metadata schema 3 (DC17): the same record for the foreground result, the job settlement, the inbox report and client replay. */
export interface TaskReportMetadata {
  schema: 3;
  childSessionId: string;
  agent: string;
  status: ChildEnd['status'];
  errorCode?: string;
  artifacts: ReportArtifact[];
  evidence: Omit<ChildEvidence, 'artifacts'>;
}

function attr(v: string): string {
  return v.replace(/[&"<>]/g, (c) => ({ '&': '&amp;', '"': '&quot;', '<': '&lt;', '>': '&gt;' })[c]!);
}

/** true when the child did something before it ended (a model answered, a tool ran). */
export function hasEvidence(e: ChildEvidence): boolean {
  return e.modelRequests > 0 || Object.values(e.toolCalls).some((n) => n > 0);
}

/** The `<execution_progress>` block of a child that ended without completing (DC13). */
export function progressBlock(e: ChildEvidence): string {
  const calls = Object.entries(e.toolCalls)
    .filter(([, n]) => n > 0)
    .map(([k, n]) => `${n} ${k}`)
    .join(', ');
  const tools = Object.entries(e.tools)
    .map(([t, n]) => `${t} ×${n}`)
    .join(', ');
  const lines = [
    `model requests answered: ${e.modelRequests}`,
    `tool calls: ${calls || 'none'}${tools ? ` (${tools})` : ''}`,
    ...(e.artifacts.length > 0 ? [`report artifacts: ${e.artifacts.map((a) => a.path).join(', ')}`] : []),
    'Progress does not prove completion: inspect the child session before relying on any of it.',
  ];
  return `<execution_progress>\n${lines.join('\n')}\n</execution_progress>`;
}

/**
 * The parent-facing report of a settled child.
 * @param finalText the child's last final answer (null when it gave none).
 */
export function taskReport(
  who: { agent: string; childSessionId: string; jobId?: string },
  end: ChildEnd,
  finalText: string | null,
  evidence: ChildEvidence,
): { text: string; metadata: TaskReportMetadata } {
  const head = `<task_result agent="${attr(who.agent)}" session="${attr(who.childSessionId)}"${who.jobId ? ` job="${attr(who.jobId)}"` : ''} status="${end.status}">`;
  let body: string;
  if (end.status === 'completed') {
    const text = escapeClosingTag(finalText ?? '', 'task_result');
    body =
      text.length > REPORT_TEXT_MAX
        ? `${text.slice(0, REPORT_TEXT_MAX)}\n… (cut; the whole report is in session ${who.childSessionId})`
        : text;
  } else {
    const why = end.code ? `${end.code}${end.message ? `: ${end.message}` : ''}` : end.message || '';
    body = [
      `The child did not complete (${end.status})${why ? ` — ${why}` : ''}.`,
      'It is not re-run automatically. Decide yourself whether to retry, narrow the task or do it another way.',
    ].join('\n');
  }
  const artifacts =
    evidence.artifacts.length > 0 ? `\nartifacts: ${evidence.artifacts.map((a) => a.path).join(', ')}` : '';
  const result = `${head}\n${body}${end.status === 'completed' ? artifacts : ''}\n</task_result>`;
  const progress = end.status !== 'completed' && hasEvidence(evidence) ? `\n${progressBlock(evidence)}` : '';
  const { artifacts: arts, ...rest } = evidence;
  return {
    text: result + progress,
    metadata: {
      schema: 3,
      childSessionId: who.childSessionId,
      agent: who.agent,
      status: end.status,
      ...(end.code ? { errorCode: end.code } : {}),
      artifacts: arts,
      evidence: rest,
    },
  };
}
