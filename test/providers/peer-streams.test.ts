/**
 * Peer suite: recorded Chat Completions streams from other projects
 * (`../shared/peer-cases/provider-streams/openai-chat/`, see its SOURCE.md),
 * replayed verbatim by the local provider server over real HTTP and read by
 * the real adapter. The folder must be present (CI lays shared/ beside the
 * clone); `ZUNO_PEER_CASES` may point elsewhere.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { streamChatCompletion } from '../../activities/providers/chat-completions.js';
import type { ModelResponse } from '../../activities/providers/types.js';
import { startLocalProvider, type LocalProvider } from '../../client/local-provider/server.js';
import { providerConfig, useTestKey } from './helpers.js';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const peerDir = resolve(
  process.env.ZUNO_PEER_CASES ?? resolve(repoRoot, '../shared/peer-cases'),
  'provider-streams/openai-chat',
);
const present = existsSync(peerDir);

function chunksOf(file: string): Record<string, unknown>[] {
  return readFileSync(join(peerDir, file), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

const cases: Array<{ file: string; expect: (r: ModelResponse, deltas: string[]) => void }> = [
  {
    file: 'azure-model-router.1.chunks.txt',
    expect: (r, deltas) => {
      expect(r.text).toBe('Capital of Denmark.');
      expect(deltas).toEqual(['Capital', ' of', ' Denmark', '.']);
      expect(r.finishReason).toBe('stop');
      expect(r.usage).toEqual({
        inputTokens: 15,
        outputTokens: 78,
        cachedInputTokens: 0,
        reasoningTokens: 64,
        totalTokens: 93,
      });
      // A placeholder first chunk with an empty id does not become the request id.
      expect(r.requestId).toBe('req_local_1');
    },
  },
  {
    file: 'deepseek-tool-call.chunks.txt',
    expect: (r) => {
      expect(r.text).toBe('');
      expect(r.reasoning).toBe('The user asks about the weather in San Francisco. I should use the weather tool.');
      expect(r.toolCalls).toEqual([
        { callId: 'call_00_IhCAliIHtM9gKpgfqbBV9873', name: 'weather', argsJson: '{"location": "San Francisco"}' },
      ]);
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
  {
    file: 'issue-13703-mistral-thinking.chunks.txt',
    expect: (r) => {
      expect(r.text).toBe('391');
      expect(r.reasoning.startsWith('Okay, the user is asking for the product of 17 and 23.')).toBe(true);
      expect(r.reasoning.endsWith('17 * 23 = 391.')).toBe(true);
      expect(r.finishReason).toBe('stop');
      expect(r.usage).toEqual({ inputTokens: 28, outputTokens: 139, cachedInputTokens: 0, totalTokens: 167 });
      expect(r.usage!.reasoningTokens).toBeUndefined();
    },
  },
  {
    file: 'issue-15789-step-1.chunks.txt',
    expect: (r) => {
      expect(r.text).toBe('PRE_TOOL');
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
  {
    file: 'issue-19789-live-usage.chunks.txt',
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
    },
  },
  {
    file: 'issue-20203-empty-tool-calls.chunks.txt',
    expect: (r) => {
      expect(r.text).toBe('Hello');
      expect(r.reasoning).toBe('Think more...');
      expect(r.toolCalls).toEqual([]);
      expect(r.finishReason).toBe('stop');
      expect(r.usage).toBeUndefined();
    },
  },
  {
    file: 'placeholder-first-chunk.chunks.txt',
    expect: (r) => {
      expect(r.text).toBe('Hello');
      expect(r.finishReason).toBe('stop');
      expect(r.usage).toEqual({ inputTokens: 10, outputTokens: 1, totalTokens: 11 });
    },
  },
];

describe('peer recorded Chat Completions streams', () => {
  it('finds the peer-case folder', () => {
    expect(present, `missing ${peerDir}`).toBe(true);
  });
  let server: LocalProvider | undefined;
  beforeAll(() => useTestKey());
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  for (const c of cases) {
    it(c.file, async () => {
      server = await startLocalProvider({ script: { replies: [{ chunks: chunksOf(c.file) }] } });
      const deltas: string[] = [];
      const r = await streamChatCompletion(
        providerConfig(server.url),
        { model: 'peer', messages: [{ role: 'user', text: 'replay' }], tools: [] },
        { onTextDelta: (t) => deltas.push(t) },
      );
      expect(deltas.join('')).toBe(r.text);
      c.expect(r, deltas);
    });
  }

  it('a recorded stream cut before its finish chunk is upstream_stream_incomplete', async () => {
    const chunks = chunksOf('deepseek-tool-call.chunks.txt');
    server = await startLocalProvider({ script: { replies: [{ chunks: chunks.slice(0, 10), done: false }] } });
    await expect(
      streamChatCompletion(providerConfig(server.url), { model: 'peer', messages: [], tools: [] }),
    ).rejects.toMatchObject({ code: 'upstream_stream_incomplete', retryable: true });
  });
});
