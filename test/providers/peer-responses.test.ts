/**
 * Peer suite: every recorded OpenAI Responses answer in
 * `test/fixtures/peer-cases/provider-streams/openai-responses/` (see its
 * SOURCE.md) is served by the local provider over real HTTP and read by the
 * real adapter (`streamResponses`). Streams are file replays (`{ chunks:
 * <file> }`, framed `event: <type>` + `data: <line>`; the four-stream file
 * one test per `segment`); error bodies are served with the HTTP status
 * OpenAI uses for them; the non-streaming response bodies are served as the
 * `response` of a terminal `response.completed` event (items that never
 * streamed). One test per file (or segment); its name says what it checks.
 * A file in the folder without a case here fails the suite.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ProviderError } from '../../activities/providers/errors.js';
import { streamResponses } from '../../activities/providers/responses.js';
import type { ModelResponse, ProviderConfig } from '../../activities/providers/types.js';
import type { AssistantPart, ProviderReasoning } from '../../core/messages.js';
import type { LocalProvider } from '../../local-provider/server.js';
import type { ScriptReply } from '../../local-provider/script.js';
import { providerConfig, rejectionOf, useLocalProviders } from './helpers.js';
import {
  expectPeerFolderCovered,
  partKinds,
  peerFailure,
  peerFile,
  peerLines,
  type PeerDeltas,
} from './peer-streams.js';

const SURFACE = 'openai-responses';
const MULTI = 'openai-reasoning-encrypted-content.1.chunks.txt';

interface Outcome {
  r: ModelResponse;
  deltas: PeerDeltas;
  server: LocalProvider;
  /** Wall-clock bounds of the call, ms. */
  startedAt: number;
  endedAt: number;
}
interface StreamCase {
  checks: string;
  /** Replies served, in order; the adapter is called once per reply and the last answer is checked. */
  replies: () => ScriptReply[];
  /** Errors expected from the calls before the last one. */
  before?: (errors: ProviderError[]) => void;
  expect: (o: Outcome) => void;
}
interface ErrorCase {
  checks: string;
  reply: () => ScriptReply;
  expect: (e: ProviderError) => void;
}

const cfg = (url: string): ProviderConfig =>
  providerConfig(url, { transport: 'responses', reasoningReplay: 'encrypted' });

/** The parsed events of a recording (all segments). */
function events(file: string): Record<string, unknown>[] {
  return peerLines(SURFACE, file).map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** The `item` of the n-th `output_item.<which>` event of `type` in a recording. */
function recordedItem(file: string, which: 'added' | 'done', type: string, n = 0): Record<string, unknown> {
  const items = events(file)
    .filter((e) => e.type === `response.output_item.${which}`)
    .map((e) => e.item as Record<string, unknown>)
    .filter((i) => i.type === type);
  return items[n]!;
}

/** A non-streaming response body of the folder, served as the `response` of a terminal event. */
function asTerminalEvent(file: string): ScriptReply {
  const body = JSON.parse(readFileSync(peerFile(SURFACE, file), 'utf8')) as Record<string, unknown>;
  return {
    chunks: [
      { type: 'response.created', response: { ...body, status: 'in_progress', output: [], usage: null } },
      { type: 'response.completed', response: body },
    ],
  };
}

const capsuleOf = (p: AssistantPart | undefined): ProviderReasoning | undefined =>
  p?.kind === 'reasoning' ? p.providerReasoning : undefined;

/** The capsule is the `output_item.done` value byte-for-byte, stamped with who produced it and when. */
function expectCapsule(o: Outcome, part: AssistantPart | undefined, item: Record<string, unknown>): void {
  const c = capsuleOf(part);
  expect(c).toBeDefined();
  expect(c).toMatchObject({
    provider: 'local',
    model: 'peer',
    surface: 'responses',
    itemId: item.id,
    encryptedContent: item.encrypted_content,
    summary: (item.summary as { text: string }[]).map((s) => s.text),
  });
  expect(c!.producedAtMs).toBeGreaterThanOrEqual(o.startedAt);
  expect(c!.producedAtMs).toBeLessThanOrEqual(o.endedAt);
}

const call = (callId: string, name: string, argsJson: string) => ({ callId, name, argsJson });

/** One segment of the four-stream recording: a calculator call with its arguments and usage. */
function calculatorSegment(segment: number, callId: string, args: string, usage: number[]): StreamCase {
  return {
    checks: `a lone function call (${args}) whose argument deltas join byte-for-byte; completed → tool_calls; usage ${usage.join('/')}`,
    replies: () => [{ chunks: peerFile(SURFACE, MULTI), segment }],
    expect: ({ r }) => {
      expect(r.parts).toEqual([{ kind: 'tool_call', ...call(callId, 'calculator', args) }]);
      expect(r.finishReason).toBe('tool_calls');
      expect(r.usage).toEqual({
        inputTokens: usage[0],
        outputTokens: usage[1],
        cachedInputTokens: 0,
        reasoningTokens: 0,
        totalTokens: usage[2],
      });
    },
  };
}

const STREAMS: Record<string, StreamCase> = {
  'azure-gpt5-reasoning-multi-summary-with-encryption.chunks.txt': {
    checks:
      'six summary parts of one reasoning item are one reasoning part (joined by a blank line, from the .done values); its capsule is the long output_item.done value, not the placeholder on added; the message text is the output_text.done value, not the mismatching "X" delta; float-written usage',
    replies: () => [{ chunks: peerFile(SURFACE, 'azure-gpt5-reasoning-multi-summary-with-encryption.chunks.txt') }],
    expect: (o) => {
      const { r, deltas } = o;
      const file = 'azure-gpt5-reasoning-multi-summary-with-encryption.chunks.txt';
      const done = recordedItem(file, 'done', 'reasoning');
      const added = recordedItem(file, 'added', 'reasoning');
      const summaries = (done.summary as { text: string }[]).map((s) => s.text);
      expect(summaries).toHaveLength(6);
      expect(partKinds(r)).toEqual(['reasoning', 'text']);
      expect(r.reasoning).toBe(summaries.join('\n\n'));
      expect(deltas.reasoning.join('')).toBe(r.reasoning);
      expectCapsule(o, r.parts[0], done);
      expect(capsuleOf(r.parts[0])!.encryptedContent).not.toBe(added.encrypted_content);
      expect(r.text).toBe('Anonymized assistant response text.');
      expect(deltas.text).toEqual(['X']);
      expect(r.finishReason).toBe('stop');
      expect(r.usage).toEqual({
        inputTokens: 100,
        outputTokens: 500,
        cachedInputTokens: 0,
        reasoningTokens: 300,
        totalTokens: 600,
      });
      expect(r.requestId).toBe('req_local_1');
    },
  },
  'openai-custom-tool.1.chunks.txt': {
    checks:
      'a custom_tool_call streamed through custom_tool_call_input deltas is a tool call with its call_id, name and raw (non-JSON) input as the argument text; completed → tool_calls',
    replies: () => [{ chunks: peerFile(SURFACE, 'openai-custom-tool.1.chunks.txt') }],
    expect: ({ r }) => {
      expect(r.parts).toEqual([
        { kind: 'tool_call', ...call('call_custom_sql_001', 'write_sql', 'SELECT * FROM users WHERE age > 25') },
      ]);
      expect(r.finishReason).toBe('tool_calls');
      expect(r.usage).toEqual({
        inputTokens: 50,
        outputTokens: 20,
        cachedInputTokens: 0,
        reasoningTokens: 0,
        totalTokens: 70,
      });
    },
  },
  'openai-multiple-output-text-parts.1.json': {
    checks:
      'a non-streaming body is refused by the streaming adapter (provider_protocol not_event_stream); as the response of response.completed with nothing streamed, its message with two output_text parts is one text part, joined',
    replies: () => [
      { chunks: peerFile(SURFACE, 'openai-multiple-output-text-parts.1.json') },
      asTerminalEvent('openai-multiple-output-text-parts.1.json'),
    ],
    before: ([e]) => {
      expect(e!.code).toBe('provider_protocol');
      expect(e!.diagnostic.code).toBe('not_event_stream');
    },
    expect: ({ r }) => {
      expect(r.parts).toEqual([{ kind: 'text', text: 'First. Second.' }]);
      expect(r.finishReason).toBe('stop');
      expect(r.usage).toEqual({
        inputTokens: 1,
        outputTokens: 2,
        cachedInputTokens: 0,
        reasoningTokens: 0,
        totalTokens: 3,
      });
      expect(r.requestId).toBe('req_local_2');
    },
  },
  'openai-phase.1.chunks.txt': {
    checks:
      'two assistant messages (phase commentary, then final_answer) are two text parts in output order; usage without total_tokens leaves the total unknown, not 0',
    replies: () => [{ chunks: peerFile(SURFACE, 'openai-phase.1.chunks.txt') }],
    expect: ({ r, deltas }) => {
      expect(r.parts).toEqual([
        { kind: 'text', text: "I'm going to search for that" },
        { kind: 'text', text: 'The capital of France is Paris.' },
      ]);
      expect(deltas.text).toEqual(["I'm going to", ' search for that', 'The capital', ' of France is Paris.']);
      expect(r.finishReason).toBe('stop');
      expect(r.usage).toEqual({ inputTokens: 50, outputTokens: 100, cachedInputTokens: 0, reasoningTokens: 20 });
      expect('totalTokens' in r.usage!).toBe(false);
    },
  },
  [`${MULTI} segment 0`]: {
    checks:
      'reasoning (streamed summary text) then a function call, in that order; the capsule is the output_item.done encrypted_content byte-for-byte (not the different added value) with its item id; 13 argument deltas join to the .done bytes; usage',
    replies: () => [{ chunks: peerFile(SURFACE, MULTI), segment: 0 }],
    expect: (o) => {
      const { r, deltas } = o;
      const done = recordedItem(MULTI, 'done', 'reasoning');
      const added = recordedItem(MULTI, 'added', 'reasoning');
      expect(partKinds(r)).toEqual(['reasoning', 'tool_call']);
      expect(r.reasoning).toBe(
        "**Calculating step-by-step using calculator**\n\nI'll compute 12 plus 7, then multiply the result by 3, and finally multiply that by 10, reporting the final product.",
      );
      expect(deltas.reasoning).toHaveLength(32);
      expect(deltas.reasoning.join('')).toBe(r.reasoning);
      expectCapsule(o, r.parts[0], done);
      expect(added.encrypted_content).not.toBe(done.encrypted_content);
      expect(r.toolCalls).toEqual([call('call_AB6AaRZ1FYZB2RwS6A5vbdqn', 'calculator', '{"a":12,"b":7,"op":"add"}')]);
      expect(r.finishReason).toBe('tool_calls');
      expect(r.usage).toEqual({
        inputTokens: 134,
        outputTokens: 28,
        cachedInputTokens: 0,
        reasoningTokens: 0,
        totalTokens: 162,
      });
      expect(r.requestId).toBe('req_local_1');
    },
  },
  [`${MULTI} segment 1`]: calculatorSegment(
    1,
    'call_Q6pW65MUgW9vF59BmItYGos3',
    '{"a":19,"b":3,"op":"multiply"}',
    [221, 26, 247],
  ),
  [`${MULTI} segment 2`]: calculatorSegment(
    2,
    'call_Zl5vIMnD7dVAjgU6FkhmiCZh',
    '{"a":57,"b":10,"op":"multiply"}',
    [260, 26, 286],
  ),
  [`${MULTI} segment 3`]: {
    checks: 'the final text answer from its deltas, no reasoning, no calls; completed → stop; usage',
    replies: () => [{ chunks: peerFile(SURFACE, MULTI), segment: 3 }],
    expect: ({ r, deltas }) => {
      expect(r.parts).toEqual([{ kind: 'text', text: 'The final result is **570**.' }]);
      expect(deltas.text.length).toBe(8);
      expect(r.finishReason).toBe('stop');
      expect(r.usage).toEqual({
        inputTokens: 299,
        outputTokens: 12,
        cachedInputTokens: 0,
        reasoningTokens: 0,
        totalTokens: 311,
      });
    },
  },
  'openai-reasoning-encrypted-content.1.json': {
    checks:
      'as the response of response.completed with nothing streamed: a reasoning item (summary text and capsule with its item id, byte-for-byte) then the message text, in order; usage with reasoning_tokens',
    replies: () => [asTerminalEvent('openai-reasoning-encrypted-content.1.json')],
    expect: (o) => {
      const { r } = o;
      const body = JSON.parse(readFileSync(peerFile(SURFACE, 'openai-reasoning-encrypted-content.1.json'), 'utf8')) as {
        output: Record<string, unknown>[];
      };
      const item = body.output.find((i) => i.type === 'reasoning')!;
      expect(partKinds(r)).toEqual(['reasoning', 'text']);
      expectCapsule(o, r.parts[0], item);
      expect(capsuleOf(r.parts[0])!.encryptedContent).toHaveLength(1572);
      expect(r.reasoning.startsWith('**Reporting final result**\n\nThe tool returned 570')).toBe(true);
      expect(r.text).toBe('12 + 7 = 19\n19 × 3 = 57\n57 × 10 = 570\n\nFinal result: 570');
      expect(r.finishReason).toBe('stop');
      expect(r.usage).toEqual({
        inputTokens: 865,
        outputTokens: 163,
        cachedInputTokens: 0,
        reasoningTokens: 128,
        totalTokens: 1028,
      });
    },
  },
  'parallel-tool-call-wrapper.1.chunks.txt': {
    checks:
      'one function call named "parallel" whose arguments wrap two invocations is kept as one call with its bytes verbatim (no unwrapping); the empty output list of response.completed does not erase it; no sequence numbers needed',
    replies: () => [{ chunks: peerFile(SURFACE, 'parallel-tool-call-wrapper.1.chunks.txt') }],
    expect: ({ r }) => {
      const args =
        '{"tool_uses":[{"recipient_name":"functions.weather","parameters":{"location":"San Francisco"}},{"recipient_name":"functions.cityAttractions","parameters":{"city":"Rome"}}]}';
      expect(r.parts).toEqual([{ kind: 'tool_call', ...call('call_parallel', 'parallel', args) }]);
      expect(r.finishReason).toBe('tool_calls');
      expect(r.usage).toEqual({
        inputTokens: 34,
        outputTokens: 28,
        cachedInputTokens: 0,
        reasoningTokens: 0,
        totalTokens: 62,
      });
    },
  },
};

const ERRORS: Record<string, ErrorCase> = {
  'openai-error.1.chunks.txt': {
    checks:
      'an in-stream error event (insufficient_quota) before any output is typed like the same error over HTTP (429 → provider_rate_limited, retryable) with the provider code, message and request id',
    reply: () => ({ chunks: peerFile(SURFACE, 'openai-error.1.chunks.txt') }),
    expect: (e) => {
      expect(e.code).toBe('provider_rate_limited');
      expect(e.retryable).toBe(true);
      expect(e.diagnostic).toMatchObject({ code: 'insufficient_quota', requestId: 'req_local_1' });
      expect(e.diagnostic.reason).toContain('You exceeded your current quota');
    },
  },
  'openai-error.1.json': {
    checks:
      'the same quota error as an HTTP 429 JSON body is provider_rate_limited with status 429, the provider code insufficient_quota and the request id',
    reply: () => ({ chunks: peerFile(SURFACE, 'openai-error.1.json'), status: 429 }),
    expect: (e) => {
      expect(e.code).toBe('provider_rate_limited');
      expect(e.retryable).toBe(true);
      expect(e.diagnostic).toMatchObject({ status: 429, code: 'insufficient_quota', requestId: 'req_local_1' });
      expect(e.diagnostic.reason).toContain('You exceeded your current quota');
    },
  },
  'openai-response-failed-only.1.chunks.txt': {
    checks:
      'response.failed with no separate error event is typed from response.error (rate_limit_exceeded → provider_rate_limited, retryable) with its message',
    reply: () => ({ chunks: peerFile(SURFACE, 'openai-response-failed-only.1.chunks.txt') }),
    expect: (e) => {
      expect(e.code).toBe('provider_rate_limited');
      expect(e.retryable).toBe(true);
      expect(e.diagnostic).toMatchObject({ code: 'rate_limit_exceeded', requestId: 'req_local_1' });
      expect(e.diagnostic.reason).toContain('Request too large for gpt-4o-mini');
    },
  },
};

/** The file a case name stands for (`<file> segment <n>` → `<file>`). */
const fileOf = (name: string): string => name.replace(/ segment \d+$/, '');

describe('peer recorded OpenAI Responses answers', () => {
  const { serve } = useLocalProviders();

  it('the folder is present, every file in it has a case here, and every stream of the multi-stream file too', () => {
    expectPeerFolderCovered(SURFACE, [...new Set(Object.keys({ ...STREAMS, ...ERRORS }).map(fileOf))]);
    const starts = events(MULTI).filter((e) => e.type === 'response.created').length;
    expect(Object.keys(STREAMS).filter((k) => k.startsWith(`${MULTI} segment `))).toHaveLength(starts);
  });

  for (const [name, c] of Object.entries(STREAMS)) {
    it(`${name}: ${c.checks}`, async () => {
      const replies = c.replies();
      const server = await serve({ replies });
      const errors: ProviderError[] = [];
      for (let i = 0; i < replies.length - 1; i++) {
        const err = await rejectionOf(
          streamResponses(cfg(server.url), { model: 'peer', messages: [{ role: 'user', text: 'replay' }], tools: [] }),
        );
        expect(err).toBeInstanceOf(ProviderError);
        errors.push(err as ProviderError);
      }
      c.before?.(errors);
      const deltas: PeerDeltas = { text: [], reasoning: [] };
      const startedAt = Date.now();
      const r = await streamResponses(
        cfg(server.url),
        { model: 'peer', messages: [{ role: 'user', text: 'replay' }], tools: [] },
        { onTextDelta: (t) => deltas.text.push(t), onReasoningDelta: (t) => deltas.reasoning.push(t) },
      );
      const endedAt = Date.now();
      // The views agree with the ordered parts.
      expect(r.parts.filter((p) => p.kind === 'tool_call').map(({ kind: _k, ...rest }) => rest)).toEqual(r.toolCalls);
      expect(r.parts.map((p) => (p.kind === 'text' ? p.text : '')).join('')).toBe(r.text);
      expect(server.requestSurfaces.every((s) => s === 'responses')).toBe(true);
      expect(server.requests.at(-1)).toMatchObject({ stream: true, store: false });
      c.expect({ r, deltas, server, startedAt, endedAt });
    });
  }

  for (const [name, c] of Object.entries(ERRORS)) {
    it(`${name}: ${c.checks}`, async () => {
      const server = await serve({ replies: [c.reply()] });
      c.expect(
        await peerFailure(
          streamResponses(cfg(server.url), { model: 'peer', messages: [{ role: 'user', text: 'replay' }], tools: [] }),
        ),
      );
    });
  }
});
