/**
 * The session's current valid summary (CP13): the newest published
 * `session.compaction.summary`. Only a published summary counts — a marker
 * without a summary (a dangling attempt) or a `session.compaction.failed`
 * never revokes it; older summaries stay in the projection, unused.
 */
import type { EventData } from '../../../core/events.js';
import { EV, parseEventData } from '../../../core/events.js';
import type { ProjectionStore, StepKey } from '../../projection/types.js';

/** A published summary as requests use it. */
export interface ValidSummary {
  compactionId: string;
  /** The last step the summary covers: requests carry the steps after it verbatim. */
  boundary: StepKey;
  summary: string;
  summaryHash: string;
  /** Model steps and user messages (the anchor excluded) it stands for, from the session's start. */
  summarizedSteps: number;
  summarizedUserMessages: number;
  /** Where the session's first user message (CP10 anchor) is stored; null when the session had none. */
  anchor: { turn: number; step: number; position: number } | null;
  /** The summary event's `seq` (newer summaries have larger ones). */
  seq: number;
}

/** A stored summary event's data as a {@link ValidSummary}. */
export function toValidSummary(data: EventData<typeof EV.compactionSummary>, seq: number): ValidSummary {
  return {
    compactionId: data.compactionId,
    boundary: data.boundary,
    summary: data.summary,
    summaryHash: data.summaryHash,
    summarizedSteps: data.summarizedSteps,
    summarizedUserMessages: data.summarizedUserMessages,
    anchor: data.anchor ?? null,
    seq,
  };
}

/**
 * The current valid summary of `sessionId`, or null when none was published
 * (one indexed read: the newest summary event). A row this build cannot
 * parse is treated as absent (the session is then assembled in full).
 */
export async function currentSummary(
  store: Pick<ProjectionStore, 'lastEvent'>,
  sessionId: string,
): Promise<ValidSummary | null> {
  const row = await store.lastEvent(sessionId, EV.compactionSummary);
  const data = row ? parseEventData(EV.compactionSummary, row.data) : null;
  return row && data ? toValidSummary(data, row.seq) : null;
}

/**
 * The summary published under `compactionId`, or null (a second run of the
 * same compaction — a worker killed after publishing — finds it here).
 */
export async function publishedSummary(
  store: Pick<ProjectionStore, 'eventsOfType'>,
  sessionId: string,
  compactionId: string,
): Promise<{ data: EventData<typeof EV.compactionSummary>; seq: number } | null> {
  const rows = await store.eventsOfType(sessionId, EV.compactionSummary);
  for (const row of rows) {
    const data = parseEventData(EV.compactionSummary, row.data);
    if (data && data.compactionId === compactionId) return { data, seq: row.seq };
  }
  return null;
}
