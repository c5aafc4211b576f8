import { describe, expect, it } from 'vitest';
import { COMPACTION_DEFAULTS, retainedTokensOf } from '../../core/compaction/settings.js';
import { validateResume } from '../../workflows/resume.js';
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

describe('the resume Update takes the new model context window (validateResume)', () => {
  const w = { windowTokens: 200_000, outputReserveTokens: 32_000, source: 'builtin' };
  const refusal = (req: unknown) => {
    try {
      validateResume(req, 'paused', false);
      return null;
    } catch (err) {
      return (err as Error).message;
    }
  };

  it('admits a window or null, and names a malformed one', () => {
    expect(refusal({ model: 'gpt-4.1', context: w })).toBeNull();
    expect(refusal({ model: 'local-model', context: null })).toBeNull();
    expect(refusal({ context: { ...w, windowTokens: 0 } })).toMatch(/^resume\.context must be null or/);
    expect(refusal({ context: { ...w, source: 'guess' } })).toMatch(/^resume\.context must be null or/);
    expect(refusal({ contexts: w })).toBe('resume.contexts is not a field of a resume request');
  });
});

describe('retainedTokensOf: the retained zone never takes more than a quarter of the usable window', () => {
  it('keeps the configured zone in a large window and caps it in a small one', () => {
    const compaction = { ...COMPACTION_DEFAULTS, retainedTokens: 6_000 };
    const window = (windowTokens: number) => ({ windowTokens, outputReserveTokens: 2_000, source: 'config' as const });
    expect(retainedTokensOf({ compaction })).toBe(6_000);
    expect(retainedTokensOf({ compaction, context: window(200_000) })).toBe(6_000);
    expect(retainedTokensOf({ compaction, context: window(12_000) })).toBe(2_500);
    expect(retainedTokensOf({})).toBe(COMPACTION_DEFAULTS.retainedTokens);
  });
});
