import type { ProjectionStore } from '../../activities/projection/index.js';
import { EV, parseEventData } from '../../core/events.js';

/** A published compaction as `session show` marks it (from its `session.compaction.summary` event). */
export interface CompactionMark {
  compactionId: string;
  trigger: 'threshold' | 'context_limit' | 'manual';
  boundary: { turn: number; step: number };
  beforeTokens: number;
  afterTokens: number;
  summaryHash: string;
  summary: string;
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
  const k = (n: number) => (n >= 10_000 ? `${(n / 1000).toFixed(1)}k` : String(n));
  return [
    '',
    `══ compacted ${m.compactionId} (${WHY[m.trigger]}): ≈${k(m.beforeTokens)} → ≈${k(m.afterTokens)} tokens; ` +
      `from here on the model gets the steps above as a summary (${m.summaryHash}, ${m.summary.length} characters)`,
  ];
}
