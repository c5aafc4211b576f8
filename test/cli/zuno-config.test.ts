import { errorOf, loadConfig as load } from '../helpers/config.js';
import { describe, expect, it } from 'vitest';
import { nativeStreamIdleMs, resolveModel } from '../../client/zuno-config.js';
import { resolveSurface } from '../../core/provider-config.js';

describe('provider config and wire-surface resolution (PR7, PR8)', () => {
  it('catalog providers resolve to their fixed profiles without any config', () => {
    const cfg = load({});
    expect(resolveModel(cfg, 'openai/gpt-5').provider.transport).toBe('responses');
    expect(resolveModel(cfg, 'xai/grok-4').provider.transport).toBe('responses');
    expect(resolveModel(cfg, 'openrouter/qwen').provider.transport).toBe('chat-completions');
    expect(resolveModel(cfg, 'anthropic/claude-sonnet-4-5').provider.transport).toBe('anthropic-messages');
  });

  it('precedence: model surface > fixed profile > provider surface > chat', () => {
    expect(resolveSurface({ providerId: 'gw', family: 'openai' })).toBe('chat-completions');
    expect(resolveSurface({ providerId: 'gw', family: 'openai', specSurface: 'responses' })).toBe('responses');
    // A fixed profile ignores a conflicting provider-level surface …
    expect(resolveSurface({ providerId: 'xai', family: 'openai', specSurface: 'chat' })).toBe('responses');
    expect(resolveSurface({ providerId: 'openrouter', family: 'openai', specSurface: 'responses' })).toBe(
      'chat-completions',
    );
    // … but not an explicit model surface.
    expect(
      resolveSurface({ providerId: 'openai', family: 'openai', specSurface: 'responses', modelSurface: 'chat' }),
    ).toBe('chat-completions');
    expect(resolveSurface({ providerId: 'claude', family: 'anthropic', modelSurface: 'responses' })).toBe(
      'anthropic-messages',
    );
  });

  it('a gateway reaches Responses with transport openai + surface responses, per model too', () => {
    const cfg = load({
      providers: {
        gw: {
          base_url: 'http://127.0.0.1:9/v1',
          surface: 'responses',
          reasoning_replay: 'encrypted',
          models: { 'small-chat': { surface: 'chat', reasoning_replay: 'off' } },
        },
      },
    });
    const big = resolveModel(cfg, 'gw/big').provider;
    expect(big).toMatchObject({
      transport: 'responses',
      reasoningReplay: 'encrypted',
      reasoningReplayMaxAgeMs: 86_400_000,
    });
    const small = resolveModel(cfg, 'gw/small-chat').provider;
    expect(small.transport).toBe('chat-completions');
    expect(small.reasoningReplay).toBeUndefined();
  });

  it('encrypted replay on a route that cannot carry capsules is refused at load, naming the file and provider or model', () => {
    const e1 = errorOf(() =>
      load({ providers: { gw: { base_url: 'http://127.0.0.1:9/v1', reasoning_replay: 'encrypted' } } }),
    );
    expect(e1.code).toBe('config_invalid');
    expect(e1.message).toContain('zuno.json: providers.gw.reasoning_replay');
    expect(e1.message).toContain('chat-completions');
    // Checked for every model named, not only the one a run uses.
    const e2 = errorOf(() =>
      load({
        providers: {
          gw: {
            base_url: 'http://127.0.0.1:9/v1',
            surface: 'responses',
            models: { m: { surface: 'chat', reasoning_replay: 'encrypted' } },
          },
        },
      }),
    );
    expect(e2.message).toContain('providers.gw.models.m.reasoning_replay');
  });

  it('bad input found at load: unparseable base_url, initial delay over max, per-model surface on a fixed transport', () => {
    for (const base_url of ['', 'not a url', 'https://', 'http://[::1', 'ftp://x/v1']) {
      const e = errorOf(() => load({ providers: { p: { base_url } } }));
      expect(e.code, base_url).toBe('config_invalid');
      expect(e.message, base_url).toContain('providers.p.base_url');
    }
    const delays = errorOf(() =>
      load({ providers: { p: { base_url: 'http://x/v1', retry: { initial_delay_ms: 60_000, max_delay_ms: 1000 } } } }),
    );
    expect(delays.message).toContain('providers.p.retry.initial_delay_ms');
    const anth = errorOf(() =>
      load({
        providers: { c: { transport: 'anthropic', base_url: 'http://x/v1', models: { m: { surface: 'responses' } } } },
      }),
    );
    expect(anth.message).toContain('providers.c.models.m.surface');
    const legacy = errorOf(() =>
      load({
        providers: {
          c: { transport: 'chat-completions', base_url: 'http://x/v1', models: { m: { surface: 'responses' } } },
        },
      }),
    );
    expect(legacy.message).toContain('providers.c.models.m.surface');
  });

  it('a config entry for a catalog id keeps the catalog transport and key variable unless it says otherwise', () => {
    const cfg = load({ providers: { anthropic: { base_url: 'http://127.0.0.1:9/v1' } } });
    const p = resolveModel(cfg, 'anthropic/claude').provider;
    expect(p).toMatchObject({
      transport: 'anthropic-messages',
      apiKeyEnv: 'ANTHROPIC_API_KEY',
      baseUrl: 'http://127.0.0.1:9/v1',
    });
  });

  it('unknown and contradictory keys are named', () => {
    const unknown = errorOf(() =>
      load({ providers: { gw: { base_url: 'http://x/v1', reasoningReplay: 'encrypted' } } }),
    );
    expect(unknown.code).toBe('config_invalid');
    expect(unknown.message).toContain('reasoningReplay');
    const anthropicSurface = errorOf(() =>
      load({ providers: { c: { base_url: 'http://x/v1', transport: 'anthropic', surface: 'responses' } } }),
    );
    expect(anthropicSurface.message).toContain('providers.c.surface');
    const badModelKey = errorOf(() =>
      load({ providers: { gw: { base_url: 'http://x/v1', models: { m: { surfce: 'chat' } } } } }),
    );
    expect(badModelKey.message).toContain('surfce');
  });

  it('PR5: catalog providers idle 300 s between chunks (ZUNO_STREAM_IDLE_TIMEOUT_SECS overrides); gateways 120 s', () => {
    const cfg = load({ providers: { gw: { base_url: 'http://127.0.0.1:9/v1' } } });
    expect(resolveModel(cfg, 'anthropic/claude').provider).toMatchObject({
      headerTimeoutMs: 330_000,
      chunkTimeoutMs: 300_000,
    });
    expect(resolveModel(cfg, 'gw/m').provider).toMatchObject({ headerTimeoutMs: 330_000, chunkTimeoutMs: 120_000 });
    expect(nativeStreamIdleMs({ ZUNO_STREAM_IDLE_TIMEOUT_SECS: '42' })).toBe(42_000);
    const bad = errorOf(() => nativeStreamIdleMs({ ZUNO_STREAM_IDLE_TIMEOUT_SECS: '-5' }));
    expect(bad.code).toBe('config_invalid');
    expect(bad.message).toContain('ZUNO_STREAM_IDLE_TIMEOUT_SECS');
  });

  it('Anthropic extended thinking: a budget per provider or model, refused on other providers and below 1024', () => {
    const cfg = load({
      providers: {
        claude: {
          transport: 'anthropic',
          base_url: 'http://127.0.0.1:9/v1',
          thinking_budget_tokens: 2048,
          models: { deep: { thinking_budget_tokens: 16_000 } },
        },
      },
    });
    expect(resolveModel(cfg, 'claude/fast').provider.thinkingBudgetTokens).toBe(2048);
    expect(resolveModel(cfg, 'claude/deep').provider.thinkingBudgetTokens).toBe(16_000);
    const onOpenAi = errorOf(() =>
      load({ providers: { gw: { base_url: 'http://x/v1', models: { m: { thinking_budget_tokens: 2048 } } } } }),
    );
    expect(onOpenAi.message).toContain('providers.gw.models.m.thinking_budget_tokens');
    const tooSmall = errorOf(() =>
      load({ providers: { c: { transport: 'anthropic', base_url: 'http://x/v1', thinking_budget_tokens: 10 } } }),
    );
    expect(tooSmall.message).toContain('providers.c.thinking_budget_tokens');
  });
});
