import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createHarness, type Harness, waitForPhase } from '../helpers/harness.js';

/**
 * Provider failures through the whole stack (PR1–PR4): the modelStep
 * activity's Temporal retry policy comes from the provider's `retry` block
 * (3 attempts; the harness shortens the initial delay to 100 ms), a 429/5xx
 * or a broken stream is retried, a 401 or 400 is not.
 */
let h: Harness;
const workspace = mkdtempSync(join(tmpdir(), 'zuno-faults-ws-'));
beforeAll(async () => {
  h = await createHarness({ address: inject('temporalAddress') });
});
afterAll(async () => {
  await h?.close();
});

async function modelStepAttempts(workflowId: string): Promise<number[]> {
  const history = await h.client.workflow.getHandle(workflowId).fetchHistory();
  const scheduled = new Map<number, string>();
  const attempts: number[] = [];
  for (const e of history.events ?? []) {
    const s = e.activityTaskScheduledEventAttributes;
    if (s) scheduled.set(Number(e.eventId), s.activityType!.name!);
    const st = e.activityTaskStartedEventAttributes;
    if (st && scheduled.get(Number(st.scheduledEventId)) === 'modelStep') attempts.push(st.attempt!);
  }
  return attempts;
}

describe('provider failures on Temporal', () => {
  it('503 twice, then an answer: the activity retry policy recovers', async () => {
    const run = await h.runSession({
      workspace,
      prompt: 'hi',
      script: { replies: [{ text: 'recovered', fault: { status: 503, times: 2 } }] },
    });
    expect(run.result.status).toBe('completed');
    expect(await modelStepAttempts(run.workflowId)).toEqual([3]);
    expect(run.providerRequests).toHaveLength(3);
    expect((await h.store.getSession(run.sessionId))!.finalText).toBe('recovered');
  });

  it('a stream cut before its terminal marker is rolled back and replayed (PR4), no duplicate parts', async () => {
    const run = await h.runSession({
      workspace,
      prompt: 'hi',
      script: { replies: [{ text: 'a complete answer after one broken stream', fault: { cutStream: true } }] },
    });
    expect(run.result.status).toBe('completed');
    const t = (await h.store.loadTranscript(run.sessionId))!;
    expect(t.parts.filter((p) => p.kind === 'text' && p.messageId.endsWith('_assistant'))).toHaveLength(1);
    expect(t.session.finalText).toBe('a complete answer after one broken stream');
    const events = await h.store.listEvents(run.sessionId, 0, 1000);
    // The cut stream's text was streamed (deltas) but never stored: the rollback says nothing was discarded.
    expect(events.find((e) => e.type === 'message.step.rollback')?.data).toEqual({
      turn: 0,
      step: 0,
      attempt: 2,
      maxAttempts: 3,
      discardedParts: 0,
    });
  });

  it('429 three times exhausts the 3 attempts: the turn fails with the typed error', async () => {
    const run = await h.runSession({
      workspace,
      prompt: 'hi',
      script: { replies: [{ text: 'never', fault: { status: 429, retryAfter: '0', times: 5 } }] },
    });
    expect(run.result.status).toBe('failed');
    expect(run.result.error?.code).toBe('provider_rate_limited');
    expect(await modelStepAttempts(run.workflowId)).toEqual([3]);
  });

  it('401 is not retried and pauses the session (PR3); 400 is not retried and fails it', async () => {
    const auth = await h.startScripted({
      workspace,
      prompt: 'hi',
      script: { replies: [{ text: 'never', fault: { status: 401 } }] },
    });
    // A paused session waits, its workflow open, for `resume`.
    const handle = h.client.workflow.getHandle(auth.workflowId);
    expect((await waitForPhase(h.client, auth.workflowId, 'paused')).lastOutcome).toMatchObject({
      kind: 'paused',
      reason: 'provider_auth',
    });
    expect(await modelStepAttempts(auth.workflowId)).toEqual([1]);
    expect((await h.store.getSession(auth.sessionId))!.status).toBe('paused');
    await handle.terminate('test over');
    await auth.closeProvider();

    const bad = await h.runSession({
      workspace,
      prompt: 'hi',
      script: { replies: [{ text: 'never', fault: { status: 400 } }] },
    });
    expect(bad.result.status).toBe('failed');
    expect(bad.result.error?.code).toBe('provider_bad_request');
    expect(await modelStepAttempts(bad.workflowId)).toEqual([1]);
  });

  it('429 with Retry-After: 3 — the next attempt waits at least 3 s (PR2)', async () => {
    const run = await h.runSession({
      workspace,
      prompt: 'hi',
      script: { replies: [{ text: 'after the wait', fault: { status: 429, retryAfter: '3' } }] },
    });
    expect(run.result.status).toBe('completed');
    const events = await h.store.listEvents(run.sessionId, 0, 1000);
    const requests = events.filter((e) => e.type === 'session.provider.request');
    expect(requests).toHaveLength(2);
    expect(requests[1]!.atMs - requests[0]!.atMs).toBeGreaterThanOrEqual(3000);
    expect(events.find((e) => e.type === 'provider.retry')!.data).toMatchObject({
      code: 'provider_rate_limited',
      delayMs: 3000,
    });
  }, 60_000);

  it('503 three times: the turn ends with the typed error carrying the last status and request id (PR6)', async () => {
    const run = await h.runSession({
      workspace,
      prompt: 'hi',
      script: { replies: [{ text: 'never', fault: { status: 503, times: 3, code: 'overloaded' } }] },
    });
    expect(run.result.status).toBe('failed');
    expect(run.result.error?.code).toBe('provider_unavailable');
    expect(run.result.error?.message).toContain('after 3 attempts; last: status 503');
    expect(run.result.error?.message).toMatch(/request \S+/);
    expect(await modelStepAttempts(run.workflowId)).toEqual([3]);
  }, 60_000);

  it('backoff past the recovery window ends the turn with provider_retry_deadline and the last diagnostics (PR1)', async () => {
    const run = await h.runSession({
      workspace,
      prompt: 'hi',
      provider: (p) => ({
        ...p,
        retry: { maxAttempts: 10, initialDelayMs: 400, maxDelayMs: 5_000, recoveryWindowMs: 1_000 },
      }),
      script: { replies: [{ text: 'never', fault: { status: 503, times: 10 } }] },
    });
    expect(run.result.status).toBe('failed');
    expect(run.result.error?.code).toBe('provider_retry_deadline');
    expect(run.result.error?.message).toContain('last failure: provider_unavailable: status 503');
    // 400 ms, then 800 ms (± 20 %) would cross the 1 s window: two or three attempts, never ten.
    const [attempts] = await modelStepAttempts(run.workflowId);
    expect(attempts).toBeGreaterThanOrEqual(2);
    expect(attempts).toBeLessThanOrEqual(3);
  }, 60_000);

  it("a Retry-After longer than the remaining window ends the turn at once with the peer's typed error, even when the max delay is shorter (PR2)", async () => {
    const run = await h.runSession({
      workspace,
      prompt: 'hi',
      provider: (p) => ({ ...p, retry: { ...p.retry, maxDelayMs: 3_000, recoveryWindowMs: 2_000 } }),
      script: { replies: [{ text: 'never', fault: { status: 429, retryAfter: '30', times: 3 } }] },
    });
    expect(run.result.status).toBe('failed');
    expect(run.result.error?.code).toBe('provider_rate_limited');
    expect(run.result.error?.message).toContain('runs past the 2000 ms recovery window');
    expect(await modelStepAttempts(run.workflowId)).toEqual([1]);
  }, 60_000);

  it('an unparseable stream blocks the session (PR3): not retried, status blocked, typed provider_protocol', async () => {
    const run = await h.runSession({
      workspace,
      prompt: 'hi',
      script: { replies: [{ text: 'never', fault: { malformedChunk: true } }] },
    });
    expect(run.result.status).toBe('blocked');
    expect(run.result.error?.code).toBe('provider_protocol');
    expect(await modelStepAttempts(run.workflowId)).toEqual([1]);
    expect((await h.store.getSession(run.sessionId))!.status).toBe('blocked');
    const events = await h.store.listEvents(run.sessionId, 0, 1000);
    expect(events.at(-1)!.type).toBe('session.blocked');
  }, 60_000);
});
