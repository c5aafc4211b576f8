/**
 * Usage accounting (PR11): per request, non-overlapping buckets from the
 * provider's normalized usage and a ContextUsageSnapshot; per session, the
 * cumulative sum of the buckets. Unknown stays unknown: a bucket the
 * provider did not report is absent, never 0, and the cumulative record
 * counts the requests whose bucket was unknown.
 */
import type { ContextWindow } from './compaction/settings.js';
import { usableTokens } from './compaction/windows.js';
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
 * baseline (its input + output count for this request) and a tokenizer
 * estimate (activities/session/context/estimator.ts) of whatever it did not
 * count. Events recorded before issue 28 carry only the first three fields
 * (their estimate was 4 characters per token).
 */
export interface ContextUsageSnapshot {
  /** Tokens the provider confirmed (input + output of this request); absent when it reported none. */
  confirmedTokens?: number;
  /** Estimated tokens the provider did not confirm. */
  estimatedTokens: number;
  /** confirmed + estimated. */
  totalTokens: number;
  /** The estimator of `estimatedTokens` and `requestEstimate` (e.g. `o200k_base`). */
  estimator?: string;
  /** The tokenizer's estimate of the whole request, whether or not the provider reported its input. */
  requestEstimate?: number;
  /** The model's context window (meta.context), when known. */
  windowTokens?: number;
  /** The window minus the output reserve: what a request may fill. */
  usableTokens?: number;
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
 * it reported them, else the tokenizer estimates for what it left
 * uncounted — `request.tokens` for its input, `outputTokens` for its
 * answer — with the estimator named and, when `window` is known, the
 * window and its usable part. Tokens. Pure.
 */
export function contextSnapshot(
  u: Usage | undefined,
  request: { tokens: number; estimator: string },
  outputTokens: number,
  window?: ContextWindow,
): ContextUsageSnapshot {
  const input = u?.inputTokens;
  const output = u?.outputTokens;
  const confirmed = input !== undefined ? input + (output ?? 0) : undefined;
  const estimated = (input === undefined ? request.tokens : 0) + (output === undefined ? outputTokens : 0);
  return {
    ...(confirmed !== undefined ? { confirmedTokens: confirmed } : {}),
    estimatedTokens: estimated,
    totalTokens: (confirmed ?? 0) + estimated,
    estimator: request.estimator,
    requestEstimate: request.tokens,
    ...(window ? { windowTokens: window.windowTokens, usableTokens: usableTokens(window) } : {}),
  };
}
