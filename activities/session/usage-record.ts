import type { NewEvent, ProjectionStore } from '../projection/types.js';
import type { ContextWindow } from '../../core/compaction/settings.js';
import { EV, parseEventData } from '../../core/events.js';
import type { ModelResponse } from '../providers/types.js';
import { accumulate, contextSnapshot, type CumulativeUsage, usageBuckets } from '../../core/usage.js';
import { estimateTextTokens, estimatorById } from './context/estimator.js';

/** The request's tokenizer estimate (activities/session/context/estimator.ts `estimateRequestTokens`). */
export interface RequestEstimate {
  requestTokens: number;
  /** The estimator's id (`o200k_base`, `o200k_base≈anthropic`). */
  estimator: string;
}

/**
 * The `session.usage` event of one provider request (PR11), to be written
 * with the step's other records; null when this attempt's is recorded
 * already. It holds the
 * provider's normalized usage (or null when it reported none), its
 * non-overlapping buckets, the session's cumulative buckets (the previous
 * event's plus these) and the ContextUsageSnapshot: `request`'s estimate,
 * the answer estimated with the same estimator, and the window
 * (`meta.context`) when known. Every answered request
 * counts — a step retried after its answer arrived was billed twice — but
 * one attempt's request is counted once (the event id is per attempt).
 */
export async function usageEvent(
  store: ProjectionStore,
  at: { sessionId: string; turn: number; step: number; attempt: number; atMs: number },
  response: ModelResponse,
  request: RequestEstimate,
  window?: ContextWindow,
): Promise<NewEvent | null> {
  const id = `step_${at.turn}_${at.step}:usage:${at.attempt}`;
  const stored = await store.lastEvent(at.sessionId, EV.usage);
  const last = stored ? parseEventData(EV.usage, stored.data) : null;
  if (last?.eventId === id) return null;
  const prev: CumulativeUsage | undefined = last?.cumulative;
  const buckets = usageBuckets(response.usage);
  const estimator = estimatorById(request.estimator);
  // The answer is estimated only when the provider did not report its output.
  const outputTokens =
    response.usage?.outputTokens !== undefined
      ? 0
      : response.parts.reduce(
          (n, p) => n + estimateTextTokens(p.kind === 'tool_call' ? `${p.name} ${p.argsJson}` : p.text, estimator),
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
      snapshot: contextSnapshot(
        response.usage,
        { tokens: request.requestTokens, estimator: request.estimator },
        outputTokens,
        window,
      ),
    },
    atMs: at.atMs,
  };
}
