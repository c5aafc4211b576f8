import { describe, expect, it } from 'vitest';
import { accumulate, contextSnapshot, usageBuckets } from '../../core/usage.js';

describe('PR11 usage buckets and snapshots', () => {
  it('OpenAI cached tokens are inside input: uncached = input − cached, nothing counted twice', () => {
    expect(usageBuckets({ inputTokens: 1000, cachedInputTokens: 800, outputTokens: 50, reasoningTokens: 20 })).toEqual({
      uncachedInput: 200,
      cacheRead: 800,
      output: 50,
    });
  });

  it('Anthropic input = uncached + cache read + cache write (normalized by the adapter), split back exactly', () => {
    // Wire: input_tokens 10 (uncached), cache_read 500, cache_creation 300 → normalized input 810.
    expect(
      usageBuckets({ inputTokens: 810, cachedInputTokens: 500, cacheWriteInputTokens: 300, outputTokens: 7 }),
    ).toEqual({
      uncachedInput: 10,
      cacheRead: 500,
      cacheWrite: 300,
      output: 7,
    });
  });

  it('unknown stays unknown: absent buckets are not 0 and the cumulative record counts them', () => {
    expect(usageBuckets(undefined)).toEqual({});
    const first = accumulate(undefined, usageBuckets({ inputTokens: 100, outputTokens: 10 }), {
      inputTokens: 100,
      outputTokens: 10,
    });
    const second = accumulate(first, usageBuckets(undefined), undefined);
    expect(second.requests).toBe(2);
    expect(second.tokens).toEqual({ uncachedInput: 100, output: 10 });
    expect(second.tokens.cacheRead).toBeUndefined();
    expect(second.unknownRequests).toEqual({ cacheRead: 2, cacheWrite: 2, uncachedInput: 1, output: 1 });
  });

  it('the snapshot is provider-confirmed when usage came, estimated otherwise', () => {
    expect(contextSnapshot({ inputTokens: 900, outputTokens: 100 }, 4000, 400)).toEqual({
      confirmedTokens: 1000,
      estimatedTokens: 0,
      totalTokens: 1000,
    });
    expect(contextSnapshot(undefined, 4000, 400)).toEqual({ estimatedTokens: 1100, totalTokens: 1100 });
    expect(contextSnapshot({ inputTokens: 900 }, 4000, 400)).toEqual({
      confirmedTokens: 900,
      estimatedTokens: 100,
      totalTokens: 1000,
    });
  });
});
