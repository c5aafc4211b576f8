/**
 * The proactive compaction check before a request (CP6, CP7): the size of
 * the request about to be sent — the last request's provider-reported input
 * plus the estimated growth since (core/compaction/accounting.ts), only
 * when that request was made after the current summary — against
 * `compaction.threshold` × the usable window (window − output reserve).
 */
import { COMPACTION_DEFAULTS, type CompactionRequired } from '../../../core/compaction/contract.js';
import { retainedTokensOf } from '../../../core/compaction/settings.js';
import { nextRequestTokens } from '../../../core/compaction/accounting.js';
import { usableTokens } from '../../../core/compaction/windows.js';
import { EV, parseEventData } from '../../../core/events.js';
import type { SessionMeta } from '../../../core/session/meta.js';
import type { ProjectionStore } from '../../projection/types.js';
import type { ValidSummary } from './current.js';

/** What the check needs of the request and the conversation it carries. */
export interface ThresholdInput {
  meta: SessionMeta;
  /** The tokenizer estimate of the request about to be sent. */
  estimate: { requestTokens: number; estimator: string };
  /** The valid summary the conversation starts from, if any. */
  summary: ValidSummary | null;
  /**
   * Estimated tokens of the stored steps a compaction could summarize (after
   * the summary's boundary, the anchor excluded); called only once the
   * request is over the threshold (it tokenizes the conversation again).
   */
  compactableTokens: () => number;
}

/**
 * The crossing, or null: no window known (no proactive compaction, the
 * run said so once), `compaction.auto` false (CP7), under the threshold, or
 * too little to compact — the steps a compaction could summarize are no
 * more than `min(retainedTokens, limit / 2)`: what does not fit then is the
 * fixed part (system segments, tools, the anchor, the summary), which a
 * compaction cannot shrink; the request is sent, and a provider's
 * context-limit error still recovers (CP8). This keeps a session whose
 * fixed part is near the threshold from compacting before every step.
 * Reads the session's newest `session.usage` event.
 */
export async function thresholdCrossing(
  store: Pick<ProjectionStore, 'lastEvent'>,
  t: ThresholdInput,
): Promise<CompactionRequired | null> {
  const settings = t.meta.compaction ?? COMPACTION_DEFAULTS;
  if (!t.meta.context || !settings.auto) return null;
  const limit = Math.floor(settings.threshold * usableTokens(t.meta.context));
  const row = await store.lastEvent(t.meta.sessionId, EV.usage);
  const usage = row && row.seq > (t.summary?.seq ?? 0) ? parseEventData(EV.usage, row.data) : null;
  const sameEstimator = usage?.snapshot.estimator === t.estimate.estimator;
  const last =
    usage && sameEstimator && usage.snapshot.requestEstimate !== undefined
      ? {
          estimate: usage.snapshot.requestEstimate,
          ...(usage.usage?.inputTokens !== undefined ? { reportedInput: usage.usage.inputTokens } : {}),
        }
      : undefined;
  const next = nextRequestTokens({ estimateNow: t.estimate.requestTokens, ...(last ? { last } : {}) });
  if (next.tokens <= limit) return null;
  // Counted only now, over the line: tokenizing the conversation again costs what the request's estimate did.
  if (t.compactableTokens() <= Math.min(retainedTokensOf(t.meta), limit / 2)) return null;
  return { usedTokens: next.tokens, limitTokens: limit, estimator: t.estimate.estimator };
}
