import { describe, expect, it } from 'vitest';
import { withContext } from '../../core/compaction/settings.js';

describe('withContext: a resumed session on another model keeps no stale window (issue 28)', () => {
  const w = { windowTokens: 128_000, outputReserveTokens: 16_000, source: 'builtin' as const };
  const meta = { model: 'gpt-4o', context: w };

  it('keeps the window when none is sent, replaces it when one is, removes it when the new one is unknown', () => {
    expect(withContext(meta, undefined)).toBe(meta);
    const bigger = { ...w, windowTokens: 1_047_576 };
    expect(withContext(meta, bigger)).toEqual({ model: 'gpt-4o', context: bigger });
    expect(withContext(meta, null)).toEqual({ model: 'gpt-4o' });
    expect('context' in withContext(meta, null)).toBe(false);
  });
});
