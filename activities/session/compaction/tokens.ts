/**
 * The one place compaction counts tokens (CP1, CP6): every estimate of the
 * compaction code (the retained zone, old tool outputs, before/after
 * figures) goes through {@link estimateTokens}. A placeholder of ~4
 * characters per token until the provider family's tokenizer replaces it
 * here (docs/compaction.md "How request size is counted").
 */

/** Name of the estimator recorded with every figure it produced (`session.compaction.summary` `estimator`). */
export const ESTIMATOR = 'chars/4';

/** Estimated tokens of `text`: ⌈characters / 4⌉; 0 for ''. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}
