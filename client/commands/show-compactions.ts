import type { ProjectionStore } from '../../activities/projection/index.js';
import { EV, parseEventData } from '../../core/events.js';
import { kTokens } from '../render.js';

/** A published compaction as `session show` marks it (from its `session.compaction.summary` event). */
export interface CompactionMark {
  compactionId: string;
  trigger: 'threshold' | 'context_limit' | 'manual';
  boundary: { turn: number; step: number };
  beforeTokens: number;
  afterTokens: number;
  summaryHash: string;
  summary: string;
  /** The summary request's usage as reported (null: none). */
  usage: { inputTokens?: number; outputTokens?: number } | null;
}

/** The session's published compactions, oldest first (CP13: failed or dangling attempts are not among them). */
export async function compactionMarks(store: ProjectionStore, sessionId: string): Promise<CompactionMark[]> {
  return (await store.eventsOfType(sessionId, EV.compactionSummary)).flatMap((e) => {
    const d = parseEventData(EV.compactionSummary, e.data);
    return d ? [d] : [];
  });
}

const WHY: Record<CompactionMark['trigger'], string> = {
  threshold: 'the next request would have crossed the compaction threshold',
  context_limit: "the provider answered that the request exceeded the model's context",
  manual: 'asked by a person',
};

/**
 * The lines marking a compaction boundary in `session show`: what the
 * steps above it became for the model, the token counts (estimated) and why.
 * Pure.
 */
export function compactionLines(m: CompactionMark): string[] {
  return [
    '',
    `══ compacted ${m.compactionId} (${WHY[m.trigger]}): the conversation above took ≈${kTokens(m.beforeTokens)} tokens, ` +
      `≈${kTokens(m.afterTokens)} after; ` +
      `from here on the model gets the steps above as a summary (${m.summaryHash}, ${m.summary.length} characters)`,
  ];
}

/**
 * `compaction: 3 summary requests, input 4,912, output 1,093 tokens (not in the usage above)` — what the
 * summary requests cost; '' when there were none. A bucket no request reported is `unknown`. Pure.
 */
export function compactionUsageLine(marks: CompactionMark[]): string {
  if (marks.length === 0) return '';
  const sum = (k: 'inputTokens' | 'outputTokens') => {
    const known = marks.map((m) => m.usage?.[k]).filter((v): v is number => v !== undefined);
    return known.length === 0 ? 'unknown' : known.reduce((a, b) => a + b, 0).toLocaleString('en-US');
  };
  const n = marks.length;
  return `compaction: ${n} summary request${n === 1 ? '' : 's'}, input ${sum('inputTokens')}, output ${sum('outputTokens')} tokens (not in the usage above)\n`;
}
