import { describe, expect, it } from 'vitest';
import {
  OUTPUT_RESERVE_CAP,
  contextWindowFor,
  defaultOutputReserve,
  knownModel,
  usableTokens,
} from '../../core/compaction/windows.js';

describe('context windows (CP6): built-in table, zuno.json models, output reserve', () => {
  it('knows the README models and common current ones, with the reserve min(max output, 32 000)', () => {
    expect(contextWindowFor('openai', 'gpt-4.1')).toEqual({
      windowTokens: 1_047_576,
      outputReserveTokens: 32_000,
      source: 'builtin',
    });
    expect(contextWindowFor('openai', 'gpt-4o-mini')).toEqual({
      windowTokens: 128_000,
      outputReserveTokens: 16_384,
      source: 'builtin',
    });
    expect(contextWindowFor('openai', 'gpt-5')?.windowTokens).toBe(400_000);
    expect(contextWindowFor('openai', 'gpt-5')?.outputReserveTokens).toBe(OUTPUT_RESERVE_CAP);
    expect(contextWindowFor('openai', 'o4-mini')?.windowTokens).toBe(200_000);
    expect(contextWindowFor('anthropic', 'claude-sonnet-4')?.windowTokens).toBe(200_000);
    expect(contextWindowFor('anthropic', 'claude-3-5-sonnet')?.outputReserveTokens).toBe(8_192);
  });

  it('dated and -latest ids match their base id; other near-misses do not', () => {
    expect(knownModel('openai', 'gpt-4.1-2025-04-14')).toEqual(knownModel('openai', 'gpt-4.1'));
    expect(knownModel('anthropic', 'claude-sonnet-4-20250514')).toEqual(knownModel('anthropic', 'claude-sonnet-4'));
    expect(knownModel('anthropic', 'claude-3-7-sonnet-latest')?.windowTokens).toBe(200_000);
    expect(knownModel('openai', 'gpt-4.1-preview')).toBeNull();
    expect(knownModel('openai', 'gpt-4')).toBeNull();
    expect(knownModel('openai', 'toString')).toBeNull();
  });

  it('only catalog providers use the table; openrouter reads vendor/model ids', () => {
    expect(contextWindowFor('openrouter', 'openai/gpt-4o')?.windowTokens).toBe(128_000);
    expect(contextWindowFor('openrouter', 'anthropic/claude-opus-4-1')?.windowTokens).toBe(200_000);
    expect(contextWindowFor('openrouter', 'qwen/qwen3-coder')).toBeNull();
    expect(contextWindowFor('openrouter', 'gpt-4o')).toBeNull();
    // A gateway or local server may serve the same name with another window.
    expect(contextWindowFor('litellm', 'gpt-4.1')).toBeNull();
    expect(contextWindowFor('local', 'scripted')).toBeNull();
    expect(contextWindowFor('local', 'zuno-local')).toBeNull();
  });

  it('config wins, by exact key then undated key; its reserve defaults to the known model or a quarter', () => {
    const models = {
      'openai/gpt-4.1': { contextWindow: 300_000 },
      'vllm/qwen3-coder': { contextWindow: 32_768 },
      'gw/big': { contextWindow: 100_000, outputReserve: 10_000 },
      'anthropic/claude-sonnet-4': { contextWindow: 1_000_000, outputReserve: 64_000 },
    };
    expect(contextWindowFor('openai', 'gpt-4.1', models)).toEqual({
      windowTokens: 300_000,
      outputReserveTokens: 32_000,
      source: 'config',
    });
    expect(contextWindowFor('vllm', 'qwen3-coder', models)).toEqual({
      windowTokens: 32_768,
      outputReserveTokens: 8_192,
      source: 'config',
    });
    expect(contextWindowFor('gw', 'big', models)?.outputReserveTokens).toBe(10_000);
    expect(contextWindowFor('anthropic', 'claude-sonnet-4-20250514', models)).toMatchObject({
      windowTokens: 1_000_000,
      source: 'config',
    });
    // A model the config does not name falls back to the table.
    expect(contextWindowFor('openai', 'gpt-4o', models)?.source).toBe('builtin');
  });

  it('a reserve never leaves less than one usable token', () => {
    const w = contextWindowFor('gw', 'tiny', { 'gw/tiny': { contextWindow: 100, outputReserve: 500 } });
    expect(w?.outputReserveTokens).toBe(99);
    expect(usableTokens(w!)).toBe(1);
    expect(defaultOutputReserve(1_000_000)).toBe(32_000);
    expect(usableTokens({ windowTokens: 200_000, outputReserveTokens: 32_000, source: 'builtin' })).toBe(168_000);
  });
});
