/* eslint-disable @typescript-eslint/no-explicit-any -- ad hoc inspection of JSON wire objects */
/**
 * The local provider's Responses and Anthropic Messages renderings, read as
 * raw bytes over real HTTP: event names and required fields match the
 * recorded streams in `test/fixtures/peer-cases/provider-streams/`, recorded files
 * are replayed with exactly the framing SOURCE.md prescribes, and faults,
 * auth, validation and non-streaming bodies take each surface's shape.
 */
import { describe, expect, it } from 'vitest';
import type { Script } from '../../local-provider/script.js';
import { rejectionOf, useLocalProviders } from './helpers.js';
import { peerFile, peerFiles, peerLines } from './peer-streams.js';
import { expectRecordedShapes, parseSseText, recordedShapes, type RawSseEvent } from './wire-shapes.js';

const { serve } = useLocalProviders({ testKey: false });

const ANTHROPIC_HEADERS = { 'content-type': 'application/json', 'anthropic-version': '2023-06-01' };

function postResponses(url: string, body: Record<string, unknown>, headers: Record<string, string> = {}) {
  return fetch(`${url}/responses`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ model: 'gpt-test', input: 'hi', stream: true, ...body }),
  });
}
function postMessages(url: string, body: Record<string, unknown>, headers: Record<string, string> = ANTHROPIC_HEADERS) {
  return fetch(`${url}/messages`, {
    method: 'POST',
    headers,
    body: JSON.stringify({
      model: 'claude-test',
      max_tokens: 1024,
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
      ...body,
    }),
  });
}
async function events(res: Response): Promise<Array<RawSseEvent & { json: any }>> {
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toContain('text/event-stream');
  return parseSseText(await res.text()).map((e) => ({ ...e, json: JSON.parse(e.data) }));
}

const rich: Script = {
  replies: [
    {
      output: [
        { reasoning: 'Plan the answer first.', capsule: 'CAPSULE-ONE-0123456789' },
        { text: 'Reading two files.' },
        { toolCall: { id: 'call_a', name: 'read', arguments: { path: 'a.ts' } } },
        { toolCall: { id: 'call_b', name: 'read', arguments: '{"path": "b.ts"}' } },
      ],
      usage: {
        inputTokens: 1200,
        outputTokens: 80,
        cachedInputTokens: 1024,
        cacheWriteInputTokens: 64,
        reasoningTokens: 32,
        totalTokens: 1280,
      },
    },
  ],
};

describe('Responses rendering', () => {
  it('event names and required fields match the recorded Responses streams; sequence numbers count from 0; no [DONE]', async () => {
    const server = await serve(rich);
    const evs = await events(await postResponses(server.url, { include: ['reasoning.encrypted_content'] }));
    expectRecordedShapes(evs, recordedShapes('openai-responses'));
    expect(evs.map((e) => e.json.sequence_number)).toEqual(evs.map((_, i) => i));
    expect(evs.some((e) => e.data === '[DONE]')).toBe(false);
    const types = evs.map((e) => e.event);
    expect(types.slice(0, 2)).toEqual(['response.created', 'response.in_progress']);
    expect(types.at(-1)).toBe('response.completed');
    // Items in script order with their output_index.
    const added = evs.filter((e) => e.event === 'response.output_item.added').map((e) => e.json);
    expect(added.map((a) => [a.output_index, a.item.type])).toEqual([
      [0, 'reasoning'],
      [1, 'message'],
      [2, 'function_call'],
      [3, 'function_call'],
    ]);
    // Deltas join to the done values.
    const join = (t: string) =>
      evs
        .filter((e) => e.event === t)
        .map((e) => e.json.delta)
        .join('');
    expect(join('response.reasoning_summary_text.delta')).toBe('Plan the answer first.');
    expect(join('response.output_text.delta')).toBe('Reading two files.');
    const argDeltas = evs.filter(
      (e) => e.event === 'response.function_call_arguments.delta' && e.json.output_index === 3,
    );
    expect(argDeltas.length).toBeGreaterThanOrEqual(2);
    expect(argDeltas.map((e) => e.json.delta).join('')).toBe('{"path": "b.ts"}');
    const completed = evs.at(-1)!.json.response;
    expect(completed.status).toBe('completed');
    expect(completed.output.map((o: any) => o.call_id ?? o.type)).toEqual(['reasoning', 'message', 'call_a', 'call_b']);
    expect(completed.output[2].arguments).toBe('{"path":"a.ts"}');
    expect(completed.usage).toEqual({
      input_tokens: 1200,
      input_tokens_details: { cached_tokens: 1024 },
      output_tokens: 80,
      output_tokens_details: { reasoning_tokens: 32 },
      total_tokens: 1280,
    });
    expect(server.requestSurfaces).toEqual(['responses']);
    expect(server.requests[0]).toMatchObject({
      model: 'gpt-test',
      input: 'hi',
      include: ['reasoning.encrypted_content'],
    });
  });

  it('encrypted_content only when the request includes it: a partial value on added, the capsule on done and in completed', async () => {
    const server = await serve({ replies: [rich.replies[0]!, rich.replies[0]!] });
    const withCaps = await events(await postResponses(server.url, { include: ['reasoning.encrypted_content'] }));
    const added = withCaps.find((e) => e.event === 'response.output_item.added')!.json.item;
    const done = withCaps.find((e) => e.event === 'response.output_item.done')!.json.item;
    expect(done.encrypted_content).toBe('CAPSULE-ONE-0123456789');
    expect(added.encrypted_content).not.toBe(done.encrypted_content);
    expect(withCaps.at(-1)!.json.response.output[0].encrypted_content).toBe('CAPSULE-ONE-0123456789');
    const without = await events(await postResponses(server.url, {}));
    expect(without.some((e) => e.data.includes('encrypted_content'))).toBe(false);
  });

  it('length → response.incomplete (max_output_tokens); done:false omits the terminal event; usage:null sends none', async () => {
    const server = await serve({
      replies: [
        { text: 'cut short', finishReason: 'length' },
        { text: 'no terminal', done: false },
        { text: 'no usage', usage: null },
      ],
    });
    const a = await events(await postResponses(server.url, {}));
    expect(a.at(-1)!.event).toBe('response.incomplete');
    expect(a.at(-1)!.json.response).toMatchObject({
      status: 'incomplete',
      incomplete_details: { reason: 'max_output_tokens' },
    });
    const b = await events(await postResponses(server.url, {}));
    expect(b.at(-1)!.event).toBe('response.output_item.done');
    const c = await events(await postResponses(server.url, {}));
    expect(c.at(-1)!.json.response.usage).toBeNull();
  });

  it('non-streaming request → one response object', async () => {
    const server = await serve(rich);
    const res = await postResponses(server.url, { stream: false });
    expect(res.headers.get('content-type')).toContain('application/json');
    const body = (await res.json()) as any;
    expect(body).toMatchObject({ object: 'response', status: 'completed', model: 'gpt-test', id: 'resp_local_1' });
    expect(body.output.map((o: any) => o.type)).toEqual(['reasoning', 'message', 'function_call', 'function_call']);
    expect(body.output[0].encrypted_content).toBeUndefined();
  });

  it('faults: streamError → error + response.failed (shapes as recorded); cutStream ends without a terminal event; malformedChunk sends broken data', async () => {
    const server = await serve({
      replies: [
        { text: 'one two three four', fault: { streamError: true, code: 'insufficient_quota', message: 'quota!' } },
        { text: 'one two three four', fault: { cutStream: true } },
        { text: 'one two three four', fault: { malformedChunk: true } },
      ],
    });
    const failed = await events(await postResponses(server.url, {}));
    expectRecordedShapes(failed, recordedShapes('openai-responses'));
    expect(failed.slice(-2).map((e) => e.event)).toEqual(['error', 'response.failed']);
    expect(failed.at(-2)!.json.error).toMatchObject({ code: 'insufficient_quota', message: 'quota!' });
    expect(failed.at(-1)!.json.response.status).toBe('failed');
    // The reply stays current through its fault: the retry gets it whole.
    expect(server.served).toBe(0);
    expect((await events(await postResponses(server.url, {}))).at(-1)!.event).toBe('response.completed');
    const cut = await events(await postResponses(server.url, {}));
    expect(cut.some((e) => e.event === 'response.completed')).toBe(false);
    await (await postResponses(server.url, {})).text();
    const broken = await (await postResponses(server.url, {})).text();
    const last = parseSseText(broken).at(-1)!;
    expect(last.event).toBe('response.output_text.delta');
    expect(() => JSON.parse(last.data)).toThrow();
    expect(server.served).toBe(2);
  });

  it('validation and auth use OpenAI error bodies; Bearer key required when scripted (the 401 echoes what was sent)', async () => {
    const server = await serve({ apiKey: 'right-key-123', replies: [{ text: 'x' }] });
    const bad = await fetch(`${server.url}/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'm' }),
    });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as any).error.type).toBe('invalid_request_error');
    const wrong = await postResponses(server.url, {}, { authorization: 'Bearer nope-key-456' });
    expect(wrong.status).toBe(401);
    expect(((await wrong.json()) as any).error).toMatchObject({
      code: 'invalid_api_key',
      message: expect.stringContaining('nope-key-456'),
    });
    const ok = await events(await postResponses(server.url, {}, { authorization: 'Bearer right-key-123' }));
    expect(ok.at(-1)!.event).toBe('response.completed');
  });
});

describe('Anthropic Messages rendering', () => {
  it('event names and required fields match the recorded Anthropic streams; blocks in script order; usage fields as scripted', async () => {
    const server = await serve(rich);
    const res = await postMessages(server.url, {});
    expect(res.headers.get('request-id')).toBe('req_local_1');
    const evs = await events(res);
    expectRecordedShapes(evs, recordedShapes('anthropic-messages'));
    const types = evs.map((e) => e.event);
    expect(types.slice(0, 2)).toEqual(['message_start', 'ping']);
    expect(types.slice(-2)).toEqual(['message_delta', 'message_stop']);
    const starts = evs.filter((e) => e.event === 'content_block_start').map((e) => e.json);
    expect(starts.map((s) => [s.index, s.content_block.type])).toEqual([
      [0, 'thinking'],
      [1, 'text'],
      [2, 'tool_use'],
      [3, 'tool_use'],
    ]);
    expect(starts[2].content_block).toEqual({ type: 'tool_use', id: 'call_a', name: 'read', input: {} });
    const deltasOf = (index: number) =>
      evs.filter((e) => e.event === 'content_block_delta' && e.json.index === index).map((e) => e.json.delta);
    expect(
      deltasOf(0)
        .filter((d) => d.type === 'thinking_delta')
        .map((d) => d.thinking)
        .join(''),
    ).toBe('Plan the answer first.');
    expect(deltasOf(0).at(-1)).toEqual({ type: 'signature_delta', signature: 'CAPSULE-ONE-0123456789' });
    expect(
      deltasOf(1)
        .map((d) => d.text)
        .join(''),
    ).toBe('Reading two files.');
    expect(deltasOf(3)[0]).toEqual({ type: 'input_json_delta', partial_json: '' });
    expect(
      deltasOf(3)
        .map((d) => d.partial_json)
        .join(''),
    ).toBe('{"path": "b.ts"}');
    expect(evs.filter((e) => e.event === 'content_block_stop').map((e) => e.json.index)).toEqual([0, 1, 2, 3]);
    expect(evs[0]!.json.message.usage).toEqual({
      input_tokens: 1200,
      cache_creation_input_tokens: 64,
      cache_read_input_tokens: 1024,
    });
    const delta = evs.at(-2)!.json;
    expect(delta.delta.stop_reason).toBe('tool_use');
    expect(delta.usage).toEqual({
      input_tokens: 1200,
      cache_creation_input_tokens: 64,
      cache_read_input_tokens: 1024,
      output_tokens: 80,
      output_tokens_details: { thinking_tokens: 32 },
    });
    expect(server.requestSurfaces).toEqual(['anthropic-messages']);
  });

  it('redacted_thinking, stop reasons (end_turn, max_tokens, refusal, raw), done:false keeps message_delta but drops message_stop', async () => {
    const server = await serve({
      replies: [
        { output: [{ redactedReasoning: 'REDACTED-DATA' }, { text: 'hi' }] },
        { text: 'cut', finishReason: 'length' },
        { finishReason: 'content_filter' },
        { text: 'paused', finishReason: 'pause_turn', done: false },
      ],
    });
    const a = await events(await postMessages(server.url, {}));
    expectRecordedShapes(
      a.filter((e) => e.event !== 'content_block_start' || e.json.index !== 0),
      recordedShapes('anthropic-messages'),
    );
    expect(a.find((e) => e.event === 'content_block_start')!.json.content_block).toEqual({
      type: 'redacted_thinking',
      data: 'REDACTED-DATA',
    });
    expect(a.at(-2)!.json.delta.stop_reason).toBe('end_turn');
    expect((await events(await postMessages(server.url, {}))).at(-2)!.json.delta.stop_reason).toBe('max_tokens');
    const refusal = await events(await postMessages(server.url, {}));
    expect(refusal.map((e) => e.event)).toEqual(['message_start', 'ping', 'message_delta', 'message_stop']);
    expect(refusal.at(-2)!.json.delta.stop_reason).toBe('refusal');
    const paused = await events(await postMessages(server.url, {}));
    expect(paused.at(-1)!.event).toBe('message_delta');
    expect(paused.at(-1)!.json.delta.stop_reason).toBe('pause_turn');
  });

  it('non-streaming request → one message object', async () => {
    const server = await serve(rich);
    const body = (await (await postMessages(server.url, { stream: false })).json()) as any;
    expect(body).toMatchObject({ type: 'message', role: 'assistant', model: 'claude-test', stop_reason: 'tool_use' });
    expect(body.content.map((b: any) => b.type)).toEqual(['thinking', 'text', 'tool_use', 'tool_use']);
    expect(body.content[0].signature).toBe('CAPSULE-ONE-0123456789');
    expect(body.content[3].input).toEqual({ path: 'b.ts' });
  });

  it('needs anthropic-version and max_tokens (400, Anthropic error shape); x-api-key checked when scripted', async () => {
    const server = await serve({ apiKey: 'right-key-123', replies: [{ text: 'x' }] });
    const noVersion = await postMessages(
      server.url,
      {},
      { 'content-type': 'application/json', 'x-api-key': 'right-key-123' },
    );
    expect(noVersion.status).toBe(400);
    expect(await noVersion.json()).toMatchObject({
      type: 'error',
      error: { type: 'invalid_request_error', message: 'anthropic-version: header is required' },
      request_id: 'req_local_1',
    });
    const noMax = await postMessages(
      server.url,
      { max_tokens: undefined },
      { ...ANTHROPIC_HEADERS, 'x-api-key': 'right-key-123' },
    );
    expect(noMax.status).toBe(400);
    const wrong = await postMessages(server.url, {}, { ...ANTHROPIC_HEADERS, authorization: 'Bearer right-key-123' });
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toMatchObject({ type: 'error', error: { type: 'authentication_error' } });
    const ok = await events(await postMessages(server.url, {}, { ...ANTHROPIC_HEADERS, 'x-api-key': 'right-key-123' }));
    expect(ok.at(-1)!.event).toBe('message_stop');
    // Refused before a reply: validation failures are not captured; auth failures are.
    expect(server.requests).toHaveLength(2);
  });

  it('faults: status → Anthropic error body with Retry-After and request-id; streamError → an error event; exhausted → 500 script_exhausted', async () => {
    const server = await serve({
      replies: [
        { text: 'a b c d', fault: { status: 429, retryAfter: '3' } },
        { text: 'e f g h', fault: { streamError: true } },
      ],
    });
    const limited = await postMessages(server.url, {});
    expect([limited.status, limited.headers.get('retry-after'), limited.headers.get('request-id')]).toEqual([
      429,
      '3',
      'req_local_1',
    ]);
    expect(await limited.json()).toMatchObject({ type: 'error', error: { type: 'rate_limit_error' } });
    await (await postMessages(server.url, {})).text();
    const overloaded = await events(await postMessages(server.url, {}));
    expect(overloaded.at(-1)).toMatchObject({
      event: 'error',
      json: { type: 'error', error: { type: 'overloaded_error' } },
    });
    expect(overloaded.some((e) => e.event === 'message_stop')).toBe(false);
    await (await postMessages(server.url, {})).text();
    const exhausted = await postMessages(server.url, {});
    expect(exhausted.status).toBe(500);
    expect(await exhausted.json()).toMatchObject({ type: 'error', error: { type: 'script_exhausted' } });
  });
});

describe('recorded-stream replay framing (SOURCE.md)', () => {
  const single = (surface: 'openai-responses' | 'anthropic-messages') =>
    peerFiles(surface).filter(
      (f) => f.endsWith('.chunks.txt') && f !== 'openai-reasoning-encrypted-content.1.chunks.txt',
    );

  for (const surface of ['openai-responses', 'anthropic-messages'] as const) {
    for (const file of single(surface)) {
      it(`${surface}/${file}: served as "event: <type>" + "data: <line unchanged>" per line, no [DONE]`, async () => {
        const server = await serve({ replies: [{ chunks: peerFile(surface, file) }] });
        const res =
          surface === 'anthropic-messages' ? await postMessages(server.url, {}) : await postResponses(server.url, {});
        const expected = peerLines(surface, file)
          .map((l) => `event: ${(JSON.parse(l) as { type: string }).type}\ndata: ${l}\n\n`)
          .join('');
        expect(await res.text()).toBe(expected);
      });
    }
  }

  it('a Chat Completions file is served as "data: <line>" per line, then data: [DONE]', async () => {
    const file = 'issue-15789-step-1.chunks.txt';
    const server = await serve({ replies: [{ chunks: peerFile('openai-chat', file) }] });
    const res = await fetch(`${server.url}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'm', messages: [], stream: true }),
    });
    expect(await res.text()).toBe(
      `${peerLines('openai-chat', file)
        .map((l) => `data: ${l}\n\n`)
        .join('')}data: [DONE]\n\n`,
    );
  });

  it('the same scripted reply renders on all three surfaces from one script', async () => {
    const server = await serve({ replies: [{ text: 'same' }, { text: 'same' }, { text: 'same' }] });
    const chat = await (
      await fetch(`${server.url}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'm', messages: [], stream: true }),
      })
    ).text();
    expect(chat.endsWith('data: [DONE]\n\n')).toBe(true);
    expect((await events(await postResponses(server.url, {}))).at(-1)!.event).toBe('response.completed');
    expect((await events(await postMessages(server.url, {}))).at(-1)!.event).toBe('message_stop');
    expect(server.requestSurfaces).toEqual(['chat-completions', 'responses', 'anthropic-messages']);
  });

  it('a file of four streams back to back needs "segment"; each segment is one whole response', async () => {
    const file = peerFile('openai-responses', 'openai-reasoning-encrypted-content.1.chunks.txt');
    const err = (await rejectionOf(serve({ replies: [{ chunks: file }] }))) as Error;
    expect(err.message).toMatch(/replies\[0\]\.chunks: .*holds 4 streams back to back; pick one with "segment"/);
    const past = (await rejectionOf(serve({ replies: [{ chunks: file, segment: 4 }] }))) as Error;
    expect(past.message).toContain('replies[0].segment');
    const server = await serve({ replies: [0, 1, 2, 3].map((segment) => ({ chunks: file, segment })) });
    for (let i = 0; i < 4; i++) {
      const evs = await events(await postResponses(server.url, {}));
      expect(evs[0]!.event).toBe('response.created');
      expect(evs.at(-1)!.event).toBe('response.completed');
      expect(evs.filter((e) => e.event === 'response.created')).toHaveLength(1);
    }
  });

  it('a .json file is served as the whole body with the scripted status, on any surface', async () => {
    const server = await serve({
      replies: [
        { chunks: peerFile('anthropic-messages', 'anthropic-issue-17366-error.json'), status: 400 },
        { chunks: peerFile('openai-responses', 'openai-multiple-output-text-parts.1.json') },
      ],
    });
    const a = await postMessages(server.url, {});
    expect(a.status).toBe(400);
    expect(a.headers.get('content-type')).toContain('application/json');
    expect(await a.text()).toBe(
      await import('node:fs').then((fs) =>
        fs.readFileSync(peerFile('anthropic-messages', 'anthropic-issue-17366-error.json'), 'utf8'),
      ),
    );
    const b = await postResponses(server.url, {});
    expect(b.status).toBe(200);
    expect(((await b.json()) as any).output[0].content).toHaveLength(2);
  });
});
