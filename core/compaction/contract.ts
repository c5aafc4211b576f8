/**
 * Compaction's contract (SPEC CP1–CP15; docs/compaction.md): the model's
 * context window and output reserve, the `compaction` settings of zuno.json,
 * the triggers, the `compactSession` activity's input and result, and the
 * recovery budget of one drive. Deterministic (shared by workflows and
 * activities).
 */
import type { Usage } from '../messages.js';
import type { SessionMeta } from '../session/meta.js';

export type { CompactionSettings, ContextWindow } from './settings.js';
export { COMPACTION_DEFAULTS } from './settings.js';

/** CP6/CP8: automatic recoveries (threshold and provider context limit, counted together) allowed in one drive. */
export const MAX_RECOVERIES_PER_DRIVE = 5;

/** Why a compaction runs: the proactive threshold (CP6), a provider's context-limit error (CP8), a person (manual). */
export type CompactionTrigger = 'threshold' | 'context_limit' | 'manual';

/** A step of the session (the compaction boundary: the last step the summary covers). */
export interface StepKey {
  turn: number;
  step: number;
}

/** Input of the `compactSession` activity. */
export interface CompactInput {
  meta: SessionMeta;
  /** Deterministic id of this compaction (`cmp_<turn>_<step>_<n>`; manual: `cmp_manual_<n>`). */
  compactionId: string;
  trigger: CompactionTrigger;
  /** The step about to be sent (its own rows, if any, are never summarized). */
  at: StepKey;
  /** 1..{@link MAX_RECOVERIES_PER_DRIVE} for an automatic recovery; 0 for a manual compaction. */
  recovery: number;
  /** The estimate or the provider's figures that triggered it (CP8 keeps the provider's used/limit). */
  usedTokens?: number;
  limitTokens?: number;
}

/** Result of `compactSession`: the published summary (or the one already published under the same id). */
export interface CompactResult {
  compactionId: string;
  /** The last step the summary covers; requests carry the steps after it verbatim. */
  boundary: StepKey;
  /** Estimated tokens of the conversation before and after (estimator named in `estimator`). */
  beforeTokens: number;
  afterTokens: number;
  /** sha256 of the summary text, hex, first 16 characters. */
  summaryHash: string;
  estimator: string;
  /** True when an earlier attempt had already published this compaction (a worker killed after publishing). */
  alreadyPublished: boolean;
  /** The summary request's usage as the provider reported it (a Goal's budgets count it, GL10). */
  usage?: Usage;
}

/** What modelStep returns instead of sending when the next request crosses the threshold (CP6). */
export interface CompactionRequired {
  usedTokens: number;
  limitTokens: number;
  estimator: string;
}

/** Error type (ApplicationFailure) of a provider's explicit context-limit error (CP8); details[0] = {used?, limit?}. */
export const CONTEXT_LIMIT_FAILURE = 'provider_context_limit';
