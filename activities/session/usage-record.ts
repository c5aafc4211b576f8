import type { NewEvent, ProjectionStore } from '../projection/types.js';
import { EV, parseEventData } from '../../core/events.js';
import type { ModelResponse } from '../providers/types.js';
import { accumulate, contextSnapshot, type CumulativeUsage, usageBuckets } from '../../core/usage.js';

/**
 * The `session.usage` event of one provider request (PR11), to be written
 * with the step's other records; null when this attempt's is recorded
 * already. It holds the
 * provider's normalized usage (or null when it reported none), its
 * non-overlapping buckets, the session's cumulative buckets (the previous
 * event's plus these) and the ContextUsageSnapshot. Every answered request
 * counts — a step retried after its answer arrived was billed twice — but
 * one attempt's request is counted once (the event id is per attempt).
 */
export async function usageEvent(
  store: ProjectionStore,
  at: { sessionId: string; turn: number; step: number; attempt: number; atMs: number },
  response: ModelResponse,
  requestChars: number,
): Promise<NewEvent | null> {
  const id = `step_${at.turn}_${at.step}:usage:${at.attempt}`;
  const stored = await store.lastEvent(at.sessionId, EV.usage);
  const last = stored ? parseEventData(EV.usage, stored.data) : null;
  if (last?.eventId === id) return null;
  const prev: CumulativeUsage | undefined = last?.cumulative;
  const buckets = usageBuckets(response.usage);
  const outputChars = response.parts.reduce(
    (n, p) => n + (p.kind === 'tool_call' ? p.argsJson.length + p.name.length : p.text.length),
    0,
  );
  return {
    id,
    sessionId: at.sessionId,
    type: EV.usage,
    data: {
      eventId: id,
      turn: at.turn,
      step: at.step,
      attempt: at.attempt,
      usage: response.usage ?? null,
      buckets,
      cumulative: accumulate(prev, buckets, response.usage),
      snapshot: contextSnapshot(response.usage, requestChars, outputChars),
    },
    atMs: at.atMs,
  };
}
