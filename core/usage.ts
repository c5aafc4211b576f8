/**
 * Usage accounting (PR11): per request, non-overlapping buckets from the
 * provider's normalized usage and a ContextUsageSnapshot; per session, the
 * cumulative sum of the buckets. Unknown stays unknown: a bucket the
 * provider did not report is absent, never 0, and the cumulative record
 * counts the requests whose bucket was unknown.
 */
import type { Usage } from './messages.js';

/** Non-overlapping token buckets of one request; absent = unknown. */
export interface UsageBuckets {
  /** Input neither read from nor written to a cache. */
  uncachedInput?: number;
  cacheRead?: number;
  cacheWrite?: number;
  /** Output, reasoning included. */
  output?: number;
}

/** Bucket names, in display order. */
export const BUCKETS = ['uncachedInput', 'cacheRead', 'cacheWrite', 'output'] as const;

/** Cumulative buckets of a session: sums of the known values and how many requests left each unknown. */
export interface CumulativeUsage {
  requests: number;
  tokens: UsageBuckets;
  /** Per bucket: requests whose provider did not report it. */
  unknownRequests: Partial<Record<(typeof BUCKETS)[number], number>>;
  /** Reasoning tokens reported (a subset of output), summed. */
  reasoning?: number;
}

/**
 * PR11 ContextUsageSnapshot after one request: the provider-confirmed
 * baseline (its input + output count for this request) and an estimate
 * (≈ 4 characters per token) of whatever it did not count.
 */
export interface ContextUsageSnapshot {
  /** Tokens the provider confirmed (input + output of this request); absent when it reported none. */
  confirmedTokens?: number;
  /** Estimated tokens the provider did not confirm. */
  estimatedTokens: number;
  /** confirmed + estimated. */
  totalTokens: number;
}

/** Rough token estimate of a text, 4 characters per token (PR11 "estimate of the rest"). */
export function estimateTokens(chars: number): number {
  return Math.ceil(chars / 4);
}

/** Splits normalized usage into non-overlapping buckets (uncached = input − cache read − cache write). */
export function usageBuckets(u: Usage | undefined): UsageBuckets {
  if (!u) return {};
  const b: UsageBuckets = {};
  if (u.cachedInputTokens !== undefined) b.cacheRead = u.cachedInputTokens;
  if (u.cacheWriteInputTokens !== undefined) b.cacheWrite = u.cacheWriteInputTokens;
  if (u.inputTokens !== undefined) {
    b.uncachedInput = Math.max(0, u.inputTokens - (u.cachedInputTokens ?? 0) - (u.cacheWriteInputTokens ?? 0));
  }
  if (u.outputTokens !== undefined) b.output = u.outputTokens;
  return b;
}

/** Adds one request's buckets to a session's cumulative usage (pure). */
export function accumulate(prev: CumulativeUsage | undefined, b: UsageBuckets, u: Usage | undefined): CumulativeUsage {
  const next: CumulativeUsage = {
    requests: (prev?.requests ?? 0) + 1,
    tokens: { ...(prev?.tokens ?? {}) },
    unknownRequests: { ...(prev?.unknownRequests ?? {}) },
    ...(prev?.reasoning !== undefined ? { reasoning: prev.reasoning } : {}),
  };
  for (const k of BUCKETS) {
    const v = b[k];
    if (v === undefined) next.unknownRequests[k] = (next.unknownRequests[k] ?? 0) + 1;
    else next.tokens[k] = (next.tokens[k] ?? 0) + v;
  }
  if (u?.reasoningTokens !== undefined) next.reasoning = (next.reasoning ?? 0) + u.reasoningTokens;
  return next;
}

/**
 * The snapshot after a request: the provider's input + output count when
 * it reported both, else an estimate from the request and output sizes
 * (characters) for what it left uncounted.
 */
export function contextSnapshot(u: Usage | undefined, requestChars: number, outputChars: number): ContextUsageSnapshot {
  const input = u?.inputTokens;
  const output = u?.outputTokens;
  const confirmed = input !== undefined ? input + (output ?? 0) : undefined;
  const estimated =
    (input === undefined ? estimateTokens(requestChars) : 0) + (output === undefined ? estimateTokens(outputChars) : 0);
  return {
    ...(confirmed !== undefined ? { confirmedTokens: confirmed } : {}),
    estimatedTokens: estimated,
    totalTokens: (confirmed ?? 0) + estimated,
  };
}
