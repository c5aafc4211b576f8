import { decideApproval } from '../../client/approvals.js';
import { waitFor } from '../helpers/worker-process.js';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { interruptSession } from '../../client/session-start.js';
import { EXACT_SUBJECT_PATCH } from '../../workflows/permission-gate.js';
import { FAST_TURN_PATCH } from '../../workflows/session-machine.js';
import { workflowBundlePath } from '../../worker/workflow-bundle.js';
import { TEMPORAL_BIN } from '../helpers/dev-server.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { patchIds } from '../helpers/history.js';

/**
 * History-replay tests (DESIGN.md §4): the current workflow code must replay
 * (a) a history recorded just now and (b) every history checked in under
 * test/fixtures/histories/ — recorded by earlier versions of the code, so a
 * change that would break running sessions fails here. Record a new fixture
 * with ZUNO_RECORD_HISTORY=1 when a deliberate, `patched()`-guarded change
 * lands (the goal workflow's fixtures: test/goal/goal-replay.test.ts).
 */
const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'histories');

let h: Harness;
let codePath: string;
const stateDir = mkdtempSync(join(tmpdir(), 'zuno-replay-'));

beforeAll(async () => {
  h = await createHarness({ address: inject('temporalAddress') });
  codePath = await workflowBundlePath(stateDir);
});
afterAll(async () => {
  await h?.close();
  rmSync(stateDir, { recursive: true, force: true });
});

/** The provider a session's workflow was started with (its first run's input). */
async function metaProvider(workflowId: string): Promise<Record<string, unknown>> {
  const history = await h.client.workflow.getHandle(workflowId).fetchHistory();
  const started = history.events![0]!.workflowExecutionStartedEventAttributes!;
  const { defaultPayloadConverter } = await import('@temporalio/common');
  const input = defaultPayloadConverter.fromPayload(started.input!.payloads![0]!) as {
    meta: { provider: Record<string, unknown> };
  };
  return input.meta.provider;
}

describe('session workflow determinism', () => {
  it('replays a freshly recorded history with tool calls, a blocked call and steering-free turns', async () => {
    const workspace = mkdtempSync(join(tmpdir(), 'zuno-replay-ws-'));
    mkdirSync(join(workspace, 'src'));
    writeFileSync(join(workspace, 'src', 'x.ts'), 'const x = 1; // FIXME\n');
    const run = await h.runSession({
      workspace,
      prompt: 'find FIXME',
      script: {
        replies: [
          {
            toolCalls: [
              { name: 'grep', arguments: { pattern: 'FIXME' } },
              { name: 'glob', arguments: { pattern: '**/*.ts' } },
              { name: 'nope', arguments: {} },
            ],
          },
          { toolCalls: [{ name: 'read', arguments: { path: 'src/x.ts' } }] },
          { text: 'FIXME is in src/x.ts.' },
        ],
      },
    });
    expect(run.result.status).toBe('completed');
    // The history as the real Temporal CLI exports it (proto3 JSON), exactly as the fixtures are stored.
    const json = execFileSync(
      TEMPORAL_BIN,
      ['workflow', 'show', '--workflow-id', run.workflowId, '--address', h.address, '--output', 'json'],
      { encoding: 'utf8' },
    );
    await Worker.runReplayHistory({ workflowBundle: { codePath } }, JSON.parse(json), run.workflowId);
    if (process.env.ZUNO_RECORD_HISTORY === '1') {
      writeFileSync(join(FIXTURES, `session-tools-${Date.now()}.json`), json);
    }
  });

  it('replays histories with a background task, its report turn, a bg wait and a hard interrupt', async () => {
    const workspace = mkdtempSync(join(tmpdir(), 'zuno-replay-bg-'));
    const bg = await h.runSession({
      workspace,
      prompt: 'build in the background',
      script: {
        replies: [
          {
            toolCalls: [
              { name: 'shell', arguments: { command: 'sleep 4; echo built', background: true } },
              { name: 'shell', arguments: { command: 'sleep 0.3; echo second', background: true } },
            ],
          },
          { toolCalls: [{ name: 'bg', arguments: { action: 'wait', taskID: 'bg_0_0_1', timeoutMs: 20_000 } }] },
          { text: 'Started; the other one reports later.' },
          { text: 'bg_0_0_0 printed built.' },
        ],
      },
    });
    expect(bg.result).toMatchObject({ status: 'completed', turns: 2 });
    const interrupted = await h.startScripted({
      workspace,
      prompt: 'run long',
      script: { replies: [{ toolCalls: [{ name: 'shell', arguments: { command: 'touch go; sleep 30' } }] }] },
    });
    await vi.waitFor(() => expect(existsSync(join(workspace, 'go'))).toBe(true), { timeout: 30_000, interval: 50 });
    await interruptSession(h.client, interrupted.sessionId, 'test');
    expect((await interrupted.result()).status).toBe('interrupted');
    await interrupted.closeProvider();
    for (const workflowId of [bg.workflowId, interrupted.workflowId]) {
      const json = execFileSync(
        TEMPORAL_BIN,
        ['workflow', 'show', '--workflow-id', workflowId, '--address', h.address, '--output', 'json'],
        { encoding: 'utf8' },
      );
      await Worker.runReplayHistory({ workflowBundle: { codePath } }, JSON.parse(json), workflowId);
      if (process.env.ZUNO_RECORD_HISTORY === '1') {
        const kind = workflowId === bg.workflowId ? 'background' : 'interrupt';
        writeFileSync(join(FIXTURES, `session-${kind}-${Date.now()}.json`), json);
      }
    }
  }, 120_000);

  it('replays a routed session that pauses on a missing API key and resumes in the same run', async () => {
    const workspace = mkdtempSync(join(tmpdir(), 'zuno-replay-resume-'));
    writeFileSync(join(workspace, 'a.txt'), 'alpha\n');
    const route = { host: 'replay-host', taskQueue: h.taskQueue, servedBy: 'worker' as const };
    const run = await h.startScripted({
      workspace,
      prompt: 'read a.txt',
      route,
      provider: (p) => ({ ...p, apiKeyEnv: 'ZUNO_REPLAY_KEY_THAT_IS_NOT_SET' }),
      script: {
        replies: [{ toolCalls: [{ name: 'read', arguments: { path: 'a.txt' } }] }, { text: 'It says alpha.' }],
      },
    });
    const handle = h.client.workflow.getHandle(run.workflowId);
    await vi.waitFor(async () => expect((await handle.query<{ phase: string }>('state')).phase).toBe('paused'), {
      timeout: 30_000,
      interval: 100,
    });
    const state = await handle.query<{ route?: unknown }>('state');
    expect(state.route).toEqual(route);
    await handle.executeUpdate('resume', {
      args: [{ provider: { ...(await metaProvider(run.workflowId)), apiKeyEnv: undefined }, source: 'test' }],
    });
    expect(await run.result()).toMatchObject({ status: 'completed' });
    await run.closeProvider();
    const json = execFileSync(
      TEMPORAL_BIN,
      ['workflow', 'show', '--workflow-id', run.workflowId, '--address', h.address, '--output', 'json'],
      { encoding: 'utf8' },
    );
    const history = JSON.parse(json);
    const scheduled = history.events.filter(
      (e: { eventType: string }) => e.eventType === 'EVENT_TYPE_ACTIVITY_TASK_SCHEDULED',
    );
    expect(scheduled.length).toBeGreaterThan(2);
    for (const e of scheduled) expect(e.activityTaskScheduledEventAttributes.taskQueue.name).toBe(h.taskQueue);
    await Worker.runReplayHistory({ workflowBundle: { codePath } }, history, run.workflowId);
    if (process.env.ZUNO_RECORD_HISTORY === '1')
      writeFileSync(join(FIXTURES, `session-resume-${Date.now()}.json`), json);
  }, 60_000);

  it('replays a history with a permission gate: a deny rule, an approval asked and approved, one asked and denied', async () => {
    const workspace = mkdtempSync(join(tmpdir(), 'zuno-replay-ws-'));
    const run = await h.startScripted({
      workspace,
      prompt: 'record runs',
      permission: {
        mode: 'standard',
        rules: [
          { tool: 'shell', action: 'ask' },
          { tool: 'shell', pattern: 'rm *', action: 'deny' },
        ],
      },
      script: {
        replies: [
          {
            toolCalls: [
              { name: 'shell', arguments: { command: 'rm -f nothing' } },
              { name: 'shell', arguments: { command: 'echo one >> runs.txt' } },
            ],
          },
          { toolCalls: [{ name: 'shell', arguments: { command: 'echo two >> runs.txt' } }] },
          { text: 'One ran, one was denied, one refused.' },
        ],
      },
    });
    const decided = new Set<string>();
    const decide = async (decision: 'approve_once' | 'deny') => {
      const row = await waitFor(
        async () =>
          (await h.store.listApprovals({ sessionId: run.sessionId, status: 'pending' })).find(
            (a) => !decided.has(a.id),
          ),
        30_000,
        'a pending approval',
      );
      decided.add(row.id);
      await decideApproval(h.client, row, { decision, ...(decision === 'deny' ? { message: 'no' } : {}) });
    };
    try {
      await decide('approve_once');
      await decide('deny');
      expect((await run.result()).status).toBe('completed');
    } finally {
      await run.closeProvider();
    }
    const json = execFileSync(
      TEMPORAL_BIN,
      ['workflow', 'show', '--workflow-id', run.workflowId, '--address', h.address, '--output', 'json'],
      { encoding: 'utf8' },
    );
    expect(json).toContain('"recordApproval"');
    await Worker.runReplayHistory({ workflowBundle: { codePath } }, JSON.parse(json), run.workflowId);
    if (process.env.ZUNO_RECORD_HISTORY === '1') {
      writeFileSync(join(FIXTURES, `session-approvals-${Date.now()}.json`), json);
    }
  });

  it('replays a history with a session-wide grant: approved for the session, then a call with the same program and another redirect', async () => {
    const workspace = mkdtempSync(join(tmpdir(), 'zuno-replay-ws-'));
    const run = await h.startScripted({
      workspace,
      prompt: 'write notes',
      permission: { mode: 'strict', rules: [] },
      script: {
        replies: [
          { toolCalls: [{ name: 'shell', arguments: { command: 'echo hello > note.txt' } }] },
          { toolCalls: [{ name: 'shell', arguments: { command: 'echo hello > index.js' } }] },
          { text: 'Both written.' },
        ],
      },
    });
    // The first approval is approved for the session; the second call asks again (the grant covers exactly
    // `echo hello > note.txt` since issue 26) and is approved once. Recorded before that change,
    // session-approvals-v3.json ran the second call on the old per-command grant (`echo hello`) without asking;
    // session-approvals-v4.json is this test under patched('zuno-approval-exact-subject-v1').
    let decisions = 0;
    let done = false;
    const decider = (async () => {
      const decided = new Set<string>();
      while (!done) {
        const rows = await h.store.listApprovals({ sessionId: run.sessionId, status: 'pending' });
        const row = rows.find((a) => !decided.has(a.id));
        if (row) {
          decided.add(row.id);
          await decideApproval(h.client, row, { decision: decisions++ === 0 ? 'approve_session' : 'approve_once' });
        } else await new Promise((r) => setTimeout(r, 100));
      }
    })();
    try {
      expect((await run.result()).status).toBe('completed');
    } finally {
      done = true;
      await decider;
      await run.closeProvider();
    }
    expect(existsSync(join(workspace, 'note.txt')) && existsSync(join(workspace, 'index.js'))).toBe(true);
    expect(decisions).toBe(2);
    const json = execFileSync(
      TEMPORAL_BIN,
      ['workflow', 'show', '--workflow-id', run.workflowId, '--address', h.address, '--output', 'json'],
      { encoding: 'utf8' },
    );
    await Worker.runReplayHistory({ workflowBundle: { codePath } }, JSON.parse(json), run.workflowId);
    if (process.env.ZUNO_RECORD_HISTORY === '1') {
      writeFileSync(join(FIXTURES, `session-approvals-grant-${Date.now()}.json`), json);
    }
  });

  it('replays every checked-in history fixture', async () => {
    const files = readdirSync(FIXTURES).filter((f) => f.endsWith('.json'));
    expect(files.length).toBeGreaterThan(0);
    // The goal workflow's fixtures and its sessions' (recorded by test/goal/goal-replay.test.ts) are among them.
    for (const kind of ['complete', 'uncertain-resume', 'backoff-background'])
      expect(files).toEqual(expect.arrayContaining([`goal-${kind}-v1.json`, `session-goal-${kind}-v1.json`]));
    // A remote observer's wait held by the workflow (patched('zuno-remote-observer-v1')).
    expect(files).toContain('session-goal-backoff-background-v2.json');
    // The permission gate: a deny rule, approvals asked, approved and denied (issue 11).
    expect(files).toContain('session-approvals-v1.json');
    // A turn paused by a missing workspace and resumed (issue 33).
    expect(files).toContain('session-workspace-pause-v1.json');
    // Session-wide grants: per simple command before issue 26 (v3), exactly the text shown after (v4).
    expect(files).toEqual(expect.arrayContaining(['session-approvals-v3.json', 'session-approvals-v4.json']));
    const v3 = patchIds(JSON.parse(readFileSync(join(FIXTURES, 'session-approvals-v3.json'), 'utf8')));
    const v4 = patchIds(JSON.parse(readFileSync(join(FIXTURES, 'session-approvals-v4.json'), 'utf8')));
    expect([v3.includes(EXACT_SUBJECT_PATCH), v4.includes(EXACT_SUBJECT_PATCH)]).toEqual([false, true]);
    // Compaction (issue 28, patched('zuno-compaction-v1')): over the threshold, a provider's context limit, the 6th
    // recovery failing closed, a person's compaction (test/compaction/compaction-session.test.ts records them).
    for (const kind of ['threshold', 'context-limit', 'limit', 'manual'])
      expect(files).toContain(`session-compaction-${kind}-v1.json`);
    // Questions: asked, the worker killed, answered (test/session/questions-crash.test.ts records it).
    expect(files).toContain('session-questions-v1.json');
    // Delegation (issue 12): a parent with a foreground task and a background job, and a child (test/delegation/delegation-replay.test.ts).
    expect(files).toEqual(
      expect.arrayContaining(['session-delegation-parent-v1.json', 'session-delegation-child-v1.json']),
    );
    // Local activities (issue 13): parallel reads completing out of order, a read refused locally that fell back,
    // under each rule (v1: any batch; v2: a batch that runs at once; v3: a fast turn, finishTurn local-first too).
    for (const v of ['v1', 'v2', 'v3'])
      expect(files).toEqual(
        expect.arrayContaining([`session-local-reads-${v}.json`, `session-local-fallback-${v}.json`]),
      );
    // Fast turns (patched('zuno-fast-turn-v1')): tools, a background task, an interrupt, the permission gate, resume.
    const fast = files.filter((f) =>
      patchIds(JSON.parse(readFileSync(join(FIXTURES, f), 'utf8'))).includes(FAST_TURN_PATCH),
    );
    for (const kind of ['tools', 'background', 'interrupt', 'approvals', 'resume', 'local-reads', 'local-fallback'])
      expect(
        fast.some((f) => f.startsWith(`session-${kind}-v`)),
        kind,
      ).toBe(true);
    for (const f of files) {
      const history = JSON.parse(readFileSync(join(FIXTURES, f), 'utf8'));
      expect(history.events.length, f).toBeGreaterThan(10);
      await expect(Worker.runReplayHistory({ workflowBundle: { codePath } }, history, f)).resolves.toBeUndefined();
    }
  });
});
