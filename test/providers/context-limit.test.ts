import { ApplicationFailure } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { adapterFor } from '../../activities/session/provider-call.js';
import { providerFailure } from '../../activities/session/retry-window.js';
import { CONTEXT_LIMIT_FAILURE } from '../../core/compaction/contract.js';
import type { WireSurface } from '../../core/messages.js';
import { useTestStore } from '../projection/harness.js';
import { providerConfig, useLocalProviders } from './helpers.js';

/**
 * CP8 on the wire: the local provider refuses a request over its script's
 * `contextWindow` (and a scripted `contextLimit` fault) with each surface's
 * real context-limit error; the adapters type it `provider_context_limit`
 * with the provider's used/limit, and modelStep's failure mapping hands the
 * workflow an ApplicationFailure `provider_context_limit` with details[0] = {used, limit}.
 */

const { serve, failureOf } = useLocalProviders();
const db = useTestStore('sqlite');
const SURFACES: WireSurface[] = ['chat-completions', 'responses', 'anthropic-messages'];
const big = 'x'.repeat(4_000); // ≈ 1 000 tokens

const send = (url: string, surface: WireSurface, text: string) =>
  adapterFor(surface)!(
    providerConfig(url, { transport: surface }),
    { model: 'm', messages: [{ role: 'user', text }], tools: [] },
    {},
  );

describe('context-limit errors (CP8)', () => {
  for (const surface of SURFACES) {
    it(`${surface}: a request over contextWindow is provider_context_limit with used and limit`, async () => {
      const server = await serve({ contextWindow: 500, replies: [{ text: 'fits' }] });
      const err = await failureOf(send(server.url, surface, big));
      expect(err.code).toBe('provider_context_limit');
      expect(err.retryable).toBe(false);
      expect(err.contextLimit?.limit).toBe(500);
      expect(err.contextLimit?.used).toBeGreaterThan(1_000);
      expect(err.diagnostic.status).toBe(400);
      // Nothing was consumed: a small request gets the reply.
      expect((await send(server.url, surface, 'small')).text).toBe('fits');
    });

    it(`${surface}: the contextLimit fault sends the same error once, then the reply`, async () => {
      const server = await serve({
        contextWindow: 100_000,
        replies: [{ text: 'after', fault: { contextLimit: true } }],
      });
      const err = await failureOf(send(server.url, surface, 'hello'));
      expect(err.code).toBe('provider_context_limit');
      expect(err.contextLimit?.limit).toBe(100_000);
      expect((await send(server.url, surface, 'hello')).text).toBe('after');
    });
  }

  it('the wire bodies are the providers’ own shapes', async () => {
    const server = await serve({ contextWindow: 10, replies: [] });
    const chat = await fetch(`${server.url}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer k' },
      body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: big }] }),
    });
    expect(chat.status).toBe(400);
    const body = (await chat.json()) as { error: Record<string, unknown> };
    expect(body.error).toMatchObject({ type: 'invalid_request_error', code: 'context_length_exceeded' });
    expect(body.error.message).toMatch(
      /^This model's maximum context length is 10 tokens\. However, your messages resulted in \d+ tokens/,
    );
    const anthropic = await fetch(`${server.url}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01', 'x-api-key': 'k' },
      body: JSON.stringify({ model: 'm', max_tokens: 10, messages: [{ role: 'user', content: big }] }),
    });
    expect(anthropic.status).toBe(400);
    const a = (await anthropic.json()) as { type: string; error: { type: string; message: string } };
    expect(a.type).toBe('error');
    expect(a.error.type).toBe('invalid_request_error');
    expect(a.error.message).toMatch(/^prompt is too long: \d+ tokens > 10 maximum$/);
  });

  it('modelStep hands the workflow ApplicationFailure provider_context_limit with {used, limit}', async () => {
    const server = await serve({ contextWindow: 500, replies: [] });
    const err = await failureOf(send(server.url, 'chat-completions', big));
    const failure = (await providerFailure(err, {
      store: db.store,
      sessionId: 's',
      turn: 0,
      step: 0,
      attempt: 1,
      retry: providerConfig(server.url).retry,
      nowMs: 0,
    })) as ApplicationFailure;
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect(failure.type).toBe(CONTEXT_LIMIT_FAILURE);
    expect(failure.nonRetryable).toBe(true);
    expect(failure.details?.[0]).toEqual({ used: err.contextLimit!.used, limit: 500 });
    // Not a retry: no retry window or retry event is recorded.
    expect(await db.store.listEvents('s', 0)).toEqual([]);
  });
});
