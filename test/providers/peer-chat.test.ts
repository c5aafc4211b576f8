/**
 * Peer suite: every recorded Chat Completions response in
 * `test/fixtures/peer-cases/provider-streams/openai-chat/` (see its SOURCE.md) is
 * served by the local provider as a file replay (`{ chunks: <file> }`,
 * framed `data: <line>` + `data: [DONE]`; a `.json` error body with a
 * scripted status) over real HTTP, and read by the real adapter. One test per
 * file; its name says what it checks. A file in the folder without a case
 * here fails the suite.
 */
import { describe, expect, it } from 'vitest';
import { streamChatCompletion } from '../../activities/providers/chat-completions.js';
import { providerConfig, useLocalProviders } from './helpers.js';
import {
  expectPeerFolderCovered,
  expectViewsAgree,
  partKinds,
  peerFailure,
  peerFile,
  type PeerDeltas,
  type PeerErrorCase,
  type PeerStreamCase,
} from './peer-streams.js';

const SURFACE = 'openai-chat';

const STREAMS: Record<string, PeerStreamCase> = {
  'azure-model-router.1.chunks.txt': {
    checks:
      'text deltas in order; an all-empty Azure placeholder first chunk is ignored (its empty id is no request id); finish_reason stop in its own chunk; usage with reasoning_tokens from the last choices:[] chunk',
    expect: (r, d) => {
      expect(d.text).toEqual(['Capital', ' of', ' Denmark', '.']);
      expect(r.text).toBe('Capital of Denmark.');
      expect(r.parts).toEqual([{ kind: 'text', text: 'Capital of Denmark.' }]);
      expect(r.finishReason).toBe('stop');
      expect(r.usage).toEqual({
        inputTokens: 15,
        outputTokens: 78,
        cachedInputTokens: 0,
        reasoningTokens: 64,
        totalTokens: 93,
      });
      expect(r.requestId).toBe('req_local_1');
    },
  },
  'deepseek-tool-call.chunks.txt': {
    checks:
      'reasoning_content deltas with content:null become one reasoning part before the tool call; arguments streamed a few characters at a time are joined byte-for-byte; finish_reason tool_calls and usage (cached_tokens, reasoning_tokens; DeepSeek cache fields ignored) in the same final chunk',
    expect: (r, d) => {
      expect(r.text).toBe('');
      expect(r.reasoning).toBe('The user asks about the weather in San Francisco. I should use the weather tool.');
      expect(d.reasoning.length).toBeGreaterThan(5);
      expect(r.toolCalls).toEqual([
        { callId: 'call_00_IhCAliIHtM9gKpgfqbBV9873', name: 'weather', argsJson: '{"location": "San Francisco"}' },
      ]);
      expect(partKinds(r)).toEqual(['reasoning', 'tool_call']);
      expect(r.finishReason).toBe('tool_calls');
      expect(r.usage).toEqual({
        inputTokens: 374,
        outputTokens: 61,
        cachedInputTokens: 256,
        reasoningTokens: 17,
        totalTokens: 435,
      });
    },
  },
  'issue-13703-mistral-thinking.chunks.txt': {
    checks:
      'Mistral typed content parts: nested thinking text (with or without closed:true) is reasoning, a text part and later string content are text, in that order; finish_reason stop and usage in the last chunk (no reasoning_tokens → unknown, not 0)',
    expect: (r) => {
      expect(r.text).toBe('391');
      expect(r.reasoning.startsWith('Okay, the user is asking for the product of 17 and 23.')).toBe(true);
      expect(r.reasoning.endsWith('17 * 23 = 391.')).toBe(true);
      expect(partKinds(r)).toEqual(['reasoning', 'text']);
      expect(r.finishReason).toBe('stop');
      expect(r.usage).toEqual({ inputTokens: 28, outputTokens: 139, cachedInputTokens: 0, totalTokens: 167 });
      expect('reasoningTokens' in r.usage!).toBe(false);
    },
  },
  'issue-15789-step-1.chunks.txt': {
    checks:
      'text, then one tool call whose arguments are "{}": parts text → tool_call; finish_reason tool_calls; usage from the usage-only chunk after the finish chunk',
    expect: (r) => {
      expect(r.parts).toEqual([
        { kind: 'text', text: 'PRE_TOOL' },
        { kind: 'tool_call', callId: 'call_NZa7xqfefoaMI2YYHowVXVlU', name: 'weather', argsJson: '{}' },
      ]);
      expect(r.toolCalls).toEqual([{ callId: 'call_NZa7xqfefoaMI2YYHowVXVlU', name: 'weather', argsJson: '{}' }]);
      expect(r.finishReason).toBe('tool_calls');
      expect(r.usage).toEqual({
        inputTokens: 58,
        outputTokens: 12,
        cachedInputTokens: 0,
        reasoningTokens: 0,
        totalTokens: 70,
      });
    },
  },
  'issue-19789-live-usage.chunks.txt': {
    checks:
      'finish_reason length and full usage in the same chunk as the last text; a chunk without `created` is fine; the x-request-id header wins over the chunk id',
    expect: (r) => {
      expect(r.text).toBe('sanitized');
      expect(r.finishReason).toBe('length');
      expect(r.usage).toEqual({
        inputTokens: 88,
        outputTokens: 4,
        cachedInputTokens: 0,
        reasoningTokens: 4,
        totalTokens: 92,
      });
      expect(r.requestId).toBe('req_local_1');
    },
  },
  'issue-20203-empty-tool-calls.chunks.txt': {
    checks:
      'reasoning_content and content in the same deltas: reasoning part then text part; empty tool_calls:[] arrays create no call; finish_reason in the chunk of the last text; no usage → undefined',
    expect: (r, d) => {
      expect(r.parts).toEqual([
        { kind: 'reasoning', text: 'Think more...' },
        { kind: 'text', text: 'Hello' },
      ]);
      expect(d.reasoning).toEqual(['Think ', 'more...']);
      expect(r.toolCalls).toEqual([]);
      expect(r.finishReason).toBe('stop');
      expect(r.usage).toBeUndefined();
    },
  },
  'placeholder-first-chunk.chunks.txt': {
    checks:
      'an all-empty placeholder first chunk (no id/model/object) is skipped; text, finish_reason stop, usage from the usage-only chunk',
    expect: (r) => {
      expect(r.parts).toEqual([{ kind: 'text', text: 'Hello' }]);
      expect(r.finishReason).toBe('stop');
      expect(r.usage).toEqual({ inputTokens: 10, outputTokens: 1, totalTokens: 11 });
    },
  },
};

const ERRORS: Record<string, PeerErrorCase> = {
  'reasoning-model-legacy-parameter-error.json': {
    checks:
      'an OpenAI error body served with HTTP 400 is provider_bad_request, not retryable, with status, the provider code unsupported_parameter, the request id and the message in the diagnostic',
    status: 400,
    expect: (e) => {
      expect(e.code).toBe('provider_bad_request');
      expect(e.retryable).toBe(false);
      expect(e.retryAfterMs).toBeUndefined();
      expect(e.diagnostic).toMatchObject({ status: 400, code: 'unsupported_parameter', requestId: 'req_local_1' });
      expect(e.diagnostic.reason).toContain("Unsupported parameter: 'max_tokens' is not supported with this model.");
    },
  },
};

describe('peer recorded Chat Completions responses', () => {
  const { serve } = useLocalProviders();

  it('the folder is present and every file in it has a case here', () => {
    expectPeerFolderCovered(SURFACE, Object.keys({ ...STREAMS, ...ERRORS }));
  });

  for (const [file, c] of Object.entries(STREAMS)) {
    it(`${file}: ${c.checks}`, async () => {
      const server = await serve({ replies: [{ chunks: peerFile(SURFACE, file) }] });
      const deltas: PeerDeltas = { text: [], reasoning: [] };
      const r = await streamChatCompletion(
        providerConfig(server.url),
        { model: 'peer', messages: [{ role: 'user', text: 'replay' }], tools: [] },
        { onTextDelta: (t) => deltas.text.push(t), onReasoningDelta: (t) => deltas.reasoning.push(t) },
      );
      expectViewsAgree(r, deltas);
      expect(server.requestSurfaces).toEqual(['chat-completions']);
      c.expect(r, deltas);
    });
  }

  for (const [file, c] of Object.entries(ERRORS)) {
    it(`${file}: ${c.checks}`, async () => {
      const server = await serve({ replies: [{ chunks: peerFile(SURFACE, file), status: c.status }] });
      c.expect(
        await peerFailure(streamChatCompletion(providerConfig(server.url), { model: 'peer', messages: [], tools: [] })),
      );
    });
  }

  it('a recorded stream cut before its finish chunk is upstream_stream_incomplete; the retry gets the whole stream', async () => {
    const server = await serve({
      replies: [{ chunks: peerFile(SURFACE, 'deepseek-tool-call.chunks.txt'), fault: { cutStream: true } }],
    });
    const req = { model: 'peer', messages: [], tools: [] };
    await expect(streamChatCompletion(providerConfig(server.url), req)).rejects.toMatchObject({
      code: 'upstream_stream_incomplete',
      retryable: true,
    });
    const r = await streamChatCompletion(providerConfig(server.url), req);
    expect(r.toolCalls).toHaveLength(1);
  });
});
