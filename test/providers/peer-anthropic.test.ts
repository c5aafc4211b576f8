/**
 * Peer suite: every recorded Anthropic Messages response in
 * `test/fixtures/peer-cases/provider-streams/anthropic-messages/` (see its
 * SOURCE.md) is served by the local provider as a file replay (`{ chunks:
 * <file> }`, framed `event: <type>` + `data: <line unchanged>`; a `.json`
 * body with a scripted status) over real HTTP, and read by the real adapter.
 * One test per file; its name says what it checks. A file in the folder
 * without a case here fails the suite.
 */
import { describe, expect, it } from 'vitest';
import { completeAnthropicMessage } from '../../activities/providers/anthropic-complete.js';
import { streamAnthropicMessages } from '../../activities/providers/anthropic-messages.js';
import { ProviderError } from '../../activities/providers/errors.js';
import type { ModelRequest, ModelResponse, ProviderConfig } from '../../activities/providers/types.js';
import { providerConfig, TEST_KEY, useLocalProviders } from './helpers.js';
import {
  expectPeerFolderCovered,
  expectViewsAgree,
  partKinds,
  peerFailure,
  peerFile,
  peerLines,
  type PeerDeltas,
  type PeerErrorCase,
  type PeerStreamCase,
} from './peer-streams.js';

const SURFACE = 'anthropic-messages';
const MODEL = 'peer-model';

interface BodyCase {
  checks: string;
  /** The whole JSON body, served with HTTP 200 to both a streaming and a non-streaming request. */
  expect: (r: ModelResponse, streamed: ProviderError) => void;
}

/** The `partial_json` pieces of one block of a recorded file, joined: the provider's own bytes. */
function recordedArgs(file: string, index: number): string {
  return peerLines(SURFACE, file)
    .map((l) => JSON.parse(l) as { type: string; index?: number; delta?: { type: string; partial_json?: string } })
    .filter((e) => e.type === 'content_block_delta' && e.index === index && e.delta?.type === 'input_json_delta')
    .map((e) => e.delta!.partial_json!)
    .join('');
}

/** The capsule every thinking part of a recording must carry (model = the requested one unless noted). */
const capsule = (signature: string, model = MODEL) => ({
  provider: 'local',
  model,
  surface: 'anthropic-messages',
  signature,
  producedAtMs: expect.any(Number),
});

const STREAMS: Record<string, PeerStreamCase> = {
  'anthropic-claude-sonnet-5-reasoning-summarized.chunks.txt': {
    checks:
      'thinking deltas + one signature_delta become one reasoning part whose capsule carries the signature unchanged, then the text part; lines with odd spacing and {"type": "ping"} parse; non-ASCII and LaTeX backslashes kept; end_turn → stop; usage with thinking_tokens, zero cache fields kept as 0',
    expect: (r, d) => {
      expect(partKinds(r)).toEqual(['reasoning', 'text']);
      expect(d.reasoning).toHaveLength(4);
      expect(r.reasoning).toBe(
        "I'm working through the Euclidean algorithm to find the GCD of 1071 and 462, applying successive division until I reach a remainder of zero, which gives me 21 as the greatest common divisor.",
      );
      const sig = (
        JSON.parse(peerLines(SURFACE, 'anthropic-claude-sonnet-5-reasoning-summarized.chunks.txt')[7]!) as {
          delta: { signature: string };
        }
      ).delta.signature;
      expect(sig.startsWith('EsECCokBCBAYAipA')).toBe(true);
      expect(r.parts[0]).toEqual({ kind: 'reasoning', text: r.reasoning, providerReasoning: capsule(sig) });
      expect(d.text).toHaveLength(6);
      expect(r.text.startsWith('# Finding GCD(1071, 462) Using the Euclidean Algorithm\n\n')).toBe(true);
      expect(r.text).toContain('$$1071 = 2 \\times 462 + 147$$\n(since 2 × 462 = 924, and 1071 − 924 = 147)');
      expect(r.text.endsWith('- 462 = 21 × 22 ✓')).toBe(true);
      expect(r.toolCalls).toEqual([]);
      expect(r.finishReason).toBe('stop');
      expect(r.usage).toEqual({
        inputTokens: 47,
        cachedInputTokens: 0,
        cacheWriteInputTokens: 0,
        outputTokens: 373,
        reasoningTokens: 62,
      });
      expect(r.requestId).toBe('req_local_1');
    },
  },
  'anthropic-code-execution-20260120-prompt-cache.1.chunks.txt': {
    checks:
      'PR11 prompt cache: input = uncached 6 + cache read 6289 + cache write 3337 from the final message_delta (which corrects message_start); server_tool_use blocks (run by the provider) and their *_tool_result blocks are not client tool calls; the closing text is the only part',
    expect: (r) => {
      expect(r.parts).toEqual([
        { kind: 'text', text: 'The sum of the squares of the numbers 1 through 12 is **650**.' },
      ]);
      expect(r.toolCalls).toEqual([]);
      expect(r.finishReason).toBe('stop');
      expect(r.usage).toEqual({
        inputTokens: 6 + 6289 + 3337,
        cachedInputTokens: 6289,
        cacheWriteInputTokens: 3337,
        outputTokens: 198,
        reasoningTokens: 0,
      });
    },
  },
  'anthropic-fallback-mid-output.chunks.txt': {
    checks:
      'two thinking blocks around a model fallback stay two reasoning parts in order, each with its own signature; the one after the fallback block is stamped with the model that signed it (claude-opus-4-8), not the requested one; the tool_use input is the single delta; usage without cache fields leaves them unknown',
    expect: (r) => {
      expect(r.parts).toEqual([
        { kind: 'reasoning', text: 'Opus 5.5 thinking', providerReasoning: capsule('SIG_FROM_OPUS_5_5') },
        {
          kind: 'reasoning',
          text: 'Opus 4.8 thinking',
          providerReasoning: capsule('SIG_FROM_OPUS_4_8', 'claude-opus-4-8'),
        },
        { kind: 'tool_call', callId: 'toolu_1', name: 'lookup', argsJson: '{"q":"x"}' },
      ]);
      expect(r.finishReason).toBe('tool_calls');
      expect(r.usage).toEqual({ inputTokens: 10, outputTokens: 70 });
    },
  },
  'anthropic-issue-11719-quoted-tool-input.chunks.txt': {
    checks:
      'a response that is only a tool_use: partial_json pieces that split a string holding escaped quotes are joined byte-for-byte (the provider’s own text, not re-serialized) and parse to the quoted value',
    expect: (r) => {
      const raw = recordedArgs('anthropic-issue-11719-quoted-tool-input.chunks.txt', 0);
      expect(r.parts).toEqual([
        { kind: 'tool_call', callId: 'toolu_01Cr31vcGoeeRgi3Eo5Ds8qN', name: 'website_update', argsJson: raw },
      ]);
      const args = JSON.parse(r.toolCalls[0]!.argsJson) as { tasks: Array<{ description: string }> };
      expect(args.tasks[0]!.description).toContain('the question: "What should I do next after this run?". It');
      expect(r.finishReason).toBe('tool_calls');
      expect(r.usage).toEqual({ inputTokens: 912, cachedInputTokens: 0, cacheWriteInputTokens: 0, outputTokens: 118 });
    },
  },
  'anthropic-message-delta-input-tokens.chunks.txt': {
    checks:
      'the message_delta input_tokens (61) wins over message_start (43); keys in another order (text before type) parse; text deltas around a ping; no cache fields → unknown, not 0',
    expect: (r, d) => {
      expect(d.text).toEqual(['p', 'ong']);
      expect(r.parts).toEqual([{ kind: 'text', text: 'pong' }]);
      expect(r.finishReason).toBe('stop');
      expect(r.usage).toEqual({ inputTokens: 61, outputTokens: 2 });
    },
  },
  'issue-10781.1.chunks.txt': {
    checks:
      'text then tool_use (with caller:{type:"direct"}): two parts in that order; an empty partial_json plus two pieces give the exact argument text; tool_use → tool_calls; zero-valued cache fields are 0, not unknown',
    expect: (r) => {
      expect(r.parts).toEqual([
        { kind: 'text', text: 'Let me check.' },
        {
          kind: 'tool_call',
          callId: 'toolu_01Ni1uw4HXYxUhc4iFMqx7yY',
          name: 'get_weather',
          argsJson: '{"city": "San Francisco"}',
        },
      ]);
      expect(r.finishReason).toBe('tool_calls');
      expect(r.usage).toEqual({ inputTokens: 624, cachedInputTokens: 0, cacheWriteInputTokens: 0, outputTokens: 59 });
    },
  },
};

const ERRORS: Record<string, PeerErrorCase> = {
  'anthropic-refusal.chunks.txt': {
    checks:
      'a message with no content blocks and stop_reason refusal is a typed terminal refusal (content_filtered, not retryable, PR3) whose reason carries the stop_details category and explanation; the request-id header is the request id',
    status: 200,
    expect: (e) => {
      expect(e.code).toBe('content_filtered');
      expect(e.retryable).toBe(false);
      expect(e.diagnostic).toMatchObject({ status: 200, code: 'refusal', requestId: 'req_local_1' });
      expect(e.diagnostic.reason).toContain('category cyber');
      expect(e.diagnostic.reason).toContain('This request triggered restrictions on violative cyber content');
    },
  },
  'anthropic-issue-17366-error.json': {
    checks:
      'an Anthropic error body ({type:"error", error:{type, message}}) served with HTTP 400 is provider_bad_request, never retried, with the error type as the code, the message and the request-id header in the diagnostic',
    status: 400,
    expect: (e) => {
      expect(e.code).toBe('provider_bad_request');
      expect(e.retryable).toBe(false);
      expect(e.retryAfterMs).toBeUndefined();
      expect(e.diagnostic).toMatchObject({ status: 400, code: 'invalid_request_error', requestId: 'req_local_1' });
      expect(e.diagnostic.reason).toContain(
        'messages.2.content.0: unexpected `tool_use_id` found in `tool_result` blocks',
      );
    },
  },
};

const BODIES: Record<string, BodyCase> = {
  'issue-13430-thinking-tool-call.json': {
    checks:
      'a whole non-streaming message (thinking with signature, then tool_use with empty input): the non-streaming call assembles the same parts (capsule, argsJson "{}"), tool_calls and usage with thinking_tokens; the streaming call refuses the JSON body as provider_protocol (not an event stream)',
    expect: (r, streamed) => {
      expect(r.parts).toEqual([
        {
          kind: 'reasoning',
          text: 'The user wants me to call checkSandboxErrors immediately.',
          providerReasoning: capsule(expect.stringMatching(/^Eq4CCpIBCBIYAipAM\+SGYGx7V1aPBT2LXi5M54elabwLjKMz.*==$/)),
        },
        { kind: 'tool_call', callId: 'toolu_017R7ACrx7NF7sLDDtvdQ1u9', name: 'checkSandboxErrors', argsJson: '{}' },
      ]);
      expect(r.finishReason).toBe('tool_calls');
      expect(r.usage).toEqual({
        inputTokens: 599,
        cachedInputTokens: 0,
        cacheWriteInputTokens: 0,
        outputTokens: 59,
        reasoningTokens: 18,
      });
      expect(r.requestId).toBe('req_local_1');
      expect(streamed.code).toBe('provider_protocol');
      expect(streamed.diagnostic.code).toBe('not_event_stream');
    },
  },
};

function anthropicConfig(url: string): ProviderConfig {
  return providerConfig(url, { transport: 'anthropic-messages' });
}
const request: ModelRequest = { model: MODEL, messages: [{ role: 'user', text: 'replay' }], tools: [] };

describe('peer recorded Anthropic Messages responses', () => {
  const { serve } = useLocalProviders();

  it('the folder is present and every file in it has a case here', () => {
    expectPeerFolderCovered(SURFACE, Object.keys({ ...STREAMS, ...ERRORS, ...BODIES }));
  });

  for (const [file, c] of Object.entries(STREAMS)) {
    it(`${file}: ${c.checks}`, async () => {
      const server = await serve({ replies: [{ chunks: peerFile(SURFACE, file) }] });
      const deltas: PeerDeltas = { text: [], reasoning: [] };
      const r = await streamAnthropicMessages(anthropicConfig(server.url), request, {
        onTextDelta: (t) => deltas.text.push(t),
        onReasoningDelta: (t) => deltas.reasoning.push(t),
      });
      expectViewsAgree(r, deltas);
      expect(server.requestSurfaces).toEqual(['anthropic-messages']);
      expect(server.requestHeaders[0]).toMatchObject({ 'x-api-key': TEST_KEY, 'anthropic-version': '2023-06-01' });
      c.expect(r, deltas);
    });
  }

  for (const [file, c] of Object.entries(ERRORS)) {
    it(`${file}: ${c.checks}`, async () => {
      const reply = file.endsWith('.json')
        ? { chunks: peerFile(SURFACE, file), status: c.status }
        : { chunks: peerFile(SURFACE, file) };
      const server = await serve({ replies: [reply] });
      c.expect(await peerFailure(streamAnthropicMessages(anthropicConfig(server.url), request)));
    });
  }

  for (const [file, c] of Object.entries(BODIES)) {
    it(`${file}: ${c.checks}`, async () => {
      const reply = { chunks: peerFile(SURFACE, file), status: 200 };
      const server = await serve({ replies: [reply, reply] });
      const r = await completeAnthropicMessage(anthropicConfig(server.url), request);
      expect(server.requests[0]!.stream).toBe(false);
      c.expect(r, await peerFailure(streamAnthropicMessages(anthropicConfig(server.url), request)));
    });
  }

  it('a recorded stream cut before message_stop is upstream_stream_incomplete (PR4); the retry gets the whole stream', async () => {
    const server = await serve({
      replies: [{ chunks: peerFile(SURFACE, 'issue-10781.1.chunks.txt'), fault: { cutStream: true } }],
    });
    await expect(streamAnthropicMessages(anthropicConfig(server.url), request)).rejects.toMatchObject({
      code: 'upstream_stream_incomplete',
      retryable: true,
    });
    const r = await streamAnthropicMessages(anthropicConfig(server.url), request);
    expect(r.toolCalls).toHaveLength(1);
  });
});
