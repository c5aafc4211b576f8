/**
 * The shared transport (`sse-transport.ts`, `json-transport.ts`) against the
 * local provider's Responses and Anthropic routes over real HTTP: per-surface
 * credential header, event names, PR4 completeness, PR5 chunk deadline, typed
 * HTTP and in-stream errors with redacted diagnostics (PR6).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { endpointUrl } from '../../activities/providers/endpoint.js';
import { requestJson } from '../../activities/providers/json-transport.js';
import { openEventStream, type EventStream, type SseEvent } from '../../activities/providers/sse-transport.js';
import type { LocalProvider } from '../../local-provider/server.js';
import { expectNoSecrets, providerConfig, TEST_KEY, useLocalProviders } from './helpers.js';
import { peerFile } from './peer-streams.js';

const { serve, failureOf } = useLocalProviders();

const ANTHROPIC = { 'anthropic-version': '2023-06-01' };

/** Open a Messages stream the way an Anthropic adapter would; `done` tracks message_stop. */
async function openMessages(server: LocalProvider, body: Record<string, unknown> = {}) {
  const state = { done: false };
  const stream = await openEventStream(providerConfig(server.url), {
    url: endpointUrl(server.url, '/messages'),
    body: JSON.stringify({ model: 'claude-test', max_tokens: 64, messages: [], stream: true, ...body }),
    headers: ANTHROPIC,
    auth: 'x-api-key',
    terminal: 'message_stop',
    isComplete: () => state.done,
  });
  return { stream, state };
}
async function drain(stream: EventStream, onEvent: (ev: SseEvent) => void = () => undefined): Promise<SseEvent[]> {
  const out: SseEvent[] = [];
  for await (const ev of stream) {
    out.push(ev);
    onEvent(ev);
  }
  return out;
}

describe('openEventStream', () => {
  it('sends x-api-key (never Authorization) plus the adapter headers, and yields named events in order', async () => {
    const server = await serve({ apiKey: TEST_KEY, replies: [{ text: 'hello there' }] });
    const { stream, state } = await openMessages(server);
    expect(stream.status).toBe(200);
    expect(stream.headerRequestId).toBe('req_local_1');
    const evs = await drain(stream, (ev) => {
      if (ev.event === 'message_stop') state.done = true;
    });
    expect(evs.map((e) => e.seq)).toEqual(evs.map((_, i) => i + 1));
    expect(evs.map((e) => e.event)).toEqual([
      'message_start',
      'ping',
      'content_block_start',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    for (const e of evs) expect(stream.json(e).type).toBe(e.event);
    const headers = server.requestHeaders[0]!;
    expect(headers['x-api-key']).toBe(TEST_KEY);
    expect(headers.authorization).toBeUndefined();
    expect(headers['anthropic-version']).toBe('2023-06-01');
    expect(headers.accept).toBe('text/event-stream');
  });

  it('bearer auth on the Responses route; a body that ends before the terminal event is upstream_stream_incomplete naming it', async () => {
    const server = await serve({ replies: [{ text: 'no end', done: false }] });
    const stream = await openEventStream(providerConfig(server.url), {
      url: endpointUrl(server.url, '/responses'),
      body: JSON.stringify({ model: 'gpt-test', input: 'hi', stream: true }),
      terminal: 'response.completed',
      isComplete: () => false,
    });
    const err = await failureOf(drain(stream));
    expect(err.code).toBe('upstream_stream_incomplete');
    expect(err.retryable).toBe(true);
    expect(err.diagnostic.reason).toMatch(/ended after \d+ events without response\.completed/);
    expect(server.requestHeaders[0]!.authorization).toBe(`Bearer ${TEST_KEY}`);
  });

  it('an Anthropic 429 body is typed by status with Retry-After, the error type as code and the request-id header', async () => {
    const server = await serve({ replies: [{ text: 'x', fault: { status: 429, retryAfter: '3' } }] });
    const err = await failureOf(openMessages(server));
    expect(err.code).toBe('provider_rate_limited');
    expect(err.retryAfterMs).toBe(3000);
    expect(err.diagnostic).toMatchObject({ status: 429, code: 'rate_limit_error', requestId: 'req_local_1' });
  });

  it('Anthropic 529 overloaded → provider_unavailable; a wrong x-api-key echoed in the 401 body is redacted', async () => {
    const server = await serve({ replies: [{ text: 'x', fault: { status: 529 } }] });
    const e529 = await failureOf(openMessages(server));
    expect([e529.code, e529.retryable, e529.diagnostic.code]).toEqual([
      'provider_unavailable',
      true,
      'overloaded_error',
    ]);
    const keyed = await serve({ apiKey: 'the-right-key-000', replies: [{ text: 'x' }] });
    const e401 = await failureOf(openMessages(keyed));
    expect([e401.code, e401.retryable]).toEqual(['provider_auth', false]);
    expect(e401.diagnostic.reason).toContain('invalid x-api-key');
    expectNoSecrets(e401);
  });

  it('streamError() types an in-stream Anthropic error event; the request id noted from the body is kept', async () => {
    const server = await serve({ replies: [{ text: 'a b c d e f', fault: { streamError: true } }] });
    const { stream } = await openMessages(server);
    const err = await failureOf(
      drain(stream, (ev) => {
        const obj = stream.json(ev);
        if (ev.event === 'error') throw stream.streamError(obj);
      }),
    );
    expect(err.code).toBe('provider_unavailable');
    expect(err.diagnostic).toMatchObject({ code: 'overloaded_error', requestId: 'req_local_1' });
  });

  it('json() turns an unparseable event into provider_protocol (not retryable)', async () => {
    const server = await serve({ replies: [{ text: 'x y', fault: { malformedChunk: true } }] });
    const { stream } = await openMessages(server);
    const err = await failureOf(drain(stream, (ev) => stream.json(ev)));
    expect([err.code, err.retryable, err.diagnostic.code]).toEqual(['provider_protocol', false, 'invalid_chunk_json']);
  });

  it('silence between events longer than chunkTimeoutMs → provider_timeout chunk_timeout', async () => {
    const server = await serve({ replies: [{ text: 'slow words', fault: { delayMs: 600, between: 'chunks' } }] });
    const stream = await openEventStream(providerConfig(server.url, { chunkTimeoutMs: 200 }), {
      url: endpointUrl(server.url, '/responses'),
      body: JSON.stringify({ model: 'gpt-test', input: 'hi', stream: true }),
      terminal: 'response.completed',
      isComplete: () => false,
    });
    const err = await failureOf(drain(stream));
    expect([err.code, err.diagnostic.code]).toEqual(['provider_timeout', 'chunk_timeout']);
  });

  it('a stream is iterated once; leaving the loop early closes it', async () => {
    const server = await serve({ replies: [{ text: 'one two three' }] });
    const { stream } = await openMessages(server);
    for await (const ev of stream) {
      expect(ev.event).toBe('message_start');
      break;
    }
    expect(() => stream[Symbol.asyncIterator]()).toThrow(/only once/);
  });
});

describe('requestJson', () => {
  it('reads a whole JSON body (a recorded Anthropic message)', async () => {
    const file = peerFile('anthropic-messages', 'issue-13430-thinking-tool-call.json');
    const server = await serve({ replies: [{ chunks: file }] });
    const res = await requestJson(providerConfig(server.url), {
      url: endpointUrl(server.url, '/messages'),
      body: JSON.stringify({ model: 'claude-test', max_tokens: 64, messages: [] }),
      headers: ANTHROPIC,
      auth: 'x-api-key',
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(JSON.parse(readFileSync(file, 'utf8')));
    expect(server.requestHeaders[0]!.accept).toBe('application/json');
  });

  it('a recorded Anthropic error body served with 400 → provider_bad_request with its type and message', async () => {
    const server = await serve({
      replies: [{ chunks: peerFile('anthropic-messages', 'anthropic-issue-17366-error.json'), status: 400 }],
    });
    const err = await failureOf(
      requestJson(providerConfig(server.url), {
        url: endpointUrl(server.url, '/messages'),
        body: JSON.stringify({ model: 'claude-test', max_tokens: 64, messages: [] }),
        headers: ANTHROPIC,
        auth: 'x-api-key',
      }),
    );
    expect([err.code, err.retryable]).toEqual(['provider_bad_request', false]);
    expect(err.diagnostic).toMatchObject({ status: 400, code: 'invalid_request_error', requestId: 'req_local_1' });
    expect(err.diagnostic.reason).toContain('unexpected `tool_use_id` found in `tool_result` blocks');
  });
});
