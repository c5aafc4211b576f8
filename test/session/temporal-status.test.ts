import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { interruptSession } from '../../client/session-start.js';
import type { SessionResult } from '../../core/session/outcome.js';
import type { ZunoStatusValue } from '../../core/session/state.js';
import { TEMPORAL_BIN } from '../helpers/dev-server.js';
import { createHarness, type Harness, type StartedRun, waitForPhase } from '../helpers/harness.js';

/**
 * Issue 8 "Temporal shows the truth": a session's Temporal execution status
 * and its `ZunoStatus` search attribute say how it ended or what it does, as
 * the real `temporal` CLI lists them; its current details read like a status
 * line. Each scenario is driven for real (scripted provider over HTTP).
 */
let h: Harness;
const workspace = mkdtempSync(join(tmpdir(), 'zuno-status-ws-'));
const started: StartedRun[] = [];

beforeAll(async () => {
  h = await createHarness({ address: inject('temporalAddress') });
});
afterAll(async () => {
  for (const s of started) {
    await h.client.workflow
      .getHandle(s.workflowId)
      .terminate('test over')
      .catch(() => undefined);
    await s.closeProvider();
  }
  await h?.close();
});

/** Workflow ids the real `temporal workflow list` returns for `query`, restricted to this harness's task queue. */
function listed(query: string): string[] {
  const out = execFileSync(
    TEMPORAL_BIN,
    [
      'workflow',
      'list',
      '--address',
      h.address,
      '--query',
      `${query} AND TaskQueue='${h.taskQueue}'`,
      '--output',
      'json',
    ],
    { encoding: 'utf8' },
  );
  // The CLI prints a JSON array, or one JSON object per line in some versions.
  const text = out.trim();
  type Row = { execution: { workflowId: string } };
  const rows: Row[] =
    text === '' ? [] : text.startsWith('[') ? JSON.parse(text) : text.split('\n').map((l) => JSON.parse(l) as Row);
  return rows.map((r) => r.execution.workflowId).sort();
}

/** Polls the list query until it returns exactly `ids` (visibility is eventually consistent). */
async function expectListed(query: string, ids: string[]): Promise<void> {
  await vi.waitFor(() => expect(listed(query)).toEqual([...ids].sort()), { timeout: 45_000, interval: 250 });
}

/** The workflow's "current details" as the Temporal UI shows them (the SDK's metadata query). */
async function currentDetails(workflowId: string): Promise<string> {
  const md = await h.client.workflow
    .getHandle(workflowId)
    .query<{ currentDetails?: string }>('__temporal_workflow_metadata');
  return md.currentDetails ?? '';
}

/** ZunoStatus values the session had, in history order: the one it started with, then each upsert. */
async function upsertedStatuses(workflowId: string): Promise<string[]> {
  const history = await h.client.workflow.getHandle(workflowId).fetchHistory();
  return (history.events ?? [])
    .map(
      (e) =>
        e.workflowExecutionStartedEventAttributes?.searchAttributes?.indexedFields?.ZunoStatus ??
        e.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields?.ZunoStatus,
    )
    .filter((p) => p?.data)
    .map((p) => JSON.parse(Buffer.from(p!.data!).toString('utf8')) as string);
}

async function start(prompt: string, script: Parameters<Harness['startScripted']>[0]['script'], exitWhenIdle = true) {
  const s = await h.startScripted({ workspace, prompt, script, exitWhenIdle });
  started.push(s);
  return s;
}

describe('sessions as Temporal shows them', () => {
  it('ended sessions: Completed, Failed with a typed ApplicationFailure, and ZunoStatus for each end', async () => {
    const ok = await start('answer', { replies: [{ text: 'done' }] });
    const failed = await start('fail', { replies: [{ text: 'never', fault: { status: 400 } }] });
    const blocked = await start('garbage', { replies: [{ text: 'never', fault: { malformedChunk: true } }] });
    const paused = await start('no key', { replies: [{ text: 'never', fault: { status: 401 } }] });
    const stopped = await start('run long', {
      replies: [{ toolCalls: [{ name: 'shell', arguments: { command: 'touch go; sleep 30' } }] }],
    });
    await vi.waitFor(() => expect(existsSync(join(workspace, 'go'))).toBe(true), { timeout: 30_000, interval: 50 });
    await interruptSession(h.client, stopped.sessionId, 'test');

    const results: Record<string, SessionResult> = {};
    for (const [name, s] of Object.entries({ ok, failed, blocked, stopped })) results[name] = await s.result();
    // A paused session does not end: its workflow waits, Running, for `zuno session resume`.
    const pausedHandle = h.client.workflow.getHandle(paused.workflowId);
    expect((await waitForPhase(h.client, paused.workflowId, 'paused')).lastOutcome).toMatchObject({
      kind: 'paused',
      reason: 'provider_auth',
    });
    expect((await pausedHandle.describe()).status.name).toBe('RUNNING');
    expect(results.ok!.status).toBe('completed');
    expect(results.ok!.outcome).toMatchObject({ kind: 'final_answer', turn: 0, steps: 1 });
    expect(results.failed!).toMatchObject({ status: 'failed', error: { code: 'provider_bad_request' } });
    expect(results.failed!.outcome).toMatchObject({ kind: 'failed', code: 'provider_bad_request' });
    expect(results.blocked!.outcome).toMatchObject({ kind: 'blocked', code: 'provider_protocol' });
    expect(results.stopped!.outcome).toMatchObject({ kind: 'interrupted', source: 'test' });

    // The raw workflow outcome: failed and blocked sessions fail with the Zuno code as the failure type.
    for (const [s, type] of [
      [failed, 'provider_bad_request'],
      [blocked, 'provider_protocol'],
    ] as const) {
      const err = await h.client.workflow
        .getHandle(s.workflowId)
        .result()
        .then(
          () => null,
          (e: unknown) => e,
        );
      expect(err).toBeInstanceOf(WorkflowFailedError);
      const cause = (err as WorkflowFailedError).cause as ApplicationFailure;
      expect(cause).toBeInstanceOf(ApplicationFailure);
      expect(cause.type).toBe(type);
      expect(cause.message.split('\n')).toHaveLength(1);
      expect(cause.message.split(type)).toHaveLength(2); // the code is said once
      expect(cause.details?.[0]).toMatchObject({ sessionId: s.sessionId });
    }

    await expectListed("ZunoKind='session' AND ExecutionStatus='Failed'", [failed.workflowId, blocked.workflowId]);
    await expectListed("ZunoKind='session' AND ExecutionStatus='Running' AND ZunoStatus='paused'", [paused.workflowId]);
    await expectListed("ZunoKind='session' AND ExecutionStatus='Completed'", [ok.workflowId, stopped.workflowId]);
    const each: [ZunoStatusValue, StartedRun][] = [
      ['completed', ok],
      ['failed', failed],
      ['blocked', blocked],
      ['paused', paused],
      ['interrupted', stopped],
    ];
    for (const [status, s] of each) await expectListed(`ZunoKind='session' AND ZunoStatus='${status}'`, [s.workflowId]);

    // The interrupted session started `running` and passed through `interrupting` on its way.
    expect(await upsertedStatuses(stopped.workflowId)).toEqual(['running', 'interrupting', 'interrupted']);
    expect(await currentDetails(failed.workflowId)).toMatch(
      /^ended after 1 turn: failed \(provider_bad_request\): provider local: HTTP 400/,
    );
    expect(await currentDetails(ok.workflowId)).toBe('ended after 1 turn: final answer');
    expect(await currentDetails(paused.workflowId)).toMatch(
      /^paused \(provider_auth\): .* · fix the cause, then `zuno session resume ses_[0-9a-z]+` \(after 1 turn\)$/,
    );
  }, 120_000);

  it('live sessions: idle, running (with a status line naming the call), waiting_background', async () => {
    const idle = await start('hello', { replies: [{ text: 'hi' }] }, false);
    const running = await start('slow', {
      replies: [{ toolCalls: [{ name: 'shell', arguments: { command: 'touch running; sleep 60' } }] }],
    });
    const waiting = await start('build later', {
      replies: [
        { toolCalls: [{ name: 'shell', arguments: { command: 'sleep 60', background: true } }] },
        { text: 'started' },
      ],
    });
    await vi.waitFor(() => expect(existsSync(join(workspace, 'running'))).toBe(true), {
      timeout: 30_000,
      interval: 50,
    });
    await expectListed("ZunoKind='session' AND ZunoStatus='idle'", [idle.workflowId]);
    await expectListed("ZunoKind='session' AND ZunoStatus='running'", [running.workflowId]);
    await expectListed("ZunoKind='session' AND ZunoStatus='waiting_background'", [waiting.workflowId]);
    expect(await currentDetails(running.workflowId)).toMatch(
      /^turn 1 · shell: touch running; sleep 60 · since \d\d:\d\d:\d\d UTC$/,
    );
    expect(await currentDetails(idle.workflowId)).toMatch(/^idle after 1 turn · last turn: final answer · since /);
    // The line names what the task runs (an operator saw only its id before).
    expect(await currentDetails(waiting.workflowId)).toMatch(/^waiting for 1 background task \(bg_0_0_0: sleep 60\)/);
    await interruptSession(h.client, running.sessionId, 'test');
    await interruptSession(h.client, waiting.sessionId, 'test');
  }, 120_000);
});
