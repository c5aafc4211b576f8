import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';

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
    expect(events.some((e) => e.type === 'message.step.rollback')).toBe(true);
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
    const auth = await h.runSession({
      workspace,
      prompt: 'hi',
      script: { replies: [{ text: 'never', fault: { status: 401 } }] },
    });
    expect(auth.result.status).toBe('paused');
    expect(auth.result.error?.code).toBe('provider_auth');
    expect(await modelStepAttempts(auth.workflowId)).toEqual([1]);
    expect((await h.store.getSession(auth.sessionId))!.status).toBe('paused');

    const bad = await h.runSession({
      workspace,
      prompt: 'hi',
      script: { replies: [{ text: 'never', fault: { status: 400 } }] },
    });
    expect(bad.result.status).toBe('failed');
    expect(bad.result.error?.code).toBe('provider_bad_request');
    expect(await modelStepAttempts(bad.workflowId)).toEqual([1]);
  });
});
