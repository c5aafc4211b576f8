/**
 * The real Anthropic Messages adapter against the real local provider over
 * real HTTP on loopback (no mocks): ordered parts with capsules (PR8, PR9),
 * byte-exact tool input, usage normalization (PR11), typed errors (PR3, PR6)
 * and stream completeness (PR4).
 */
import { describe, expect, it } from 'vitest';
import { completeAnthropicMessage } from '../../activities/providers/anthropic-complete.js';
import { streamAnthropicMessages } from '../../activities/providers/anthropic-messages.js';
import type { ModelRequest, ProviderConfig } from '../../activities/providers/types.js';
import { providerConfig, useLocalProviders } from './helpers.js';

const req: ModelRequest = {
  model: 'claude-test',
  messages: [
    { role: 'system', text: 'You are terse.' },
    { role: 'user', text: 'Go.' },
  ],
  tools: [],
};

const cfg = (url: string, over: Partial<ProviderConfig> = {}): ProviderConfig =>
  providerConfig(url, { transport: 'anthropic-messages', ...over });

/** Every error seen in this file is checked for secrets at the end (PR6). */
const { serve, failureOf } = useLocalProviders({ moreErrorsThan: 8 });

describe('Anthropic Messages stream assembly', () => {
  it('thinking with signature, redacted thinking, text, tool_use and text again: parts in provider order with capsules; deltas forwarded', async () => {
    const server = await serve({
      replies: [
        {
          output: [
            { reasoning: 'First I think about it.', capsule: 'SIG-ONE/+=' },
            { redactedReasoning: 'REDACTED-OPAQUE-DATA' },
            { text: 'Let me look.' },
            { toolCall: { id: 'toolu_1', name: 'read', arguments: { path: 'a.ts' } } },
            { reasoning: 'Now the second.', capsule: 'SIG-TWO' },
            { text: 'Done.' },
          ],
        },
      ],
    });
    const text: string[] = [];
    const reasoning: string[] = [];
    let chunks = 0;
    const before = Date.now();
    const r = await streamAnthropicMessages(cfg(server.url, { id: 'anthropic-x' }), req, {
      onTextDelta: (t) => text.push(t),
      onReasoningDelta: (t) => reasoning.push(t),
      onChunk: () => (chunks += 1),
    });
    const cap = (extra: Record<string, string>) => ({
      provider: 'anthropic-x',
      model: 'claude-test',
      surface: 'anthropic-messages',
      ...extra,
      producedAtMs: expect.any(Number),
    });
    expect(r.parts).toEqual([
      { kind: 'reasoning', text: 'First I think about it.', providerReasoning: cap({ signature: 'SIG-ONE/+=' }) },
      { kind: 'reasoning', text: '', providerReasoning: cap({ redactedData: 'REDACTED-OPAQUE-DATA' }) },
      { kind: 'text', text: 'Let me look.' },
      { kind: 'tool_call', callId: 'toolu_1', name: 'read', argsJson: '{"path":"a.ts"}' },
      { kind: 'reasoning', text: 'Now the second.', providerReasoning: cap({ signature: 'SIG-TWO' }) },
      { kind: 'text', text: 'Done.' },
    ]);
    const p0 = r.parts[0] as { providerReasoning: { producedAtMs: number } };
    expect(p0.providerReasoning.producedAtMs).toBeGreaterThanOrEqual(before);
    expect(p0.providerReasoning.producedAtMs).toBeLessThanOrEqual(Date.now());
    expect(text.join('')).toBe('Let me look.Done.');
    expect(text.length).toBeGreaterThan(2);
    expect(reasoning.join('')).toBe('First I think about it.Now the second.');
    expect(r.text).toBe('Let me look.Done.');
    expect(r.reasoning).toBe('First I think about it.Now the second.');
    expect(r.toolCalls).toEqual([{ callId: 'toolu_1', name: 'read', argsJson: '{"path":"a.ts"}' }]);
    expect(r.finishReason).toBe('tool_calls');
    expect(r.requestId).toBe('req_local_1');
    expect(chunks).toBeGreaterThan(0);
  });

  it('tool input is the partial_json bytes concatenated exactly (odd spacing, escapes, non-ASCII, malformed kept); a tool without arguments gets "{}"', async () => {
    const odd = '{ "path" :  "dir/a \\"b\\".ts",\n "n": 1.50, "u": "\\u00e9 ü 🚀" }';
    const broken = '{"command": "ls -la';
    const server = await serve({
      replies: [
        {
          toolCalls: [
            { id: 'toolu_odd', name: 'read', arguments: odd },
            { id: 'toolu_broken', name: 'shell', arguments: broken },
            { id: 'toolu_empty', name: 'glob', arguments: '' },
          ],
        },
      ],
    });
    const r = await streamAnthropicMessages(cfg(server.url), req);
    expect(r.toolCalls).toEqual([
      { callId: 'toolu_odd', name: 'read', argsJson: odd },
      { callId: 'toolu_broken', name: 'shell', argsJson: broken },
      { callId: 'toolu_empty', name: 'glob', argsJson: '{}' },
    ]);
    expect(r.finishReason).toBe('tool_calls');
  });

  it('PR11 usage: input = uncached + cache read + cache write; cache buckets and thinking tokens kept; no total', async () => {
    const server = await serve({
      replies: [
        {
          text: 'cached',
          usage: {
            inputTokens: 12,
            cachedInputTokens: 900,
            cacheWriteInputTokens: 300,
            outputTokens: 40,
            reasoningTokens: 8,
          },
        },
      ],
    });
    const r = await streamAnthropicMessages(cfg(server.url), req);
    expect(r.usage).toEqual({
      inputTokens: 1212,
      cachedInputTokens: 900,
      cacheWriteInputTokens: 300,
      outputTokens: 40,
      reasoningTokens: 8,
    });
  });

  it('PR11 unknown stays unknown: no usage → undefined; cache fields without input_tokens give no input total', async () => {
    const server = await serve({
      replies: [
        { text: 'a', usage: null },
        { text: 'b', usage: { cachedInputTokens: 5, outputTokens: 3 } },
      ],
    });
    expect((await streamAnthropicMessages(cfg(server.url), req)).usage).toBeUndefined();
    expect((await streamAnthropicMessages(cfg(server.url), req)).usage).toEqual({
      cachedInputTokens: 5,
      outputTokens: 3,
    });
  });

  it('stop reasons: end_turn → stop, max_tokens → length, refusal with text → content_filter (answer kept), unknown → other', async () => {
    const server = await serve({
      replies: [
        { text: 'a' },
        { text: 'b', finishReason: 'length' },
        { text: 'partial answer', finishReason: 'content_filter' },
        { text: 'd', finishReason: 'pause_turn' },
      ],
    });
    const reasons: string[] = [];
    for (let i = 0; i < 4; i++) reasons.push((await streamAnthropicMessages(cfg(server.url), req)).finishReason);
    expect(reasons).toEqual(['stop', 'length', 'content_filter', 'other']);
  });

  it('non-streaming: completeAnthropicMessage sends stream:false and assembles the message the same way', async () => {
    const server = await serve({
      replies: [
        {
          output: [
            { reasoning: 'Think.', capsule: 'SIG-JSON' },
            { toolCall: { id: 'toolu_j', name: 'read', arguments: { path: 'x' } } },
          ],
          usage: { inputTokens: 3, cachedInputTokens: 4, cacheWriteInputTokens: 5, outputTokens: 6 },
        },
      ],
    });
    const r = await completeAnthropicMessage(cfg(server.url), req);
    expect(server.requests[0]!.stream).toBe(false);
    expect(r.parts).toMatchObject([
      { kind: 'reasoning', text: 'Think.', providerReasoning: { signature: 'SIG-JSON', model: 'claude-test' } },
      { kind: 'tool_call', callId: 'toolu_j', name: 'read', argsJson: '{"path":"x"}' },
    ]);
    expect(r.usage).toEqual({ inputTokens: 12, cachedInputTokens: 4, cacheWriteInputTokens: 5, outputTokens: 6 });
    expect(r.finishReason).toBe('tool_calls');
    expect(r.requestId).toBe('req_local_1');
  });
});

describe('Anthropic Messages failures', () => {
  it('401 → provider_auth, not retryable; a 401 body echoing the key is redacted (PR6)', async () => {
    const server = await serve({ apiKey: 'the-right-key-000', replies: [{ text: 'x' }] });
    const e = await failureOf(streamAnthropicMessages(cfg(server.url), req));
    expect(e.code).toBe('provider_auth');
    expect(e.retryable).toBe(false);
    expect(e.diagnostic).toMatchObject({ status: 401, code: 'authentication_error', requestId: 'req_local_1' });
    expect(e.diagnostic.reason).toContain('invalid x-api-key');
  });

  it('a missing API key variable → provider_auth (api_key_missing) before any request', async () => {
    const server = await serve({ replies: [{ text: 'x' }] });
    const e = await failureOf(
      streamAnthropicMessages(cfg(server.url, { apiKeyEnv: 'ZUNO_TEST_UNSET_ANTHROPIC_KEY' }), req),
    );
    expect(e.code).toBe('provider_auth');
    expect(e.diagnostic.code).toBe('api_key_missing');
    expect(server.requests).toHaveLength(0);
  });

  it('529 overloaded_error → provider_unavailable, retryable; 500 api_error too; the retry then succeeds', async () => {
    const server = await serve({
      replies: [
        { text: 'after overload', fault: { status: 529 } },
        { text: 'after api error', fault: { status: 500 } },
      ],
    });
    const e = await failureOf(streamAnthropicMessages(cfg(server.url), req));
    expect(e.code).toBe('provider_unavailable');
    expect(e.retryable).toBe(true);
    expect(e.diagnostic).toMatchObject({ status: 529, code: 'overloaded_error', requestId: 'req_local_1' });
    expect((await streamAnthropicMessages(cfg(server.url), req)).text).toBe('after overload');
    const e2 = await failureOf(streamAnthropicMessages(cfg(server.url), req));
    expect(e2).toMatchObject({ code: 'provider_unavailable', retryable: true });
    expect(e2.diagnostic).toMatchObject({ status: 500, code: 'api_error' });
  });

  it('400 invalid_request_error → provider_bad_request, never retried (PR3)', async () => {
    const server = await serve({
      replies: [{ text: 'x', fault: { status: 400, message: 'messages: roles must alternate' } }],
    });
    const e = await failureOf(streamAnthropicMessages(cfg(server.url), req));
    expect(e.code).toBe('provider_bad_request');
    expect(e.retryable).toBe(false);
    expect(e.diagnostic).toMatchObject({ status: 400, code: 'invalid_request_error' });
    expect(e.diagnostic.reason).toContain('messages: roles must alternate');
  });

  it('429 rate_limit_error with Retry-After: 3 → provider_rate_limited, retryAfterMs 3000', async () => {
    const server = await serve({ replies: [{ text: 'x', fault: { status: 429, retryAfter: '3' } }] });
    const e = await failureOf(streamAnthropicMessages(cfg(server.url), req));
    expect(e).toMatchObject({ code: 'provider_rate_limited', retryable: true, retryAfterMs: 3000 });
    expect(e.diagnostic.code).toBe('rate_limit_error');
  });

  it('an in-stream error event: overloaded_error → provider_unavailable (retryable); invalid_request_error → provider_bad_request; rate_limit_error → provider_rate_limited', async () => {
    const server = await serve({
      replies: [
        { text: 'one two three four', fault: { streamError: true } },
        { text: 'x', fault: { streamError: true, code: 'invalid_request_error', message: 'bad thinking block' } },
        { text: 'y', fault: { streamError: true, code: 'rate_limit_error' } },
      ],
    });
    const e = await failureOf(streamAnthropicMessages(cfg(server.url), req));
    expect(e).toMatchObject({ code: 'provider_unavailable', retryable: true });
    expect(e.diagnostic).toMatchObject({ code: 'overloaded_error', requestId: 'req_local_1' });
    expect(e.diagnostic.reason).toContain('Overloaded');
    await streamAnthropicMessages(cfg(server.url), req);
    const e2 = await failureOf(streamAnthropicMessages(cfg(server.url), req));
    expect(e2).toMatchObject({ code: 'provider_bad_request', retryable: false });
    expect(e2.diagnostic.reason).toContain('bad thinking block');
    await streamAnthropicMessages(cfg(server.url), req);
    const e3 = await failureOf(streamAnthropicMessages(cfg(server.url), req));
    expect(e3).toMatchObject({ code: 'provider_rate_limited', retryable: true });
  });

  it('PR4: a stream cut before message_stop → upstream_stream_incomplete (retryable), also on a destroyed socket', async () => {
    const server = await serve({
      replies: [
        { text: 'one two three four five six', fault: { cutStream: true } },
        { text: 'seven eight nine', fault: { cutStream: true, mode: 'destroy' } },
      ],
    });
    const e = await failureOf(streamAnthropicMessages(cfg(server.url), req));
    expect(e).toMatchObject({ code: 'upstream_stream_incomplete', retryable: true });
    expect(e.diagnostic.code).toBe('stream_incomplete');
    expect(e.diagnostic.reason).toContain('message_stop');
    expect((await streamAnthropicMessages(cfg(server.url), req)).text).toBe('one two three four five six');
    const e2 = await failureOf(streamAnthropicMessages(cfg(server.url), req));
    expect(e2).toMatchObject({ code: 'upstream_stream_incomplete', retryable: true });
  });

  it('PR4: message_delta with a stop_reason but no message_stop is still incomplete', async () => {
    const server = await serve({ replies: [{ text: 'almost done', done: false }] });
    const e = await failureOf(streamAnthropicMessages(cfg(server.url), req));
    expect(e).toMatchObject({ code: 'upstream_stream_incomplete', retryable: true });
  });

  it('a refusal with no output → content_filtered (typed terminal refusal, not retryable)', async () => {
    const server = await serve({ replies: [{ reasoning: 'hmm', finishReason: 'content_filter' }] });
    const e = await failureOf(streamAnthropicMessages(cfg(server.url), req));
    expect(e).toMatchObject({ code: 'content_filtered', retryable: false });
    expect(e.diagnostic.code).toBe('refusal');
  });

  it('an event that is not JSON → provider_protocol (not retryable)', async () => {
    const server = await serve({ replies: [{ text: 'x', fault: { malformedChunk: true } }] });
    const e = await failureOf(streamAnthropicMessages(cfg(server.url), req));
    expect(e).toMatchObject({ code: 'provider_protocol', retryable: false });
    expect(e.diagnostic.code).toBe('invalid_chunk_json');
  });
});
