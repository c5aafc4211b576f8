import { ZunoError } from '../../core/errors.js';
import type { Transcript } from '../../activities/projection/types.js';
import { openStore, resolvePaths } from '../context.js';
import { processSink, type Sink } from '../render.js';
import { checkSessionId } from '../session-start.js';
import { BUCKETS, type ContextUsageSnapshot, type CumulativeUsage } from '../../activities/session/usage.js';
import { EV, parseEventData } from '../../core/events.js';
import { outcomeWord, toolRecordFacts } from './tool-record-view.js';

/** Longest tool output shown per call in the human view, in characters. */
const OUTPUT_PREVIEW_CHARS = 400;

/**
 * `zuno session show <id> [--json]`: prints the stored transcript (inputs,
 * assistant text, every tool call with arguments, outcome and result) from
 * the projection, never from Temporal.
 * @throws ZunoError `session_not_found`.
 */
export async function sessionShowCommand(sessionId: string, opts: { json?: boolean }, sink: Sink = processSink) {
  checkSessionId(sessionId);
  const store = await openStore(resolvePaths());
  try {
    const t = await store.loadTranscript(sessionId);
    if (!t) throw new ZunoError('session_not_found', `no session ${sessionId} in the projection`);
    const last = await store.lastEvent(sessionId, EV.usage);
    const usage = last ? parseEventData(EV.usage, last.data) : null;
    const background = (await store.eventsOfType(sessionId, EV.bgCompleted)).flatMap((e) => {
      const d = parseEventData(EV.bgCompleted, e.data);
      return d ? [d] : [];
    });
    sink.out(
      opts.json
        ? `${JSON.stringify({ ...t, background, usage: usage ? { cumulative: usage.cumulative, snapshot: usage.snapshot } : null }, null, 2)}\n`
        : renderTranscript(t) + renderBackground(background) + (usage ? renderUsage(usage) : ''),
    );
  } finally {
    await store.close();
  }
}

/** How one background task ended (from its `bg.completed` event). */
interface BackgroundOutcome {
  taskID: string;
  state: string;
  outcome: string;
  exitCode: number | null;
  totalWritten: number;
  durationMs: number;
}

/** Human rendering of background task outcomes (BG6): one line per task. */
export function renderBackground(tasks: BackgroundOutcome[]): string {
  if (tasks.length === 0) return '';
  const lines = tasks.map(
    (b) =>
      `background ${b.taskID} ${b.state}${b.exitCode !== null ? ` exit ${b.exitCode}` : ''} ${b.outcome}, ` +
      `${b.totalWritten} bytes in ${(b.durationMs / 1000).toFixed(1)} s`,
  );
  return `\n${lines.join('\n')}\n`;
}

/** The parts of a `session.usage` event the view prints. */
interface UsageRecord {
  cumulative: CumulativeUsage;
  snapshot: ContextUsageSnapshot;
}

/** Human rendering of usage (PR11): cumulative buckets (unknown shown as such, never 0) and the latest context snapshot. */
export function renderUsage(u: UsageRecord): string {
  const c = u.cumulative;
  const bucket = (k: (typeof BUCKETS)[number], label: string) => {
    const known = c.tokens[k];
    const unknown = c.unknownRequests[k] ?? 0;
    if (known === undefined) return `${label} unknown`;
    return `${label} ${known}${unknown > 0 ? ` (+ unknown in ${unknown} of ${c.requests} requests)` : ''}`;
  };
  const lines = [
    '',
    `usage over ${c.requests} provider request${c.requests === 1 ? '' : 's'}: ` +
      [
        bucket('uncachedInput', 'input'),
        bucket('cacheRead', 'cache read'),
        bucket('cacheWrite', 'cache write'),
        bucket('output', 'output'),
      ].join(', ') +
      (c.reasoning !== undefined ? ` (reasoning ${c.reasoning} of output)` : ''),
    `context ≈ ${u.snapshot.totalTokens} tokens` +
      (u.snapshot.confirmedTokens !== undefined
        ? ` (provider-confirmed ${u.snapshot.confirmedTokens} + estimated ${u.snapshot.estimatedTokens})`
        : ` (estimated; the provider reported no usage)`),
  ];
  return `${lines.join('\n')}\n`;
}

/** Human rendering of a transcript: one block per step, tool calls with their outcome. */
export function renderTranscript(t: Transcript): string {
  const s = t.session;
  const lines = [
    `session ${s.id}  ${s.status}  ${s.provider}/${s.model}`,
    `workspace ${s.workspace}`,
    `workflow ${s.workflowId}`,
  ];
  if (s.error) lines.push(`error ${s.error}`);
  const calls = new Map(t.toolCalls.map((c) => [c.id, c]));
  const role = new Map(t.messages.map((m) => [m.id, m.role]));
  const parts = [...t.parts].sort((a, b) => a.turn - b.turn || a.step - b.step || a.position - b.position);
  let last = '';
  for (const p of parts) {
    const here = `${p.turn}.${p.step}`;
    if (here !== last) {
      lines.push('', `── turn ${p.turn + 1} step ${p.step + 1}`);
      last = here;
    }
    if (p.kind === 'text') lines.push(`${role.get(p.messageId) === 'user' ? 'user' : 'assistant'}: ${p.text ?? ''}`);
    else if (p.kind === 'reasoning') lines.push(`reasoning: ${(p.text ?? '').slice(0, 200)}`);
    else if (p.kind === 'tool_call' && p.toolCallId) {
      const c = calls.get(p.toolCallId);
      if (!c) continue;
      // A call that ran but did not do what it was asked (a shell exit ≠ 0) never reads `ok`.
      const outcome = c.outcome ? outcomeWord(c.outcome, c.result) : c.status;
      const extra = [
        c.blockedCategory ? `category ${c.blockedCategory}` : '',
        c.errorCode && !c.blockedCategory ? `code ${c.errorCode}` : '',
        c.attempts && c.attempts > 1 ? `attempts ${c.attempts}` : '',
      ].filter(Boolean);
      lines.push(`tool ${c.tool} [${c.callId}] ${outcome}${extra.length ? ` (${extra.join(', ')})` : ''}`);
      lines.push(`  args ${c.argsJson}`);
      lines.push(...toolRecordFacts(c.result).map((l) => `  ${l}`));
      if (c.output) {
        const out = c.output.length > OUTPUT_PREVIEW_CHARS ? `${c.output.slice(0, OUTPUT_PREVIEW_CHARS)}…` : c.output;
        lines.push(...out.split('\n').map((l) => `  | ${l}`));
      }
    }
  }
  if (s.finalText) lines.push('', `final: ${s.finalText}`);
  return `${lines.join('\n')}\n`;
}
