import { describe, expect, it } from 'vitest';
import type { AssistantPart, ModelMessage, ProviderReasoning } from '../../core/messages.js';
import { DEFAULT_PROVIDER_RETRY, type ProviderConfig } from '../../core/provider-config.js';
import { applyReasoningReplay } from '../../activities/session/reasoning-replay.js';
import { buildResponsesBody } from '../../activities/providers/responses-request.js';

const NOW = 1_800_000_000_000;

function provider(over: Partial<ProviderConfig> = {}): ProviderConfig {
  return {
    id: 'openai',
    transport: 'responses',
    baseUrl: 'http://127.0.0.1:9/v1',
    retry: DEFAULT_PROVIDER_RETRY,
    headerTimeoutMs: 1000,
    chunkTimeoutMs: 1000,
    reasoningReplay: 'encrypted',
    reasoningReplayMaxAgeMs: 60_000,
    ...over,
  };
}

function capsule(over: Partial<ProviderReasoning> = {}): ProviderReasoning {
  return {
    provider: 'openai',
    model: 'gpt-5',
    surface: 'responses',
    itemId: 'rs_1',
    encryptedContent: 'gAAAA…opaque',
    producedAtMs: NOW - 1_000,
    ...over,
  };
}

function assistant(parts: AssistantPart[]): ModelMessage {
  return { role: 'assistant', text: '', toolCalls: [], parts };
}

const call: AssistantPart = { kind: 'tool_call', callId: 'call_1', name: 'read', argsJson: '{"path":"a"}' };

/** The capsules left on the assistant parts after the policy ran. */
function kept(messages: ModelMessage[]): (ProviderReasoning | undefined)[] {
  return messages.flatMap((m) =>
    m.role === 'assistant' ? (m.parts ?? []).filter((p) => p.kind === 'reasoning').map((p) => p.providerReasoning) : [],
  );
}

describe('PR8 reasoning replay policy', () => {
  it('replays a capsule to its own provider/model when output follows it, byte-for-byte and in place', () => {
    const c = capsule();
    const input = [assistant([{ kind: 'reasoning', text: 'think', providerReasoning: c }, call])];
    const { messages, counts } = applyReasoningReplay(input, { provider: provider(), model: 'gpt-5', nowMs: NOW });
    expect(counts).toMatchObject({
      reasoningReplay: 'encrypted',
      replayedReasoningCapsules: 1,
      withheldReasoningCapsules: 0,
    });
    const parts = (messages[0] as Extract<ModelMessage, { role: 'assistant' }>).parts!;
    expect(parts.map((p) => p.kind)).toEqual(['reasoning', 'tool_call']);
    expect((parts[0] as { providerReasoning: ProviderReasoning }).providerReasoning).toBe(c);
  });

  it('withholds on another model, another provider, past the max age, with replay off, or with no output after it', () => {
    const cases: [string, ModelMessage[], Partial<ProviderConfig>, string][] = [
      [
        'other model',
        [assistant([{ kind: 'reasoning', text: 't', providerReasoning: capsule() }, call])],
        {},
        'gpt-5-mini',
      ],
      [
        'other provider',
        [assistant([{ kind: 'reasoning', text: 't', providerReasoning: capsule({ provider: 'azure' }) }, call])],
        {},
        'gpt-5',
      ],
      [
        'too old',
        [
          assistant([
            { kind: 'reasoning', text: 't', providerReasoning: capsule({ producedAtMs: NOW - 60_001 }) },
            call,
          ]),
        ],
        {},
        'gpt-5',
      ],
      [
        'replay off',
        [assistant([{ kind: 'reasoning', text: 't', providerReasoning: capsule() }, call])],
        { reasoningReplay: 'off' },
        'gpt-5',
      ],
      [
        'nothing after it',
        [assistant([call, { kind: 'reasoning', text: 't', providerReasoning: capsule() }])],
        {},
        'gpt-5',
      ],
    ];
    for (const [why, input, over, model] of cases) {
      const { messages, counts } = applyReasoningReplay(input, { provider: provider(over), model, nowMs: NOW });
      expect(counts.replayedReasoningCapsules, why).toBe(0);
      expect(counts.withheldReasoningCapsules, why).toBe(1);
      expect(kept(messages), why).toEqual([undefined]);
      // The stored input is not touched: switching back restores replay.
      expect(kept(input), why).toHaveLength(1);
      expect(kept(input)[0], why).toBeDefined();
    }
  });

  it('counts two capsules of one step separately, each before the output it explains', () => {
    const a = capsule({ itemId: 'rs_a' });
    const b = capsule({ itemId: 'rs_b' });
    const input = [
      assistant([
        { kind: 'reasoning', text: 'one', providerReasoning: a },
        { kind: 'text', text: 'first I read' },
        call,
        { kind: 'reasoning', text: 'two', providerReasoning: b },
        { ...call, callId: 'call_2' } as AssistantPart,
      ]),
    ];
    const { messages, counts } = applyReasoningReplay(input, { provider: provider(), model: 'gpt-5', nowMs: NOW });
    expect(counts.replayedReasoningCapsules).toBe(2);
    expect(kept(messages).map((c) => c?.itemId)).toEqual(['rs_a', 'rs_b']);
  });

  it('Anthropic thinking signatures go back unchanged to the model that signed them, whatever reasoning_replay says', () => {
    const signed = capsule({
      surface: 'anthropic-messages',
      provider: 'anthropic',
      model: 'claude',
      encryptedContent: undefined,
      signature: 'sig',
    });
    const input = [assistant([{ kind: 'reasoning', text: 'hm', providerReasoning: signed }, call])];
    const anthropic = provider({ id: 'anthropic', transport: 'anthropic-messages', reasoningReplay: undefined });
    expect(
      applyReasoningReplay(input, { provider: anthropic, model: 'claude', nowMs: NOW }).counts
        .replayedReasoningCapsules,
    ).toBe(1);
    expect(
      applyReasoningReplay(input, { provider: anthropic, model: 'claude-2', nowMs: NOW }).counts
        .withheldReasoningCapsules,
    ).toBe(1);
  });

  it('a reasoning part without a capsule, dropped from the Responses request, counts as withheld', () => {
    const input = [
      assistant([{ kind: 'reasoning', text: 'summary only, no capsule' }, call]),
      assistant([
        { kind: 'reasoning', text: 'kept', providerReasoning: capsule() },
        { ...call, callId: 'call_2' },
      ]),
    ];
    const { messages, counts } = applyReasoningReplay(input, { provider: provider(), model: 'gpt-5', nowMs: NOW });
    expect(counts).toMatchObject({ replayedReasoningCapsules: 1, withheldReasoningCapsules: 1 });
    // what the counts say is what the request carries: every reasoning part is replayed or withheld
    const body = buildResponsesBody(provider(), { model: 'gpt-5', messages, tools: [] });
    const sent = body.input.filter((i) => i.type === 'reasoning').length;
    const reasoningParts = kept(input).length;
    expect(sent).toBe(counts.replayedReasoningCapsules);
    expect(reasoningParts - sent).toBe(counts.withheldReasoningCapsules);
  });
});
