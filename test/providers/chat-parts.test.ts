/**
 * Chat Completions assembly beyond the basics (issue 4 item 3): ordered
 * parts follow the stream (PR9), reasoning from `reasoning_content` or
 * `reasoning`, parallel tool calls by index (also servers that reuse index 0),
 * in-stream errors. Real adapter, real local server, real HTTP.
 */
import { describe, expect, it } from 'vitest';
import { streamChatCompletion } from '../../activities/providers/chat-completions.js';
import type { ModelRequest } from '../../activities/providers/types.js';
import { expectNoSecrets, providerConfig, rejectionOf, useLocalProviders } from './helpers.js';

const req: ModelRequest = { model: 'test-model', messages: [{ role: 'user', text: 'go' }], tools: [] };
const { serve } = useLocalProviders();

/** A chat.completion.chunk with one delta. */
const chunk = (delta: Record<string, unknown>, finish: string | null = null): Record<string, unknown> => ({
  id: 'chatcmpl-x',
  object: 'chat.completion.chunk',
  choices: [{ index: 0, delta, finish_reason: finish }],
});

describe('ordered parts (PR9)', () => {
  it('follow the stream: reasoning, text, a call, more text, more reasoning, another call', async () => {
    const server = await serve({
      replies: [
        {
          output: [
            { reasoning: 'First think.' },
            { text: 'I will read a.' },
            { toolCall: { id: 'call_a', name: 'read', arguments: { path: 'a' } } },
            { text: 'And then b.' },
            { reasoning: 'Think again.' },
            { toolCall: { id: 'call_b', name: 'read', arguments: { path: 'b' } } },
          ],
        },
      ],
    });
    const r = await streamChatCompletion(providerConfig(server.url), req);
    expect(r.parts).toEqual([
      { kind: 'reasoning', text: 'First think.' },
      { kind: 'text', text: 'I will read a.' },
      { kind: 'tool_call', callId: 'call_a', name: 'read', argsJson: '{"path":"a"}' },
      { kind: 'text', text: 'And then b.' },
      { kind: 'reasoning', text: 'Think again.' },
      { kind: 'tool_call', callId: 'call_b', name: 'read', argsJson: '{"path":"b"}' },
    ]);
    expect(r.text).toBe('I will read a.And then b.');
    expect(r.reasoning).toBe('First think.Think again.');
    expect(r.toolCalls.map((c) => c.callId)).toEqual(['call_a', 'call_b']);
    expect(r.finishReason).toBe('tool_calls');
  });

  it('interleaved parallel calls keep their start order and whole arguments', async () => {
    const server = await serve({
      replies: [
        {
          text: 'Both.',
          interleaveToolCalls: true,
          toolCalls: [
            { id: 'call_1', name: 'shell', arguments: { command: 'ls -la' } },
            { id: 'call_2', name: 'read', arguments: '{"path": "x"' },
            { id: 'call_3', name: 'glob', arguments: '' },
          ],
        },
      ],
    });
    const r = await streamChatCompletion(providerConfig(server.url), req);
    expect(r.parts.map((p) => (p.kind === 'tool_call' ? p.callId : p.kind))).toEqual([
      'text',
      'call_1',
      'call_2',
      'call_3',
    ]);
    expect(r.toolCalls.map((c) => c.argsJson)).toEqual(['{"command":"ls -la"}', '{"path": "x"', '']);
  });
});

describe('reasoning fields', () => {
  it('delta.reasoning counts when reasoning_content is absent or empty, and a server sending both is not counted twice', async () => {
    const server = await serve({
      replies: [
        {
          chunks: [
            chunk({ role: 'assistant', content: '' }),
            chunk({ reasoning: 'Open' }),
            chunk({ reasoning_content: '', reasoning: 'Router' }),
            chunk({ reasoning_content: ' style', reasoning: ' style' }),
            chunk({ content: 'Done.' }, 'stop'),
          ],
        },
      ],
    });
    const reasoningDeltas: string[] = [];
    const r = await streamChatCompletion(providerConfig(server.url), req, {
      onReasoningDelta: (t) => reasoningDeltas.push(t),
    });
    expect(r.reasoning).toBe('OpenRouter style');
    expect(reasoningDeltas).toEqual(['Open', 'Router', ' style']);
    expect(r.parts).toEqual([
      { kind: 'reasoning', text: 'OpenRouter style' },
      { kind: 'text', text: 'Done.' },
    ]);
  });
});

describe('tool-call indexes', () => {
  it('a server that sends every call as index 0 with its own id still yields separate calls', async () => {
    const server = await serve({
      replies: [
        {
          chunks: [
            chunk({
              tool_calls: [{ index: 0, id: 'call_x', type: 'function', function: { name: 'read', arguments: '' } }],
            }),
            chunk({ tool_calls: [{ index: 0, function: { arguments: '{"path":"x"}' } }] }),
            chunk({
              tool_calls: [{ index: 0, id: 'call_y', type: 'function', function: { name: 'read', arguments: '{"pa' } }],
            }),
            chunk({ tool_calls: [{ index: 0, function: { arguments: 'th":"y"}' } }] }),
            chunk({}, 'tool_calls'),
          ],
        },
      ],
    });
    const r = await streamChatCompletion(providerConfig(server.url), req);
    expect(r.toolCalls).toEqual([
      { callId: 'call_x', name: 'read', argsJson: '{"path":"x"}' },
      { callId: 'call_y', name: 'read', argsJson: '{"path":"y"}' },
    ]);
  });

  it('deltas without index are matched by id, else continue the previous call; a call without id gets call_<index>', async () => {
    const server = await serve({
      replies: [
        {
          chunks: [
            chunk({ tool_calls: [{ id: 'call_p', function: { name: 'read', arguments: '{"a"' } }] }),
            chunk({ tool_calls: [{ function: { arguments: ':1}' } }] }),
            chunk({ tool_calls: [{ index: 1, function: { name: 'glob', arguments: '{}' } }] }),
            chunk({ tool_calls: [{ id: 'call_p', function: { arguments: ' ' } }] }),
          ],
        },
      ],
    });
    const r = await streamChatCompletion(providerConfig(server.url), req);
    expect(r.toolCalls).toEqual([
      { callId: 'call_p', name: 'read', argsJson: '{"a":1} ' },
      { callId: 'call_1', name: 'glob', argsJson: '{}' },
    ]);
    // Only [DONE] ended it: tool calls were streamed, so the finish reason is tool_calls (PR4).
    expect(r.finishReason).toBe('tool_calls');
  });
});

describe('in-stream errors', () => {
  it('a streamError fault is provider_unavailable (retryable) with the scripted code; the retry succeeds', async () => {
    const server = await serve({
      replies: [
        { text: 'one two three four', fault: { streamError: true, code: 'upstream_overloaded', message: 'busy' } },
      ],
    });
    const err = (await rejectionOf(streamChatCompletion(providerConfig(server.url), req))) as {
      diagnostic: { reason: string };
    };
    expect(err).toMatchObject({ code: 'provider_unavailable', retryable: true });
    expect(err.diagnostic).toMatchObject({ code: 'upstream_overloaded', requestId: 'req_local_1' });
    expect(err.diagnostic.reason).toContain('busy');
    expectNoSecrets(err);
    expect((await streamChatCompletion(providerConfig(server.url), req)).text).toBe('one two three four');
  });
});
