import { describe, expect, it } from 'vitest';
import { nextRequestTokens } from '../../core/compaction/accounting.js';

describe('next request size (CP1): reported input + estimated delta, else the estimate', () => {
  it('no previous request, or one without reported input: the estimate alone', () => {
    expect(nextRequestTokens({ estimateNow: 5_000 })).toEqual({ tokens: 5_000, basis: 'estimate' });
    expect(nextRequestTokens({ estimateNow: 5_000, last: { estimate: 4_000, reportedOutput: 300 } })).toEqual({
      tokens: 5_000,
      basis: 'estimate',
    });
  });

  it('with reported input: the provider figure corrects what it saw, only the growth is estimated', () => {
    expect(nextRequestTokens({ estimateNow: 5_000, last: { estimate: 4_000, reportedInput: 4_600 } })).toEqual({
      tokens: 5_600,
      basis: 'reported',
    });
    // Reported output is not added: the answer is inside estimateNow − estimate already.
    expect(
      nextRequestTokens({ estimateNow: 5_000, last: { estimate: 4_000, reportedInput: 4_600, reportedOutput: 900 } })
        .tokens,
    ).toBe(5_600);
  });

  it('a request that shrank adds nothing (never below the reported figure)', () => {
    expect(nextRequestTokens({ estimateNow: 3_000, last: { estimate: 4_000, reportedInput: 4_600 } }).tokens).toBe(
      4_600,
    );
    expect(nextRequestTokens({ estimateNow: 10, last: { estimate: 10, reportedInput: 0 } })).toEqual({
      tokens: 0,
      basis: 'reported',
    });
  });
});
