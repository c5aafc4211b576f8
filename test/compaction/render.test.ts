import { describe, expect, it } from 'vitest';
import { compactedLine, compactingLine } from '../../client/render.js';

describe('zuno run shows compaction as it happens (issue 28 item 6)', () => {
  const base = { compactionId: 'cmp_2_3_ab12cd34', turn: 2, step: 3, attempt: 1 };

  it('says which recovery of the turn it is and the figures that crossed the line', () => {
    expect(
      compactingLine({ ...base, trigger: 'threshold', recovery: 2, usedTokens: 14_210, limitTokens: 11_200 }),
    ).toBe('⟳ compacting the conversation (2 of 5 this turn): ≈14.2k tokens, over the 11.2k threshold');
    expect(
      compactingLine({ ...base, trigger: 'context_limit', recovery: 1, usedTokens: 210_000, limitTokens: 200_000 }),
    ).toBe(
      '⟳ compacting the conversation (1 of 5 this turn): the provider counted 210.0k tokens, over its limit of 200.0k',
    );
    // Equal when rounded: the exact figures (a limit of 128 000 crossed by 5 tokens).
    expect(
      compactingLine({ ...base, trigger: 'context_limit', recovery: 1, usedTokens: 128_005, limitTokens: 128_000 }),
    ).toBe(
      '⟳ compacting the conversation (1 of 5 this turn): the provider counted 128,005 tokens, over its limit of 128,000',
    );
    expect(compactingLine({ ...base, trigger: 'manual', recovery: 0 })).toBe(
      '⟳ compacting the conversation (asked by a person)',
    );
  });

  it('says what the published summary saved', () => {
    const line = compactedLine({
      ...base,
      trigger: 'threshold',
      boundary: { turn: 2, step: 1 },
      summary: 'x'.repeat(2104),
      summaryHash: 'abc',
      previous: null,
      summarizedSteps: 9,
      summarizedUserMessages: 1,
      beforeTokens: 14_210,
      afterTokens: 5_300,
      estimator: 'o200k_base',
      usage: null,
    });
    expect(line).toBe(
      '✓ compacted: the earlier conversation took ≈14.2k tokens, now ≈5.3k as a summary and the kept steps (cmp_2_3_ab12cd34)',
    );
  });
});
