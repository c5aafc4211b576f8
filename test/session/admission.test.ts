import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { interruptSession, submitInput } from '../../client/session-start.js';
import { INTERRUPT_UPDATE, STATE_QUERY, SUBMIT_INPUT_UPDATE } from '../../core/session/updates.js';
import type { SessionState } from '../../core/session/state.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { waitFor } from '../helpers/worker-process.js';

/** SE1 receipts that say what happened, and typed rejections of bad input to the session workflow. */
let h: Harness;
const workspace = mkdtempSync(join(tmpdir(), 'zuno-admission-ws-'));

beforeAll(async () => {
  h = await createHarness({ address: inject('temporalAddress') });
});
afterAll(() => h?.close());

/** The Update's rejection as `type: message` (the ApplicationFailure's, else the error's name and message). */
async function rejection(p: Promise<unknown>): Promise<string> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err, 'the update should have been rejected').not.toBeNull();
  const cause = err instanceof WorkflowUpdateFailedError ? err.cause : undefined;
  const type = cause instanceof ApplicationFailure && cause.type ? cause.type : (err as Error).name;
  return `${type}: ${(cause ?? (err as Error)).message}`;
}

describe('session admission', () => {
  it('an input steered while the last step answers is taken by that same turn, as its receipt says', async () => {
    const run = await h.startScripted({
      workspace,
      prompt: 'first',
      script: { replies: [{ text: 'first answer', fault: { delayMs: 2500 } }, { text: 'answer to the steer' }] },
    });
    await waitFor(
      async () => (await h.store.listEvents(run.sessionId, 0, 50)).some((e) => e.type === 'session.turn.started.1'),
      20_000,
      'the turn to start',
    );
    const receipt = await submitInput(h.client, run.sessionId, { text: 'and one more thing' });
    expect(receipt.status).toBe('steered');
    const result = await run.result();
    await run.closeProvider();
    expect(result).toMatchObject({ status: 'completed', turns: 1 });
    expect(result.outcome).toMatchObject({ kind: 'final_answer', steps: 2, inputIds: ['in_0', 'in_1'] });
    const t = (await h.store.loadTranscript(run.sessionId))!;
    expect(t.inputs.map((i) => [i.id, i.admission, i.state])).toEqual([
      ['in_0', 'driven', 'completed'],
      ['in_1', 'steered', 'completed'],
    ]);
    expect(t.messages.find((m) => m.inputId === 'in_1')).toMatchObject({ turn: 0, step: 1 });
    expect(t.session.finalText).toBe('answer to the steer');
  });

  it('an input admitted to a session that ends with the running turn is recorded cancelled, never dropped', async () => {
    const ws = mkdtempSync(join(tmpdir(), 'zuno-admission-end-'));
    const run = await h.startScripted({
      workspace: ws,
      prompt: 'run long',
      script: { replies: [{ toolCalls: [{ name: 'shell', arguments: { command: 'touch go; sleep 30' } }] }] },
    });
    await waitFor(async () => existsSync(join(ws, 'go')), 30_000, 'the command to start');
    const receipt = await submitInput(h.client, run.sessionId, { text: 'steered, then interrupted' });
    expect(receipt.status).toBe('steered');
    await interruptSession(h.client, run.sessionId, 'test');
    const result = await run.result();
    await run.closeProvider();
    expect(result.status).toBe('interrupted');
    const t = (await h.store.loadTranscript(run.sessionId))!;
    expect(t.inputs.map((i) => [i.id, i.text, i.admission, i.state])).toEqual([
      ['in_0', 'run long', 'driven', 'cancelled'],
      ['in_1', 'steered, then interrupted', 'pending', 'cancelled'],
    ]);
    // It never entered the conversation.
    expect(t.messages.some((m) => m.inputId === 'in_1')).toBe(false);
  });

  it('malformed submitInput and interrupt payloads and unknown updates are typed rejections that record nothing', async () => {
    const run = await h.startScripted({
      workspace,
      prompt: 'stay open',
      exitWhenIdle: false,
      script: { replies: [{ text: 'open' }] },
    });
    const handle = h.client.workflow.getHandle(run.workflowId);
    await waitFor(
      async () => (await h.store.getSession(run.sessionId))?.status === 'completed',
      20_000,
      'the first turn to end',
    );
    for (const bad of [
      null,
      'text',
      [1],
      {},
      { text: 7 },
      { text: ' ' },
      { text: 'a', clientMessageId: 3 },
      { text: 'a', extra: true },
      { text: 'x'.repeat(600_000) }, // over 512 KiB: refused, not a workflow task failing over and over
    ]) {
      expect(await rejection(handle.executeUpdate(SUBMIT_INPUT_UPDATE, { args: [bad] }))).toMatch(/^input_invalid: /);
    }
    for (const bad of ['now', [1], { source: 5 }]) {
      expect(await rejection(handle.executeUpdate(INTERRUPT_UPDATE, { args: [bad] }))).toMatch(/^input_invalid: /);
    }
    expect(await rejection(handle.executeUpdate('noSuchUpdate', { args: [{}] }))).toMatch(
      /not registered|unknown|noSuchUpdate/i,
    );
    const state = await handle.query<SessionState>(STATE_QUERY);
    expect(state).toMatchObject({ phase: 'idle', turn: 1, pending: [] });
    expect((await h.store.loadTranscript(run.sessionId))!.inputs).toHaveLength(1);
    await handle.terminate('test over');
    await run.closeProvider();
  });

  it('input or an interrupt for a session that has ended is refused and records nothing', async () => {
    const run = await h.runSession({ workspace, prompt: 'one and done', script: { replies: [{ text: 'done' }] } });
    const handle = h.client.workflow.getHandle(run.workflowId);
    expect(await rejection(handle.executeUpdate(SUBMIT_INPUT_UPDATE, { args: [{ text: 'late' }] }))).toMatch(
      /NotFound|completed|closed/i,
    );
    expect(await rejection(handle.executeUpdate(INTERRUPT_UPDATE, { args: [{}] }))).toMatch(
      /NotFound|completed|closed/i,
    );
    expect((await h.store.loadTranscript(run.sessionId))!.inputs.map((i) => i.text)).toEqual(['one and done']);
  });
});
