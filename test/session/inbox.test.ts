import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { describe, expect, inject, it } from 'vitest';
import type { SessionState } from '../../core/session/state.js';
import { STATE_QUERY } from '../../core/session/updates.js';
import { submitInput } from '../../client/session-start.js';
import { startTestDevServer, type TestDevServer } from '../helpers/dev-server.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { useCleanups } from '../helpers/session.js';
import { waitFor } from '../helpers/worker-process.js';

const cleanups = useCleanups();

function workspace(): string {
  const ws = mkdtempSync(join(tmpdir(), 'zuno-inbox-ws-'));
  writeFileSync(join(ws, 'plan.md'), 'step one\n');
  return ws;
}

describe('session inbox (SE1, SE2)', () => {
  it('an input sent during a turn is steered into its next model request; a repeated clientMessageId is idempotent', async () => {
    const h: Harness = await createHarness({ address: inject('temporalAddress') });
    cleanups.push(() => h.close());
    const run = await h.startScripted({
      workspace: workspace(),
      prompt: 'read the plan',
      script: {
        replies: [
          { toolCalls: [{ name: 'read', arguments: { path: 'plan.md' } }], fault: { delayMs: 2500 } },
          { text: 'Read it, and noted the steer.' },
        ],
      },
    });
    await waitFor(
      async () => (await h.store.listEvents(run.sessionId, 0, 50)).some((e) => e.type === 'session.turn.started.1'),
      20_000,
      'the turn to start',
    );
    const steer = await submitInput(h.client, run.sessionId, { text: 'also check step two', clientMessageId: 'c-1' });
    expect(steer.status).toBe('steered');
    expect(steer.duplicate).toBe(false);
    const again = await submitInput(h.client, run.sessionId, { text: 'also check step two', clientMessageId: 'c-1' });
    expect(again).toEqual({ ...steer, duplicate: true });

    const result = await run.result();
    await run.closeProvider();
    expect(result.status).toBe('completed');
    // The second request carries the tool result, then the steered input.
    const second = run.providerRequests[1] as { messages: { role: string; content: unknown }[] };
    const roles = second.messages.map((m) => m.role);
    expect(roles.slice(-2)).toEqual(['tool', 'user']);
    expect(second.messages.at(-1)!.content).toBe('also check step two');
    const t = (await h.store.loadTranscript(run.sessionId))!;
    expect(t.inputs.map((i) => [i.id, i.admission, i.state])).toEqual([
      ['in_0', 'driven', 'completed'],
      ['in_1', 'steered', 'completed'],
    ]);
    expect(t.inputs[1]!.clientMessageId).toBe('c-1');
  });

  it('the update validator rejects malformed input before it is admitted; nothing is stored', async () => {
    const h: Harness = await createHarness({ address: inject('temporalAddress') });
    cleanups.push(() => h.close());
    const run = await h.startScripted({
      workspace: workspace(),
      prompt: 'hello',
      exitWhenIdle: false,
      script: { replies: [{ text: 'hi' }] },
    });
    cleanups.push(() => h.client.workflow.getHandle(run.workflowId).terminate('test over'));
    cleanups.push(() => run.closeProvider());
    await waitFor(
      async () => (await h.store.listEvents(run.sessionId, 0, 50)).some((e) => e.type === 'session.completed'),
      20_000,
      'the first turn to finish',
    );
    for (const bad of [{ text: '' }, { text: '   ' }, { text: 'x', clientMessageId: '' }, { text: 42 }]) {
      const err = await submitInput(h.client, run.sessionId, bad as never).catch((e) => e);
      expect(err).toBeInstanceOf(WorkflowUpdateFailedError);
    }
    const state = await h.client.workflow.getHandle(run.workflowId).query<SessionState>(STATE_QUERY);
    expect(state.pending).toEqual([]);
    expect(state.turn).toBe(1);
    const history = await h.client.workflow.getHandle(run.workflowId).fetchHistory();
    expect((history.events ?? []).filter((e) => e.workflowExecutionUpdateAcceptedEventAttributes)).toHaveLength(1);
    expect((await h.store.listInputs(run.sessionId)).map((i) => i.id)).toEqual(['in_0']);
  });

  it('a first input the validator rejects leaves no session workflow running (update-with-start)', async () => {
    const h: Harness = await createHarness({ address: inject('temporalAddress') });
    cleanups.push(() => h.close());
    const err = await h
      .startScripted({ workspace: workspace(), prompt: '   ', script: { replies: [{ text: 'never' }] } })
      .catch((e) => e);
    expect(err).toBeInstanceOf(WorkflowUpdateFailedError);
    // Visibility is eventually consistent: wait until the started workflow is listed, then ask for its real status.
    const ids = await waitFor(
      async () => {
        const found: string[] = [];
        for await (const w of h.client.workflow.list({ query: `TaskQueue = '${h.taskQueue}'` }))
          found.push(w.workflowId);
        return found.length > 0 ? found : undefined;
      },
      20_000,
      'the rejected session workflow to be listed',
    );
    for (const id of ids) expect((await h.client.workflow.getHandle(id).describe()).status.name).toBe('TERMINATED');
  });

  it('continues-as-new when Temporal suggests it, carrying the inbox and counters', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'zuno-can-'));
    const server: TestDevServer = await startTestDevServer(join(dir, 'temporal.db'), [
      'limit.historyCount.suggestContinueAsNew=25',
    ]);
    cleanups.push(async () => {
      await server.kill();
      rmSync(dir, { recursive: true, force: true });
    });
    const h: Harness = await createHarness({ address: server.address });
    cleanups.push(() => h.close());
    const run = await h.startScripted({
      workspace: workspace(),
      prompt: 'turn one',
      exitWhenIdle: false,
      script: {
        replies: [
          { toolCalls: [{ name: 'read', arguments: { path: 'plan.md' } }] },
          { text: 'one' },
          { toolCalls: [{ name: 'glob', arguments: { pattern: '*.md' } }] },
          { text: 'two' },
          { text: 'three' },
        ],
      },
    });
    cleanups.push(() => run.closeProvider());
    const handle = h.client.workflow.getHandle(run.workflowId);
    cleanups.push(() => handle.terminate('test over'));
    const finished = (n: number) =>
      waitFor(
        async () => (await h.store.listEvents(run.sessionId, 0, 500)).some((e) => e.id === `turn_${n}:finished`),
        30_000,
        `turn ${n} to finish`,
      );
    await finished(0);
    const firstRunId = (await handle.describe()).runId;
    expect((await submitInput(h.client, run.sessionId, { text: 'turn two' })).status).toBe('driven');
    await finished(1);
    const receipt = await submitInput(h.client, run.sessionId, { text: 'turn three' });
    expect(receipt.inputId).toBe('in_2');
    await finished(2);
    const desc = await handle.describe();
    expect(desc.runId).not.toBe(firstRunId);
    const firstHistory = await h.client.workflow.getHandle(run.workflowId, firstRunId).fetchHistory();
    expect(firstHistory.events!.at(-1)!.workflowExecutionContinuedAsNewEventAttributes).toBeTruthy();
    const state = await handle.query<SessionState>(STATE_QUERY);
    expect(state.turn).toBe(3);
    expect(state.lastFinalText).toBe('three');
    const t = (await h.store.loadTranscript(run.sessionId))!;
    expect(t.inputs.map((i) => i.id)).toEqual(['in_0', 'in_1', 'in_2']);
    const ids = t.parts.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
