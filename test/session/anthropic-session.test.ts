/**
 * A whole session on the Anthropic Messages surface, on the real Temporal
 * dev server with the real local provider: a thinking block with its
 * signature and a tool call, then the final answer. The second request
 * replays the thinking block unchanged right before its tool_use (PR8,
 * PR9), tool results are paired by tool_use_id, and the stored usage shows
 * the cache read/write buckets (PR11).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';

let h: Harness | undefined;
afterAll(async () => h?.close());

const SIGNATURE = 'EqQBCgIYAhIM+sig/with=odd+chars==';

describe('Anthropic Messages session', () => {
  it('replays thinking + signature unchanged before its tool_use, pairs the tool result, and records cache usage buckets', async () => {
    h = await createHarness({ address: inject('temporalAddress') });
    const ws = mkdtempSync(join(tmpdir(), 'zuno-anthropic-'));
    writeFileSync(join(ws, 'notes.txt'), 'hello\n');
    const run = await h.runSession({
      workspace: ws,
      prompt: 'What files are here?',
      provider: (p) => ({ ...p, transport: 'anthropic-messages' }),
      script: {
        replies: [
          {
            output: [
              { reasoning: 'I should list the files first.', capsule: SIGNATURE },
              { toolCall: { id: 'toolu_glob_1', name: 'glob', arguments: { pattern: '*' } } },
            ],
            usage: { inputTokens: 100, cachedInputTokens: 900, cacheWriteInputTokens: 50, outputTokens: 30 },
          },
          {
            text: 'There is one file: notes.txt.',
            usage: { inputTokens: 20, cachedInputTokens: 1000, outputTokens: 9 },
          },
        ],
      },
    });
    expect(run.result.status).toBe('completed');

    const bodies = run.providerRequests as Array<Record<string, unknown>>;
    expect(bodies).toHaveLength(2);
    expect(bodies[0]).toMatchObject({
      model: 'scripted',
      max_tokens: 8192,
      stream: true,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'What files are here?' }] }],
    });
    expect(typeof bodies[0]!.system).toBe('string');
    expect((bodies[0]!.tools as Array<{ name: string }>).map((t) => t.name)).toContain('glob');

    const messages = bodies[1]!.messages as Array<{ role: string; content: Array<Record<string, unknown>> }>;
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    // The thinking block, signature byte-for-byte, right before the tool_use it explains.
    expect(messages[1]!.content).toEqual([
      { type: 'thinking', thinking: 'I should list the files first.', signature: SIGNATURE },
      { type: 'tool_use', id: 'toolu_glob_1', name: 'glob', input: { pattern: '*' } },
    ]);
    expect(messages[2]!.content).toHaveLength(1);
    expect(messages[2]!.content[0]).toMatchObject({ type: 'tool_result', tool_use_id: 'toolu_glob_1' });
    expect(String(messages[2]!.content[0]!.content)).toContain('notes.txt');

    const events = await h.store.listEvents(run.sessionId, 0, 1000);
    const requests = events.filter((e) => e.type === 'session.provider.request').map((e) => e.data);
    expect(requests).toHaveLength(2);
    expect(requests[1]).toMatchObject({
      surface: 'anthropic-messages',
      replayedReasoningCapsules: 1,
      withheldReasoningCapsules: 0,
    });
    const capsules = events.filter((e) => e.type === 'provider.reasoning.item').map((e) => e.data);
    expect(capsules).toEqual([
      expect.objectContaining({
        provider: 'local',
        model: 'scripted',
        surface: 'anthropic-messages',
        signature: SIGNATURE,
      }),
    ]);

    const usage = events.filter((e) => e.type === 'session.usage').map((e) => e.data as Record<string, unknown>);
    expect(usage).toHaveLength(2);
    expect(usage[0]!.usage).toEqual({
      inputTokens: 1050,
      cachedInputTokens: 900,
      cacheWriteInputTokens: 50,
      outputTokens: 30,
    });
    expect(usage[0]!.buckets).toEqual({ uncachedInput: 100, cacheRead: 900, cacheWrite: 50, output: 30 });
    expect(usage[1]!.buckets).toEqual({ uncachedInput: 20, cacheRead: 1000, output: 9 });
    expect(usage[1]!.cumulative).toMatchObject({
      requests: 2,
      tokens: { uncachedInput: 120, cacheRead: 1900, cacheWrite: 50, output: 39 },
      unknownRequests: { cacheWrite: 1 },
    });
  }, 60_000);
});
