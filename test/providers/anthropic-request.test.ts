/**
 * The Anthropic Messages request body as the real local provider captured it
 * over real HTTP (no mocks): headers, role alternation and merging, tool
 * results paired by `tool_use_id`, thinking / redacted thinking capsules
 * replayed unchanged and in order (PR8, PR9), tool inputs from the stored
 * argument text with an inert fallback (PR10).
 */
import { describe, expect, it } from 'vitest';
import {
  ANSWER_TOKENS_BESIDE_THINKING,
  DEFAULT_MAX_TOKENS,
  streamAnthropicMessages,
  toolInput,
} from '../../activities/providers/anthropic-messages.js';
import type { ModelRequest, ProviderConfig } from '../../activities/providers/types.js';
import type { ProviderReasoning } from '../../core/messages.js';
import type { LocalProvider } from '../../local-provider/server.js';
import { providerConfig, TEST_KEY, useLocalProviders } from './helpers.js';

const providers = useLocalProviders();
const serve = (): Promise<LocalProvider> => providers.serve({ replies: [{ text: 'ok' }] });
const cfg = (url: string, over: Partial<ProviderConfig> = {}): ProviderConfig =>
  providerConfig(url, { transport: 'anthropic-messages', ...over });

/** Send `req` and return the body the server received. */
async function sent(req: ModelRequest, over: Partial<ProviderConfig> = {}): Promise<Record<string, unknown>> {
  const server = await serve();
  await streamAnthropicMessages(cfg(server.url, over), req);
  return server.requests[0]!;
}

const sig = (signature: string): ProviderReasoning => ({
  provider: 'local',
  model: 'claude-test',
  surface: 'anthropic-messages',
  signature,
  producedAtMs: 1,
});
const redacted = (redactedData: string): ProviderReasoning => ({
  provider: 'local',
  model: 'claude-test',
  surface: 'anthropic-messages',
  redactedData,
  producedAtMs: 1,
});

describe('Anthropic Messages request', () => {
  it('POST …/v1/messages with x-api-key, anthropic-version 2023-06-01, stream, max_tokens, system; no tools key when none', async () => {
    const server = await serve();
    await streamAnthropicMessages(cfg(server.url), {
      model: 'claude-test',
      messages: [
        { role: 'system', text: 'You are terse.' },
        { role: 'user', text: 'Say hello.' },
      ],
      tools: [],
    });
    expect(server.requestSurfaces).toEqual(['anthropic-messages']);
    const h = server.requestHeaders[0]!;
    expect(h['x-api-key']).toBe(TEST_KEY);
    expect(h['anthropic-version']).toBe('2023-06-01');
    expect(h.authorization).toBeUndefined();
    expect(h.accept).toBe('text/event-stream');
    expect(h['content-type']).toBe('application/json');
    expect(server.requests[0]).toEqual({
      model: 'claude-test',
      max_tokens: DEFAULT_MAX_TOKENS,
      system: 'You are terse.',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Say hello.' }] }],
      stream: true,
    });
    expect(DEFAULT_MAX_TOKENS).toBe(8192);
  });

  it('extended thinking: thinking_budget_tokens sends thinking {enabled, budget} with max_tokens above the budget', async () => {
    const body = await sent(
      { model: 'claude-test', messages: [{ role: 'user', text: 'think' }], tools: [] },
      { thinkingBudgetTokens: 4096 },
    );
    expect(body.thinking).toEqual({ type: 'enabled', budget_tokens: 4096 });
    expect(body.max_tokens).toBe(4096 + ANSWER_TOKENS_BESIDE_THINKING);
    const plain = await sent({ model: 'claude-test', messages: [{ role: 'user', text: 'no' }], tools: [] });
    expect(plain.thinking).toBeUndefined();
  });

  it('without an API key variable no credential header is sent (local servers)', async () => {
    const server = await serve();
    await streamAnthropicMessages(cfg(server.url, { apiKeyEnv: undefined }), {
      model: 'm',
      messages: [{ role: 'user', text: 'hi' }],
      tools: [],
    });
    expect(server.requestHeaders[0]!['x-api-key']).toBeUndefined();
    expect(server.requestHeaders[0]!['anthropic-version']).toBe('2023-06-01');
  });

  it('tools go out as {name, description, input_schema}', async () => {
    const schema = { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] };
    const body = await sent({
      model: 'm',
      messages: [{ role: 'user', text: 'read' }],
      tools: [{ name: 'read', description: 'Read a file.', parameters: schema }],
    });
    expect(body.tools).toEqual([{ name: 'read', description: 'Read a file.', input_schema: schema }]);
  });

  it('assistant parts in provider order: thinking+signature and redacted_thinking unchanged, text, tool_use; tool results become one user message paired by tool_use_id; same-role messages merge', async () => {
    const weird = 'sig/with+odd=chars\u00e9 and spaces  ';
    const body = await sent({
      model: 'claude-test',
      messages: [
        { role: 'system', text: 'sys one' },
        { role: 'system', text: 'sys two' },
        { role: 'user', text: 'first' },
        { role: 'user', text: 'second' },
        {
          role: 'assistant',
          text: 'Reading both.',
          toolCalls: [],
          parts: [
            { kind: 'reasoning', text: 'Plan: read a, then b.', providerReasoning: sig(weird) },
            { kind: 'reasoning', text: '', providerReasoning: redacted('REDACTED==opaque') },
            { kind: 'text', text: 'Reading both.' },
            { kind: 'tool_call', callId: 'toolu_a', name: 'read', argsJson: '{"path": "a.ts"}' },
            { kind: 'reasoning', text: 'between calls', providerReasoning: sig('sig-2') },
            { kind: 'tool_call', callId: 'toolu_b', name: 'read', argsJson: '{"path":"b.ts","n":[1,2]}' },
          ],
        },
        { role: 'tool', callId: 'toolu_a', name: 'read', content: 'contents of a' },
        { role: 'tool', callId: 'toolu_b', name: 'read', content: '' },
        { role: 'user', text: 'and now?' },
        { role: 'assistant', text: 'Done.', toolCalls: [] },
      ],
      tools: [],
    });
    expect(body.system).toBe('sys one\n\nsys two');
    expect(body.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'first' },
          { type: 'text', text: 'second' },
        ],
      },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'Plan: read a, then b.', signature: weird },
          { type: 'redacted_thinking', data: 'REDACTED==opaque' },
          { type: 'text', text: 'Reading both.' },
          { type: 'tool_use', id: 'toolu_a', name: 'read', input: { path: 'a.ts' } },
          { type: 'thinking', thinking: 'between calls', signature: 'sig-2' },
          { type: 'tool_use', id: 'toolu_b', name: 'read', input: { path: 'b.ts', n: [1, 2] } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_a', content: 'contents of a' },
          { type: 'tool_result', tool_use_id: 'toolu_b' },
          { type: 'text', text: 'and now?' },
        ],
      },
      { role: 'assistant', content: [{ type: 'text', text: 'Done.' }] },
    ]);
  });

  it('reasoning without a capsule (withheld by the replay policy) and a Responses-only capsule are dropped; an assistant message with no parts view renders text then calls', async () => {
    const body = await sent({
      model: 'claude-test',
      messages: [
        { role: 'user', text: 'go' },
        {
          role: 'assistant',
          text: 'x',
          toolCalls: [],
          parts: [
            { kind: 'reasoning', text: 'withheld summary' },
            {
              kind: 'reasoning',
              text: 'from responses',
              providerReasoning: {
                provider: 'local',
                model: 'claude-test',
                surface: 'responses',
                encryptedContent: 'enc',
                producedAtMs: 1,
              },
            },
            { kind: 'text', text: 'x' },
          ],
        },
        { role: 'user', text: 'more' },
        {
          role: 'assistant',
          text: 'calling',
          toolCalls: [{ callId: 'toolu_c', name: 'glob', argsJson: '{"pattern":"*"}' }],
        },
        { role: 'tool', callId: 'toolu_c', name: 'glob', content: 'a.ts' },
      ],
      tools: [],
    });
    expect(body.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'go' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'x' }] },
      { role: 'user', content: [{ type: 'text', text: 'more' }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'calling' },
          { type: 'tool_use', id: 'toolu_c', name: 'glob', input: { pattern: '*' } },
        ],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_c', content: 'a.ts' }] },
    ]);
  });

  it('malformed or non-object stored arguments become a bounded inert input object, never a crash (PR10)', async () => {
    const long = `{"command": "${'x'.repeat(5000)}`;
    const body = await sent({
      model: 'm',
      messages: [
        { role: 'user', text: 'go' },
        {
          role: 'assistant',
          text: '',
          toolCalls: [],
          parts: [
            { kind: 'tool_call', callId: 't1', name: 'shell', argsJson: '{"command": "ls"' },
            { kind: 'tool_call', callId: 't2', name: 'shell', argsJson: '' },
            { kind: 'tool_call', callId: 't3', name: 'shell', argsJson: '[1,2]' },
            { kind: 'tool_call', callId: 't4', name: 'shell', argsJson: long },
          ],
        },
        { role: 'tool', callId: 't1', name: 'shell', content: 'blocked' },
        { role: 'tool', callId: 't2', name: 'shell', content: 'blocked' },
        { role: 'tool', callId: 't3', name: 'shell', content: 'blocked' },
        { role: 'tool', callId: 't4', name: 'shell', content: 'blocked' },
      ],
      tools: [],
    });
    const uses = (body.messages as Array<{ content: Array<Record<string, unknown>> }>)[1]!.content;
    expect(uses.map((u) => u.input)).toEqual([
      { unparsed_arguments: '{"command": "ls"' },
      {},
      { unparsed_arguments: '[1,2]' },
      { unparsed_arguments: long.slice(0, 2000) },
    ]);
    expect(toolInput('null')).toEqual({ unparsed_arguments: 'null' });
    expect(toolInput('  {"a":1}  ')).toEqual({ a: 1 });
  });
});
