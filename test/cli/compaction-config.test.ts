import { errorOf, loadConfig as load } from '../helpers/config.js';
import { describe, expect, it } from 'vitest';
import { sessionCompaction, unknownWindowNote } from '../../client/compaction-config.js';
import { COMPACTION_DEFAULTS } from '../../core/compaction/settings.js';
import { renderUsage } from '../../client/commands/session-show.js';

describe('zuno.json models and compaction (CP6, CP7, CP12)', () => {
  it('no keys: the built-in window for a known model, none for an unknown one, the default settings', () => {
    const cfg = load({});
    expect(sessionCompaction(cfg, 'openai', 'gpt-4.1')).toEqual({
      context: { windowTokens: 1_047_576, outputReserveTokens: 32_000, source: 'builtin' },
      compaction: COMPACTION_DEFAULTS,
    });
    const unknown = sessionCompaction(cfg, 'vllm', 'qwen3-coder');
    expect(unknown).toEqual({ compaction: COMPACTION_DEFAULTS });
    expect('context' in unknown).toBe(false);
  });

  it('configured windows win; compaction keys override the defaults one by one', () => {
    const cfg = load({
      models: {
        'vllm/qwen3-coder': { context_window: 32_768, output_reserve: 4_096 },
        'local/scripted': { context_window: 8_000 },
      },
      compaction: { auto: false, threshold: 0.5, max_summary_bytes: 4_096 },
    });
    expect(sessionCompaction(cfg, 'vllm', 'qwen3-coder')).toEqual({
      context: { windowTokens: 32_768, outputReserveTokens: 4_096, source: 'config' },
      compaction: { ...COMPACTION_DEFAULTS, auto: false, threshold: 0.5, maxSummaryBytes: 4_096 },
    });
    expect(sessionCompaction(cfg, 'local', 'scripted').context).toEqual({
      windowTokens: 8_000,
      outputReserveTokens: 2_000,
      source: 'config',
    });
  });

  it('unknown keys and bad values are config_invalid naming the key path', () => {
    const cases: [unknown, string][] = [
      [{ compaction: { treshold: 0.5 } }, 'compaction.treshold: unknown key'],
      [{ compaction: { threshold: 0 } }, 'compaction.threshold'],
      [{ compaction: { threshold: 1.5 } }, 'compaction.threshold'],
      [{ compaction: { auto: 'yes' } }, 'compaction.auto'],
      [{ compaction: { retained_tokens: 0 } }, 'compaction.retained_tokens'],
      [{ compaction: { timeout_seconds: 2.5 } }, 'compaction.timeout_seconds'],
      [{ compaction: { max_summary_bytes: 512 } }, 'compaction.max_summary_bytes'],
      [{ models: { 'gpt-4.1': { context_window: 1000 } } }, 'models.gpt-4.1: expected a "provider/model" key'],
      [{ models: { 'openai/gpt-4.1': { context_window: 0 } } }, 'models.openai/gpt-4.1.context_window'],
      [{ models: { 'openai/gpt-4.1': { contextWindow: 1000 } } }, 'models.openai/gpt-4.1.contextWindow: unknown key'],
      [
        { models: { 'gw/m': { context_window: 1000, output_reserve: 1000 } } },
        'models.gw/m.output_reserve: must be less than context_window (1000)',
      ],
    ];
    for (const [config, key] of cases) {
      const e = errorOf(() => load(config));
      expect(e.code, JSON.stringify(config)).toBe('config_invalid');
      expect(e.message, JSON.stringify(config)).toContain(key);
    }
  });

  it('the unknown-window note names the model and the key to set, once, only when the window is unknown', () => {
    const meta = { provider: { id: 'vllm' }, model: 'qwen3-coder' };
    expect(unknownWindowNote(meta)).toBe(
      'note: no context window known for vllm/qwen3-coder — Zuno will not compact before requests (a provider\'s context-limit error is still recovered from); set zuno.json models["vllm/qwen3-coder"].context_window',
    );
    expect(
      unknownWindowNote({ ...meta, context: { windowTokens: 1000, outputReserveTokens: 10, source: 'config' } }),
    ).toBeNull();
  });
});

describe('session show: the context line names the usable window when known', () => {
  it('appends "of U usable (window W)"; older events without a window print as before', () => {
    const cumulative = { requests: 1, tokens: { uncachedInput: 900, output: 100 }, unknownRequests: {} };
    const snapshot = { confirmedTokens: 1000, estimatedTokens: 0, totalTokens: 1000 };
    expect(renderUsage({ cumulative, snapshot })).toContain(
      'context ≈ 1000 tokens (provider-confirmed 1000 + estimated 0)\n',
    );
    expect(
      renderUsage({ cumulative, snapshot: { ...snapshot, windowTokens: 200_000, usableTokens: 168_000 } }),
    ).toContain('context ≈ 1000 tokens (provider-confirmed 1000 + estimated 0) of 168000 usable (window 200000)\n');
  });
});
