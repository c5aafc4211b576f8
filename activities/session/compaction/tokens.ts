/**
 * The one place compaction counts tokens (CP1, CP6): every estimate of the
 * compaction code (the retained zone, old tool outputs, before/after
 * figures) goes through {@link estimateTokens}, the o200k_base tokenizer of
 * ../context/estimator.ts (docs/compaction.md "How request size is counted").
 */
import { estimateTextTokens } from '../context/estimator.js';

/** Name of the estimator recorded with every figure it produced (`session.compaction.summary` `estimator`). */
export const ESTIMATOR = 'o200k_base';

/** Estimated tokens of `text` (o200k_base); 0 for ''. */
export function estimateTokens(text: string): number {
  return text === '' ? 0 : estimateTextTokens(text);
}
