import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { renderUsage } from '../../client/commands/session-show.js';
import { createHarness, type Harness } from '../helpers/harness.js';

let h: Harness | undefined;
afterAll(async () => h?.close());

describe('provider request events and usage (PR8 counters, PR11)', () => {
  it('records one session.provider.request per request and cumulative, non-overlapping usage', async () => {
    h = await createHarness({ address: inject('temporalAddress') });
    const ws = mkdtempSync(join(tmpdir(), 'zuno-usage-'));
    const run = await h.runSession({
      workspace: ws,
      prompt: 'count',
      script: {
        replies: [
          {
            toolCalls: [{ name: 'glob', arguments: { pattern: '*' } }],
            usage: { inputTokens: 1000, cachedInputTokens: 600, outputTokens: 20 },
          },
          { text: 'done', usage: { inputTokens: 1100, outputTokens: 5 } },
        ],
      },
    });
    expect(run.result.status).toBe('completed');
    const events = await h.store.listEvents(run.sessionId, 0, 1000);
    const requests = events.filter((e) => e.type === 'session.provider.request').map((e) => e.data);
    expect(requests).toHaveLength(2);
    expect(requests[1]).toMatchObject({
      provider: 'local',
      model: 'scripted',
      surface: 'chat-completions',
      reasoningReplay: 'off',
      replayedReasoningCapsules: 0,
      withheldReasoningCapsules: 0,
    });
    const usage = events.filter((e) => e.type === 'session.usage').map((e) => e.data as Record<string, unknown>);
    expect(usage).toHaveLength(2);
    expect(usage[0]!.buckets).toEqual({ uncachedInput: 400, cacheRead: 600, output: 20 });
    const last = usage[1] as unknown as Parameters<typeof renderUsage>[0];
    // Cache read was reported once and unknown once: summed where known, never 0-filled.
    expect(last.cumulative).toMatchObject({
      requests: 2,
      tokens: { uncachedInput: 1500, cacheRead: 600, output: 25 },
      unknownRequests: { cacheRead: 1, cacheWrite: 2 },
    });
    expect(last.snapshot).toMatchObject({ confirmedTokens: 1105, estimatedTokens: 0, totalTokens: 1105 });
    // Issue 28: the request's tokenizer estimate and its estimator; no window for a scripted model.
    expect(last.snapshot.estimator).toBe('o200k_base');
    expect(last.snapshot.requestEstimate).toBeGreaterThan(0);
    expect(last.snapshot.windowTokens).toBeUndefined();
    const shown = renderUsage(last);
    expect(shown).toContain(
      'usage over 2 provider requests: input 1500, cache read 600 (+ unknown in 1 of 2 requests)',
    );
    expect(shown).toContain('cache write unknown');
    expect(shown).toContain('context ≈ 1105 tokens (provider-confirmed 1105 + estimated 0)');
  }, 60_000);

  it('two Responses message items stay apart in the final answer', async () => {
    h ??= await createHarness({ address: inject('temporalAddress') });
    const run = await h.runSession({
      workspace: mkdtempSync(join(tmpdir(), 'zuno-two-items-')),
      prompt: 'capital?',
      provider: (p) => ({ ...p, transport: 'responses' }),
      script: { replies: [{ output: [{ text: 'Let me think.' }, { text: 'Paris.' }] }] },
    });
    expect(run.result.status).toBe('completed');
    expect((await h.store.getSession(run.sessionId))!.finalText).toBe('Let me think.\n\nParis.');
  }, 60_000);
});
