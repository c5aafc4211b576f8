import { describe, expect, it } from 'vitest';
import { streamChatCompletion } from '../../activities/providers/chat-completions.js';
import type { ModelRequest } from '../../activities/providers/types.js';
import { providerConfig, useLocalProviders } from './helpers.js';

const { serve, failureOf } = useLocalProviders({ moreErrorsThan: 3 });
const request: ModelRequest = { model: 'm', messages: [{ role: 'user', text: 'hi' }], tools: [] };

describe('Chat Completions refuses what is not a Chat Completions answer (PR3)', () => {
  it("garbage or another surface's events are provider_protocol, not an empty success", async () => {
    const cases: unknown[][] = [
      [{ foo: 1 }],
      [{ id: 'x', choices: 'notarray' }],
      [{ id: 'x', choices: [{ index: 0, delta: { content: 5 }, finish_reason: 'stop' }] }],
      // Responses events served on a chat route.
      [
        { type: 'response.created', response: { id: 'resp_1' } },
        { type: 'response.completed', response: {} },
      ],
    ];
    for (const chunks of cases) {
      const server = await serve({ replies: [{ chunks: chunks as never }] });
      const err = await failureOf(streamChatCompletion(providerConfig(server.url), request));
      expect(err.code, JSON.stringify(chunks)).toBe('provider_protocol');
      expect(err.retryable).toBe(false);
      expect(err.message).toContain('not a Chat Completions stream');
    }
  });

  it('a tool call that never names its function is a protocol error, not a call of tool ""', async () => {
    const server = await serve({
      replies: [
        {
          chunks: [
            {
              id: 'c',
              choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: '{"path":' } }] } }],
            },
            { id: 'c', choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] },
          ] as never,
        },
      ],
    });
    const err = await failureOf(streamChatCompletion(providerConfig(server.url), request));
    expect(err.code).toBe('provider_protocol');
    expect(err.diagnostic.code).toBe('nameless_tool_call');
  });

  it('an in-stream context_length_exceeded is provider_context_limit (CP8: compacted, never retried as is)', async () => {
    const server = await serve({
      replies: [
        {
          chunks: [
            { error: { code: 'context_length_exceeded', type: 'invalid_request_error', message: 'too long' } },
          ] as never,
        },
      ],
    });
    const err = await failureOf(streamChatCompletion(providerConfig(server.url), request));
    expect(err.code).toBe('provider_context_limit');
    expect(err.retryable).toBe(false);
    expect(err.contextLimit).toEqual({}); // the message gives no figures
  });

  it('an in-stream invalid_prompt stays a bad request, never retried', async () => {
    const server = await serve({
      replies: [
        { chunks: [{ error: { code: 'invalid_prompt', type: 'invalid_request_error', message: 'no' } }] as never },
      ],
    });
    const err = await failureOf(streamChatCompletion(providerConfig(server.url), request));
    expect(err.code).toBe('provider_bad_request');
    expect(err.retryable).toBe(false);
  });
});
