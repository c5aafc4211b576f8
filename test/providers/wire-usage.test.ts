import { describe, expect, it } from 'vitest';
import { mapOpenAiUsage, wireCount } from '../../activities/providers/wire-usage.js';
import { parseScript } from '../../local-provider/script.js';

const CHAT = {
  input: 'prompt_tokens',
  output: 'completion_tokens',
  inputDetails: 'prompt_tokens_details',
  outputDetails: 'completion_tokens_details',
};

describe('wire token counts (PR11: unknown stays unknown, never invented)', () => {
  it('whole numbers count (12.0 is 12); fractional, negative and non-numeric values are "not sent"', () => {
    expect([12, 12.0, 0].map(wireCount)).toEqual([12, 12, 0]);
    expect([1.5, -1, Number.NaN, Infinity, '12', null].map(wireCount)).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
    expect(mapOpenAiUsage({ prompt_tokens: 10, completion_tokens: 1.5 }, CHAT)).toEqual({ inputTokens: 10 });
  });
});

describe('local provider script validation', () => {
  it('a scripted Retry-After with CR/LF is refused (it would split the HTTP header)', () => {
    expect(() =>
      parseScript({ replies: [{ text: 'x', fault: { status: 429, retryAfter: '1\r\nX-Injected: y' } }] }),
    ).toThrow(/replies\[0\]\.fault\.retryAfter.*CR or LF/);
  });
});
