/**
 * The real Chat Completions adapter against the real local provider server
 * over real HTTP on loopback (no mocks). PR4, PR5, PR6, PR11.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { streamChatCompletion } from '../../activities/providers/chat-completions.js';
import { toChatMessages } from '../../activities/providers/chat-request.js';
import type { ModelRequest } from '../../activities/providers/types.js';
import { expectNoSecrets, providerConfig, rejectionOf, TEST_KEY, useLocalProviders } from './helpers.js';

const simpleRequest: ModelRequest = {
  model: 'test-model',
  messages: [
    { role: 'system', text: 'You are terse.' },
    { role: 'user', text: 'Say hello.' },
  ],
  tools: [],
};

/** Every error seen in this file is checked for secrets at the end. */
const { serve, failureOf } = useLocalProviders({ moreErrorsThan: 8 });

describe('streaming text', () => {
  it('streams text deltas in order and assembles text, reasoning, finish reason, request id', async () => {
    const text = 'Hello there, this is a streamed answer with ünïcødé 🚀 and more words.';
    const server = await serve({ replies: [{ reasoning: 'Think first, then answer.', text }] });
    const deltas: string[] = [];
    const reasoningDeltas: string[] = [];
    let chunks = 0;
    const res = await streamChatCompletion(providerConfig(server.url), simpleRequest, {
      onTextDelta: (t) => deltas.push(t),
      onReasoningDelta: (t) => reasoningDeltas.push(t),
      onChunk: () => {
        chunks += 1;
      },
    });
    expect(deltas.length).toBeGreaterThan(3);
    expect(deltas.join('')).toBe(text);
    expect(deltas[0]).toBe('Hello');
    expect(res.text).toBe(text);
    expect(reasoningDeltas.length).toBeGreaterThan(1);
    expect(res.reasoning).toBe('Think first, then answer.');
    expect(res.toolCalls).toEqual([]);
    expect(res.finishReason).toBe('stop');
    expect(res.requestId).toBe('req_local_1');
    expect(chunks).toBeGreaterThan(0);

    // Wire request: streaming with usage, bearer key, mapped messages, no empty tools array.
    const body = server.requests[0]!;
    expect(body.stream).toBe(true);
    expect(body.stream_options).toEqual({ include_usage: true });
    expect(body.model).toBe('test-model');
    expect(body.messages).toEqual([
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: 'Say hello.' },
    ]);
    expect('tools' in body).toBe(false);
    expect(server.requestHeaders[0]!.authorization).toBe(`Bearer ${TEST_KEY}`);
    expect(server.requestHeaders[0]!.accept).toBe('text/event-stream');
  });

  it('is a proper end with finish_reason but no [DONE] (PR4)', async () => {
    const server = await serve({ replies: [{ text: 'finished without done', done: false }] });
    const res = await streamChatCompletion(providerConfig(server.url), simpleRequest);
    expect(res.text).toBe('finished without done');
    expect(res.finishReason).toBe('stop');
  });

  it('is a proper end with [DONE] but no finish_reason (PR4)', async () => {
    const server = await serve({
      replies: [
        { text: 'done only', finishReason: null },
        { toolCalls: [{ name: 'read', arguments: { path: 'a' } }], finishReason: null },
      ],
    });
    const a = await streamChatCompletion(providerConfig(server.url), simpleRequest);
    expect(a.text).toBe('done only');
    expect(a.finishReason).toBe('stop');
    const b = await streamChatCompletion(providerConfig(server.url), simpleRequest);
    expect(b.finishReason).toBe('tool_calls');
  });

  it('normalizes length and unknown finish reasons', async () => {
    const server = await serve({
      replies: [
        { text: 'cut', finishReason: 'length' },
        { text: 'odd', finishReason: 'weird_reason' },
      ],
    });
    expect((await streamChatCompletion(providerConfig(server.url), simpleRequest)).finishReason).toBe('length');
    expect((await streamChatCompletion(providerConfig(server.url), simpleRequest)).finishReason).toBe('other');
  });

  it('works without an API key variable (local servers)', async () => {
    const server = await serve({ replies: [{ text: 'no key' }] });
    const res = await streamChatCompletion(providerConfig(server.url, { apiKeyEnv: undefined }), simpleRequest);
    expect(res.text).toBe('no key');
    expect(server.requestHeaders[0]!.authorization).toBeUndefined();
  });
});

describe('tool calls', () => {
  const malformed = '{"path": "src/a.ts", "limit": 10,,  "broken\u00e9": [1, 2';
  const objArgs = { command: 'npm test -- --reporter=dot', cwd: '.', env: { A: 'ü' } };

  for (const interleave of [false, true]) {
    it(`reassembles two parallel tool calls byte-for-byte (${interleave ? 'interleaved' : 'sequential'} deltas)`, async () => {
      const server = await serve({
        replies: [
          {
            text: 'Running both.',
            interleaveToolCalls: interleave,
            toolCalls: [
              { id: 'call_A', name: 'read', arguments: malformed },
              { id: 'call_B', name: 'shell', arguments: objArgs },
            ],
          },
        ],
      });
      const req: ModelRequest = {
        model: 'test-model',
        messages: [{ role: 'user', text: 'go' }],
        tools: [
          {
            name: 'read',
            description: 'Read a file',
            parameters: { type: 'object', properties: { path: { type: 'string' } } },
          },
          {
            name: 'shell',
            description: 'Run a command',
            parameters: { type: 'object', properties: { command: { type: 'string' } } },
          },
        ],
      };
      const res = await streamChatCompletion(providerConfig(server.url), req);
      expect(res.finishReason).toBe('tool_calls');
      expect(res.text).toBe('Running both.');
      expect(res.toolCalls).toEqual([
        { callId: 'call_A', name: 'read', argsJson: malformed },
        { callId: 'call_B', name: 'shell', argsJson: JSON.stringify(objArgs) },
      ]);
      // Tools mapping on the wire.
      expect(server.requests[0]!.tools).toEqual([
        {
          type: 'function',
          function: {
            name: 'read',
            description: 'Read a file',
            parameters: { type: 'object', properties: { path: { type: 'string' } } },
          },
        },
        {
          type: 'function',
          function: {
            name: 'shell',
            description: 'Run a command',
            parameters: { type: 'object', properties: { command: { type: 'string' } } },
          },
        },
      ]);
    });
  }

  it('maps assistant tool calls and tool results, replaying raw argument bytes', async () => {
    const server = await serve({ replies: [{ text: 'ok' }] });
    const rawArgs = '{ "path" : "a.ts" ,"x":1.50}';
    const req: ModelRequest = {
      model: 'test-model',
      messages: [
        { role: 'system', text: 'sys' },
        { role: 'user', text: 'read a.ts' },
        { role: 'assistant', text: '', toolCalls: [{ callId: 'call_1', name: 'read', argsJson: rawArgs }] },
        { role: 'tool', callId: 'call_1', name: 'read', content: 'file contents' },
        { role: 'assistant', text: 'Also this.', toolCalls: [{ callId: 'call_2', name: 'nope', argsJson: '{bad' }] },
        { role: 'tool', callId: 'call_2', name: 'nope', content: 'unknown tool' },
        { role: 'assistant', text: 'plain answer', toolCalls: [] },
        { role: 'user', text: 'thanks' },
      ],
      tools: [],
    };
    await streamChatCompletion(providerConfig(server.url), req);
    expect(server.requests[0]!.messages).toEqual([
      { role: 'system', content: 'sys' },
      { role: 'user', content: 'read a.ts' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'read', arguments: rawArgs } }],
      },
      { role: 'tool', tool_call_id: 'call_1', content: 'file contents' },
      {
        role: 'assistant',
        content: 'Also this.',
        tool_calls: [{ id: 'call_2', type: 'function', function: { name: 'nope', arguments: '{bad' } }],
      },
      { role: 'tool', tool_call_id: 'call_2', content: 'unknown tool' },
      { role: 'assistant', content: 'plain answer' },
      { role: 'user', content: 'thanks' },
    ]);
  });
});

describe('system-prompt segments (SE28)', () => {
  it('the leading system segments become one system message joined by a blank line; a later one stays in place', () => {
    expect(
      toChatMessages([
        { role: 'system', text: 'base', segment: 'system.base' },
        { role: 'system', text: 'rules', segment: 'instructions.rules' },
        { role: 'user', text: 'hi' },
        { role: 'system', text: 'late' },
      ]),
    ).toEqual([
      { role: 'system', content: 'base\n\nrules' },
      { role: 'user', content: 'hi' },
      { role: 'system', content: 'late' },
    ]);
  });
});

describe('usage (PR11)', () => {
  it('takes usage from the final chunk, all fields', async () => {
    const server = await serve({
      replies: [
        {
          text: 'counted',
          usage: {
            inputTokens: 1200,
            outputTokens: 80,
            cachedInputTokens: 1024,
            reasoningTokens: 32,
            totalTokens: 1280,
          },
        },
      ],
    });
    const res = await streamChatCompletion(providerConfig(server.url), simpleRequest);
    expect(res.usage).toEqual({
      inputTokens: 1200,
      outputTokens: 80,
      cachedInputTokens: 1024,
      reasoningTokens: 32,
      totalTokens: 1280,
    });
  });

  it('leaves fields the provider did not send undefined, never 0', async () => {
    const server = await serve({
      replies: [
        { text: 'partial usage', usage: { inputTokens: 10, outputTokens: 0 } },
        { text: 'none', usage: null },
      ],
    });
    const a = await streamChatCompletion(providerConfig(server.url), simpleRequest);
    expect(a.usage).toEqual({ inputTokens: 10, outputTokens: 0 });
    expect(a.usage!.cachedInputTokens).toBeUndefined();
    expect(a.usage!.reasoningTokens).toBeUndefined();
    expect(a.usage!.totalTokens).toBeUndefined();
    expect('cachedInputTokens' in a.usage!).toBe(false);
    const b = await streamChatCompletion(providerConfig(server.url), simpleRequest);
    expect(b.usage).toBeUndefined();
  });
});

describe('typed HTTP errors', () => {
  it('401 → provider_auth, not retryable', async () => {
    const server = await serve({ replies: [{ text: 'x', fault: { status: 401 } }] });
    const err = await failureOf(streamChatCompletion(providerConfig(server.url), simpleRequest));
    expect(err.code).toBe('provider_auth');
    expect(err.retryable).toBe(false);
    expect(err.diagnostic.status).toBe(401);
    expect(err.diagnostic.code).toBe('invalid_api_key');
    expect(err.diagnostic.requestId).toBe('req_local_1');
  });

  it('401 whose body echoes the key: the key is redacted (PR6)', async () => {
    const server = await serve({ apiKey: 'the-right-key-000', replies: [{ text: 'x' }] });
    const err = await failureOf(streamChatCompletion(providerConfig(server.url), simpleRequest));
    expect(err.code).toBe('provider_auth');
    expect(err.diagnostic.reason).toContain('Incorrect API key provided');
    expect(err.diagnostic.reason.length).toBeLessThanOrEqual(300);
    expectNoSecrets(err);
  });

  it('a missing API key variable → provider_auth before any request', async () => {
    const server = await serve({ replies: [{ text: 'x' }] });
    const err = await failureOf(
      streamChatCompletion(providerConfig(server.url, { apiKeyEnv: 'ZUNO_TEST_UNSET_KEY_VAR' }), simpleRequest),
    );
    expect(err.code).toBe('provider_auth');
    expect(err.message).toContain('ZUNO_TEST_UNSET_KEY_VAR');
    expect(server.requests).toHaveLength(0);
  });

  it('400 → provider_bad_request, not retryable; 404 and 422 too', async () => {
    const server = await serve({
      replies: [
        {
          text: 'a',
          fault: { status: 400, message: "Unsupported parameter: 'max_tokens'", code: 'unsupported_parameter' },
        },
        { text: 'b', fault: { status: 404 } },
        { text: 'c', fault: { status: 422 } },
      ],
    });
    const e400 = await failureOf(streamChatCompletion(providerConfig(server.url), simpleRequest));
    expect(e400.code).toBe('provider_bad_request');
    expect(e400.retryable).toBe(false);
    expect(e400.diagnostic).toMatchObject({ status: 400, code: 'unsupported_parameter' });
    expect(e400.diagnostic.reason).toContain("Unsupported parameter: 'max_tokens'");
    // The reply is served after its fault; move on to the next faults.
    await streamChatCompletion(providerConfig(server.url), simpleRequest);
    const e404 = await failureOf(streamChatCompletion(providerConfig(server.url), simpleRequest));
    expect(e404.code).toBe('provider_bad_request');
    await streamChatCompletion(providerConfig(server.url), simpleRequest);
    const e422 = await failureOf(streamChatCompletion(providerConfig(server.url), simpleRequest));
    expect([e422.code, e422.retryable]).toEqual(['provider_bad_request', false]);
  });

  it('429 with Retry-After: 3 → provider_rate_limited, retryable, retryAfterMs 3000; the retry then succeeds', async () => {
    const server = await serve({
      replies: [{ text: 'after the limit', fault: { status: 429, retryAfter: '3', times: 2 } }],
    });
    for (let i = 0; i < 2; i++) {
      const err = await failureOf(streamChatCompletion(providerConfig(server.url), simpleRequest));
      expect(err.code).toBe('provider_rate_limited');
      expect(err.retryable).toBe(true);
      expect(err.retryAfterMs).toBe(3000);
      expect(err.diagnostic.status).toBe(429);
    }
    const res = await streamChatCompletion(providerConfig(server.url), simpleRequest);
    expect(res.text).toBe('after the limit');
    expect(server.requests).toHaveLength(3);
  });

  it('429 with an invalid Retry-After → retryAfterMs undefined; HTTP-date is honoured', async () => {
    const future = new Date(Date.now() + 60_000).toUTCString();
    const server = await serve({
      replies: [
        { text: 'a', fault: { status: 429, retryAfter: 'soon-ish' } },
        { text: 'b', fault: { status: 429, retryAfter: future } },
      ],
    });
    const bad = await failureOf(streamChatCompletion(providerConfig(server.url), simpleRequest));
    expect(bad.retryAfterMs).toBeUndefined();
    expect(bad.retryable).toBe(true);
    await streamChatCompletion(providerConfig(server.url), simpleRequest);
    const dated = await failureOf(streamChatCompletion(providerConfig(server.url), simpleRequest));
    expect(dated.retryAfterMs).toBeGreaterThan(50_000);
    expect(dated.retryAfterMs).toBeLessThanOrEqual(60_000);
  });

  it('503 and 500 → provider_unavailable, retryable', async () => {
    const server = await serve({
      replies: [
        { text: 'a', fault: { status: 503 } },
        { text: 'b', fault: { status: 500 } },
      ],
    });
    const e503 = await failureOf(streamChatCompletion(providerConfig(server.url), simpleRequest));
    expect([e503.code, e503.retryable, e503.diagnostic.status]).toEqual(['provider_unavailable', true, 503]);
    await streamChatCompletion(providerConfig(server.url), simpleRequest);
    const e500 = await failureOf(streamChatCompletion(providerConfig(server.url), simpleRequest));
    expect(e500.code).toBe('provider_unavailable');
  });

  it('an exhausted script answers a clear 500 at once', async () => {
    const server = await serve({ replies: [] });
    const err = await failureOf(streamChatCompletion(providerConfig(server.url), simpleRequest));
    expect(err.code).toBe('provider_unavailable');
    expect(err.diagnostic.code).toBe('script_exhausted');
    expect(err.diagnostic.reason).toContain('script exhausted');
  });
});

describe('broken streams', () => {
  it('a cut stream (clean end, no finish_reason/[DONE]) → upstream_stream_incomplete, retryable; the retry succeeds', async () => {
    const server = await serve({ replies: [{ text: 'one two three four five six', fault: { cutStream: true } }] });
    const partial: string[] = [];
    const err = await failureOf(
      streamChatCompletion(providerConfig(server.url), simpleRequest, { onTextDelta: (t) => partial.push(t) }),
    );
    expect(err.code).toBe('upstream_stream_incomplete');
    expect(err.retryable).toBe(true);
    expect(partial.length).toBeGreaterThan(0);
    const res = await streamChatCompletion(providerConfig(server.url), simpleRequest);
    expect(res.text).toBe('one two three four five six');
  });

  it('a destroyed socket mid-stream → upstream_stream_incomplete', async () => {
    const server = await serve({
      replies: [{ text: 'one two three four five six', fault: { cutStream: true, mode: 'destroy' } }],
    });
    const err = await failureOf(streamChatCompletion(providerConfig(server.url), simpleRequest));
    expect(err.code).toBe('upstream_stream_incomplete');
    expect(err.retryable).toBe(true);
  });

  it('an unparseable chunk → provider_protocol, not retryable', async () => {
    const server = await serve({ replies: [{ text: 'x y z', fault: { malformedChunk: true } }] });
    const err = await failureOf(streamChatCompletion(providerConfig(server.url), simpleRequest));
    expect(err.code).toBe('provider_protocol');
    expect(err.retryable).toBe(false);
  });

  it('content_filter with no output → content_filtered (terminal); with text it is a normal finish', async () => {
    const server = await serve({
      replies: [{ finishReason: 'content_filter' }, { text: 'partly', finishReason: 'content_filter' }],
    });
    const err = await failureOf(streamChatCompletion(providerConfig(server.url), simpleRequest));
    expect([err.code, err.retryable]).toEqual(['content_filtered', false]);
    const res = await streamChatCompletion(providerConfig(server.url), simpleRequest);
    expect(res.finishReason).toBe('content_filter');
    expect(res.text).toBe('partly');
  });

  it('an error object inside the stream is typed by its status', async () => {
    const server = await serve({
      replies: [
        {
          chunks: [
            {
              id: 'gen-1',
              object: 'chat.completion.chunk',
              choices: [{ index: 0, delta: { content: 'Hi' }, finish_reason: null }],
            },
            {
              id: 'gen-1',
              object: 'chat.completion.chunk',
              error: { code: 502, message: 'Upstream provider went away' },
              choices: [],
            },
          ],
        },
      ],
    });
    const err = await failureOf(streamChatCompletion(providerConfig(server.url), simpleRequest));
    expect(err.code).toBe('provider_unavailable');
    expect(err.diagnostic.status).toBe(502);
    expect(err.diagnostic.reason).toContain('Upstream provider went away');
  });
});

describe('timeouts and connection failures (PR5)', () => {
  let silent: Server;
  let silentUrl: string;
  beforeAll(async () => {
    // A raw server that accepts the request and never sends headers.
    silent = createServer(() => undefined);
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    silentUrl = `http://127.0.0.1:${(silent.address() as AddressInfo).port}/v1?api-key=${TEST_KEY}`;
  });
  afterAll(async () => {
    silent.closeAllConnections();
    await new Promise<void>((r) => silent.close(() => r()));
  });

  it('headers never arriving with a small headerTimeoutMs → provider_timeout quickly', async () => {
    const t0 = Date.now();
    const err = await failureOf(
      streamChatCompletion(providerConfig(silentUrl, { headerTimeoutMs: 300 }), simpleRequest),
    );
    const elapsed = Date.now() - t0;
    expect(err.code).toBe('provider_timeout');
    expect(err.retryable).toBe(true);
    expect(elapsed).toBeGreaterThanOrEqual(250); // the deadline waited; the typed error shows it fired
    expect(err.message).toContain('300 ms');
    // The query string of the base URL (here carrying the key) never shows.
    expect(err.message).not.toContain('api-key');
    expectNoSecrets(err);
  });

  it('silence between chunks longer than chunkTimeoutMs → provider_timeout', async () => {
    const server = await serve({ replies: [{ text: 'slow words here', fault: { delayMs: 800, between: 'chunks' } }] });
    const err = await failureOf(
      streamChatCompletion(providerConfig(server.url, { chunkTimeoutMs: 250 }), simpleRequest),
    );
    expect(err.code).toBe('provider_timeout');
    expect(err.retryable).toBe(true);
    expect(err.diagnostic.code).toBe('chunk_timeout'); // the chunk deadline ended it, not the slow stream
  });

  it('a slow but steady stream within chunkTimeoutMs succeeds', async () => {
    const server = await serve({ replies: [{ text: 'slow but fine', fault: { delayMs: 50, between: 'chunks' } }] });
    const res = await streamChatCompletion(providerConfig(server.url, { chunkTimeoutMs: 1000 }), simpleRequest);
    expect(res.text).toBe('slow but fine');
  });

  it('connection refused → provider_connection, retryable', async () => {
    const tmp = createServer();
    await new Promise<void>((r) => tmp.listen(0, '127.0.0.1', r));
    const port = (tmp.address() as AddressInfo).port;
    await new Promise<void>((r) => tmp.close(() => r()));
    const err = await failureOf(streamChatCompletion(providerConfig(`http://127.0.0.1:${port}/v1`), simpleRequest));
    expect(err.code).toBe('provider_connection');
    expect(err.retryable).toBe(true);
  });

  it('an aborted signal rejects with its reason, not a ProviderError', async () => {
    const ac = new AbortController();
    const reason = new Error('cancelled by test');
    const p = streamChatCompletion(providerConfig(silentUrl, { headerTimeoutMs: 10_000 }), simpleRequest, {
      signal: ac.signal,
    });
    setTimeout(() => ac.abort(reason), 100);
    const err = await rejectionOf(p);
    expect(err).toBe(reason);
  });
});
