/**
 * The real Responses adapter against the real local provider over real HTTP
 * (no mocks): stream assembly in provider order with capsules (PR8, PR9),
 * finish reasons, usage (PR11), typed errors (PR3, PR6), incomplete and
 * broken streams (PR4), header deadline (PR5).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { streamResponses } from '../../activities/providers/responses.js';
import type { ModelRequest, ProviderConfig } from '../../activities/providers/types.js';
import { providerConfig, TEST_KEY, useLocalProviders } from './helpers.js';

const request: ModelRequest = { model: 'gpt-test', messages: [{ role: 'user', text: 'Go.' }], tools: [] };
const cfg = (url: string, over: Partial<ProviderConfig> = {}): ProviderConfig =>
  providerConfig(url, { id: 'openai-like', transport: 'responses', reasoningReplay: 'encrypted', ...over });

const { serve, failureOf } = useLocalProviders({ moreErrorsThan: 8 });

describe('stream assembly', () => {
  it('keeps provider order: reasoning, text, call, reasoning, call — each capsule on its reasoning part with item id, model and time', async () => {
    const server = await serve({
      replies: [
        {
          output: [
            { reasoning: 'Look at a.ts first.', capsule: 'enc-A/+=' },
            { text: 'Reading a.ts.' },
            { toolCall: { name: 'read', arguments: '{"path": "a.ts"}', id: 'call_1' } },
            { redactedReasoning: 'enc-B' },
            { toolCall: { name: 'glob', arguments: '{"pattern":"*.ts"', id: 'call_2' } },
          ],
          usage: {
            inputTokens: 1200,
            cachedInputTokens: 1024,
            outputTokens: 80,
            reasoningTokens: 32,
            totalTokens: 1280,
          },
        },
      ],
    });
    const text: string[] = [];
    const reasoning: string[] = [];
    let chunks = 0;
    const t0 = Date.now();
    const r = await streamResponses(cfg(server.url), request, {
      onTextDelta: (t) => text.push(t),
      onReasoningDelta: (t) => reasoning.push(t),
      onChunk: () => {
        chunks += 1;
      },
    });
    const t1 = Date.now();
    expect(r.parts.map((p) => p.kind)).toEqual(['reasoning', 'text', 'tool_call', 'reasoning', 'tool_call']);
    const stamp = { provider: 'openai-like', model: 'gpt-test', surface: 'responses' };
    expect(r.parts[0]).toEqual({
      kind: 'reasoning',
      text: 'Look at a.ts first.',
      providerReasoning: {
        ...stamp,
        itemId: 'rs_local_1_0',
        encryptedContent: 'enc-A/+=',
        summary: ['Look at a.ts first.'],
        producedAtMs: expect.any(Number) as number,
      },
    });
    // Encrypted reasoning without a summary still takes its place, with an empty text.
    expect(r.parts[3]).toMatchObject({
      kind: 'reasoning',
      text: '',
      providerReasoning: { ...stamp, itemId: 'rs_local_1_3', encryptedContent: 'enc-B', summary: [] },
    });
    for (const i of [0, 3]) {
      const at = (r.parts[i] as { providerReasoning: { producedAtMs: number } }).providerReasoning.producedAtMs;
      expect(at).toBeGreaterThanOrEqual(t0);
      expect(at).toBeLessThanOrEqual(t1);
    }
    // Arguments are the provider's bytes, malformed JSON included.
    expect(r.toolCalls).toEqual([
      { callId: 'call_1', name: 'read', argsJson: '{"path": "a.ts"}' },
      { callId: 'call_2', name: 'glob', argsJson: '{"pattern":"*.ts"' },
    ]);
    expect(r.text).toBe('Reading a.ts.');
    expect(text.join('')).toBe(r.text);
    expect(text.length).toBeGreaterThan(1);
    expect(reasoning.join('')).toBe('Look at a.ts first.');
    expect(chunks).toBeGreaterThan(0);
    expect(r.finishReason).toBe('tool_calls');
    // PR11: cached tokens are inside input, reported as given.
    expect(r.usage).toEqual({
      inputTokens: 1200,
      cachedInputTokens: 1024,
      outputTokens: 80,
      reasoningTokens: 32,
      totalTokens: 1280,
    });
    expect(r.requestId).toBe('req_local_1');
  });

  it('without the include the endpoint sends no capsule: reasoning parts carry none, and reasoning with no summary leaves no part', async () => {
    const server = await serve({
      replies: [{ output: [{ reasoning: 'Think.', capsule: 'enc' }, { redactedReasoning: 'enc2' }, { text: 'Hi.' }] }],
    });
    const r = await streamResponses(cfg(server.url, { reasoningReplay: 'off' }), request);
    expect(r.parts).toEqual([
      { kind: 'reasoning', text: 'Think.' },
      { kind: 'text', text: 'Hi.' },
    ]);
  });

  it('leaves usage fields the provider did not send undefined (never 0), and no usage at all when none came', async () => {
    const server = await serve({
      replies: [
        { text: 'a', usage: { inputTokens: 7 } },
        { text: 'b', usage: null },
      ],
    });
    expect((await streamResponses(cfg(server.url), request)).usage).toEqual({ inputTokens: 7 });
    expect((await streamResponses(cfg(server.url), request)).usage).toBeUndefined();
  });

  it('the response id is the request id when no x-request-id header came', async () => {
    const events = [
      { type: 'response.created', response: { id: 'resp_abc', status: 'in_progress', output: [] } },
      {
        type: 'response.output_item.added',
        output_index: 0,
        item: { id: 'msg_1', type: 'message', role: 'assistant', content: [] },
      },
      { type: 'response.output_text.delta', item_id: 'msg_1', output_index: 0, content_index: 0, delta: 'ok' },
      { type: 'response.completed', response: { id: 'resp_abc', status: 'completed', output: [] } },
    ];
    // A bare SSE server: the local provider always sends x-request-id.
    const bare = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join(''));
      });
    });
    await new Promise<void>((r) => bare.listen(0, '127.0.0.1', r));
    try {
      const r = await streamResponses(cfg(`http://127.0.0.1:${(bare.address() as AddressInfo).port}/v1`), request);
      expect(r.text).toBe('ok');
      expect(r.requestId).toBe('resp_abc');
    } finally {
      bare.closeAllConnections();
      await new Promise<void>((r) => bare.close(() => r()));
    }
  });
});

describe('finish reasons (response.completed / response.incomplete)', () => {
  it('incomplete for max_output_tokens → length, keeping the partial text', async () => {
    const server = await serve({ replies: [{ text: 'cut short', finishReason: 'length' }] });
    const r = await streamResponses(cfg(server.url), request);
    expect([r.finishReason, r.text]).toEqual(['length', 'cut short']);
  });

  it('incomplete for content_filter with no output → content_filtered (terminal refusal); with text it is a normal finish', async () => {
    const server = await serve({
      replies: [{ finishReason: 'content_filter' }, { text: 'partly', finishReason: 'content_filter' }],
    });
    const err = await failureOf(streamResponses(cfg(server.url), request));
    expect([err.code, err.retryable, err.diagnostic.code]).toEqual(['content_filtered', false, 'content_filter']);
    const r = await streamResponses(cfg(server.url), request);
    expect([r.finishReason, r.text]).toEqual(['content_filter', 'partly']);
  });

  it('incomplete for another reason → other', async () => {
    const server = await serve({ replies: [{ text: 'x', finishReason: 'server_decided' }] });
    expect((await streamResponses(cfg(server.url), request)).finishReason).toBe('other');
  });
});

describe('errors', () => {
  it('an in-stream error event (then response.failed) is typed by its code: server_error → provider_unavailable, rate_limit_exceeded → provider_rate_limited', async () => {
    const server = await serve({
      replies: [
        { text: 'one two three four', fault: { streamError: true } },
        {
          text: 'one two three four',
          fault: { streamError: true, code: 'rate_limit_exceeded', message: 'Slow down.' },
        },
      ],
    });
    // A faulted reply stays current: each fault is followed by the same reply served whole.
    const a = await failureOf(streamResponses(cfg(server.url), request));
    expect([a.code, a.retryable, a.diagnostic.code]).toEqual(['provider_unavailable', true, 'server_error']);
    expect(a.diagnostic.requestId).toBe('req_local_1');
    expect((await streamResponses(cfg(server.url), request)).text).toBe('one two three four');
    const b = await failureOf(streamResponses(cfg(server.url), request));
    expect([b.code, b.retryable, b.diagnostic.code]).toEqual(['provider_rate_limited', true, 'rate_limit_exceeded']);
    expect(b.diagnostic.reason).toContain('Slow down.');
  });

  it('an unknown in-stream error code is provider_unavailable (retryable) with the code in the diagnostic', async () => {
    const server = await serve({
      replies: [
        {
          chunks: [
            { type: 'response.created', response: { id: 'resp_x', status: 'in_progress', output: [] } },
            { type: 'error', code: 'weird_thing', message: 'Something odd.', param: null },
          ],
        },
      ],
    });
    const e = await failureOf(streamResponses(cfg(server.url), request));
    expect([e.code, e.retryable, e.diagnostic.code]).toEqual(['provider_unavailable', true, 'weird_thing']);
    expect(e.diagnostic.reason).toContain('Something odd.');
  });

  it('HTTP errors: 401 → provider_auth (key redacted), 400 → provider_bad_request, 429 Retry-After: 3 → retryAfterMs 3000', async () => {
    const keyed = await serve({ apiKey: 'the-right-key', replies: [{ text: 'never' }] });
    const auth = await failureOf(streamResponses(cfg(keyed.url), request));
    expect([auth.code, auth.retryable]).toEqual(['provider_auth', false]);
    expect(JSON.stringify(auth)).not.toContain(TEST_KEY);
    const server = await serve({
      replies: [
        { text: 'a', fault: { status: 400, code: 'invalid_value' } },
        { text: 'b', fault: { status: 429, retryAfter: '3' } },
      ],
    });
    const bad = await failureOf(streamResponses(cfg(server.url), request));
    expect([bad.code, bad.retryable, bad.diagnostic.status]).toEqual(['provider_bad_request', false, 400]);
    expect((await streamResponses(cfg(server.url), request)).text).toBe('a');
    const limited = await failureOf(streamResponses(cfg(server.url), request));
    expect([limited.code, limited.retryAfterMs]).toEqual(['provider_rate_limited', 3000]);
  });
});

describe('incomplete and broken streams (PR4)', () => {
  it('a stream that ends without response.completed → upstream_stream_incomplete, retryable', async () => {
    const server = await serve({ replies: [{ text: 'all of it but the end', done: false }] });
    const partial: string[] = [];
    const err = await failureOf(streamResponses(cfg(server.url), request, { onTextDelta: (t) => partial.push(t) }));
    expect([err.code, err.retryable, err.diagnostic.code]).toEqual([
      'upstream_stream_incomplete',
      true,
      'stream_incomplete',
    ]);
    expect(err.diagnostic.reason).toContain('response.completed');
    expect(partial.join('')).toBe('all of it but the end');
  });

  it('a cut stream (clean end or destroyed socket) → upstream_stream_incomplete; the replayed request gets all of it', async () => {
    const server = await serve({
      replies: [
        { text: 'one two three four five six', fault: { cutStream: true } },
        { text: 'seven eight nine', fault: { cutStream: true, mode: 'destroy' } },
      ],
    });
    const a = await failureOf(streamResponses(cfg(server.url), request));
    expect(a.code).toBe('upstream_stream_incomplete');
    expect((await streamResponses(cfg(server.url), request)).text).toBe('one two three four five six');
    const b = await failureOf(streamResponses(cfg(server.url), request));
    expect(b.code).toBe('upstream_stream_incomplete');
    expect((await streamResponses(cfg(server.url), request)).text).toBe('seven eight nine');
  });

  it('an event that is not JSON → provider_protocol, not retryable', async () => {
    const server = await serve({ replies: [{ text: 'x y z', fault: { malformedChunk: true } }] });
    const err = await failureOf(streamResponses(cfg(server.url), request));
    expect([err.code, err.retryable]).toEqual(['provider_protocol', false]);
  });
});

describe('header deadline (PR5)', () => {
  let silent: Server;
  beforeAll(async () => {
    silent = createServer(() => undefined);
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
  });
  afterAll(async () => {
    silent.closeAllConnections();
    await new Promise<void>((r) => silent.close(() => r()));
  });

  it('headers never arriving → provider_timeout after headerTimeoutMs, not a hang', async () => {
    const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}/v1`;
    const err = await failureOf(streamResponses(cfg(url, { headerTimeoutMs: 300 }), request));
    expect([err.code, err.diagnostic.code]).toEqual(['provider_timeout', 'header_timeout']);
  });
});
