/**
 * The size of the next request (SPEC CP1, CP6; docs/compaction.md "How
 * request size is counted"): the last request's provider-reported input plus
 * an estimate of what was added since. Pure and deterministic.
 */

/** What is known of the previous request of the same compaction boundary. */
export interface LastRequestMeasure {
  /** The tokenizer estimate of that request (same estimator as `estimateNow`). */
  estimate: number;
  /** The provider's input tokens for it (all input, cache reads and writes included); absent: not reported. */
  reportedInput?: number;
  /**
   * The provider's output tokens for it. Not added: the answer is part of
   * the transcript now, so `estimateNow − estimate` counts its text, and
   * its reasoning tokens are not sent again.
   */
  reportedOutput?: number;
}

/** The next request's size in tokens and what it rests on. */
export interface NextRequestSize {
  tokens: number;
  /** `reported`: the provider's figure for the last request plus an estimated delta; `estimate`: the tokenizer alone. */
  basis: 'reported' | 'estimate';
}

/**
 * The tokens the next request will take (CP1 "use the last reported usage,
 * else the assembled-prompt estimate"). With `last.reportedInput` (the
 * previous request after the same compaction boundary, answered with
 * usage): `reportedInput + max(0, estimateNow − last.estimate)` — the
 * provider's count corrects the tokenizer's error on everything it already
 * saw, and only what was added since (the answer, tool results, new input)
 * is estimated; a request that shrank (a system segment got shorter) adds
 * nothing. Otherwise (first request, after a compaction, a provider that
 * reports no usage): `estimateNow`. All values in tokens; negative or
 * non-finite inputs are the caller's bug and are not checked.
 */
export function nextRequestTokens(input: { estimateNow: number; last?: LastRequestMeasure }): NextRequestSize {
  const { estimateNow, last } = input;
  if (last?.reportedInput === undefined) return { tokens: estimateNow, basis: 'estimate' };
  return { tokens: last.reportedInput + Math.max(0, estimateNow - last.estimate), basis: 'reported' };
}
