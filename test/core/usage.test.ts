import { describe, expect, it } from 'vitest';
import { EV, parseEventData } from '../../core/events.js';
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

  it('the snapshot is provider-confirmed when usage came, the tokenizer estimate otherwise (named)', () => {
    const req = { tokens: 1000, estimator: 'o200k_base' };
    expect(contextSnapshot({ inputTokens: 900, outputTokens: 100 }, req, 100)).toEqual({
      confirmedTokens: 1000,
      estimatedTokens: 0,
      totalTokens: 1000,
      estimator: 'o200k_base',
      requestEstimate: 1000,
    });
    expect(contextSnapshot(undefined, req, 100)).toMatchObject({ estimatedTokens: 1100, totalTokens: 1100 });
    expect(contextSnapshot({ inputTokens: 900 }, req, 100)).toMatchObject({
      confirmedTokens: 900,
      estimatedTokens: 100,
      totalTokens: 1000,
    });
  });

  it('with a known window the snapshot carries it and its usable part', () => {
    const snap = contextSnapshot(
      { inputTokens: 900, outputTokens: 100 },
      { tokens: 950, estimator: 'o200k_base≈anthropic' },
      0,
      { windowTokens: 200_000, outputReserveTokens: 32_000, source: 'builtin' },
    );
    expect(snap).toMatchObject({ windowTokens: 200_000, usableTokens: 168_000, estimator: 'o200k_base≈anthropic' });
  });

  it('a usage event recorded before issue 28 (no estimator, no window) still parses', () => {
    const old = {
      eventId: 'step_1_1:usage:1',
      turn: 1,
      step: 1,
      attempt: 1,
      usage: { inputTokens: 10, outputTokens: 2 },
      buckets: { uncachedInput: 10, output: 2 },
      cumulative: { requests: 1, tokens: { uncachedInput: 10, output: 2 }, unknownRequests: {} },
      snapshot: { confirmedTokens: 12, estimatedTokens: 0, totalTokens: 12 },
    };
    expect(parseEventData(EV.usage, old)?.snapshot).toEqual(old.snapshot);
  });
});
