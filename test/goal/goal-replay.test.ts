import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { receiptId } from '../../activities/tools/shell/receipt.js';
import { interruptSession, newSessionId } from '../../client/session-start.js';
import type { GoalControlRequest, GoalControlResult, GoalSnapshot } from '../../core/goal/contract.js';
import { workflowBundlePath } from '../../worker/workflow-bundle.js';
import { TEMPORAL_BIN } from '../helpers/dev-server.js';
import { createHarness, type Harness, type StartedGoalRun } from '../helpers/harness.js';
import { watchedGoal } from '../helpers/watch.js';

/**
 * History replay of the `goal` workflow (DESIGN.md §4; the session's own
 * replay tests are test/session/replay.test.ts, which also replays every
 * checked-in fixture). Each test records a Goal and its session just now —
 * the goal's histories (a completion with criteria and evidence; an
 * `uncertain_side_effect` pause that is kept, then resumed; a backoff timer
 * followed by `waiting_background`) — and replays both with the current
 * code. With ZUNO_RECORD_HISTORY=1 they are also written to
 * test/fixtures/histories/ as `goal-<kind>-<ms>.json` and
 * `session-goal-<kind>-<ms>.json` (the session side of a Goal has code
 * paths of its own: continuations, directives, tools disabled): rename them
 * `-v<n>` and check them in when a deliberate, `patched()`-guarded change lands.
 */
const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'histories');
let h: Harness;
let codePath: string;

beforeAll(async () => {
  h = await createHarness({ address: inject('temporalAddress') });
  codePath = await workflowBundlePath(h.stateDir);
});
afterAll(async () => {
  await h?.close();
});

const workspaces: string[] = [];
afterAll(() => {
  for (const ws of workspaces) rmSync(ws, { recursive: true, force: true });
});
function workspace(): string {
  const ws = mkdtempSync(join(tmpdir(), 'zuno-goal-replay-ws-'));
  workspaces.push(ws);
  return ws;
}

/** The history as the real Temporal CLI exports it (proto3 JSON), exactly as the fixtures are stored. */
function exported(workflowId: string): string {
  return execFileSync(
    TEMPORAL_BIN,
    ['workflow', 'show', '--workflow-id', workflowId, '--address', h.address, '--output', 'json'],
    { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
  );
}

/** Event types of an exported history, in order. */
function eventTypes(json: string): string[] {
  return (JSON.parse(json) as { events: { eventType: string }[] }).events.map((e) => e.eventType);
}

/**
 * Replays the ended goal's history and its session's with the current code
 * (and records them as fixtures `goal-<kind>-…` / `session-goal-<kind>-…`
 * under ZUNO_RECORD_HISTORY=1); returns both exports.
 */
async function replayBoth(g: StartedGoalRun, kind: string): Promise<{ goal: string; session: string }> {
  const goal = exported(g.workflowId);
  const session = exported(`session/${g.sessionId}`);
  for (const [json, id] of [
    [goal, g.workflowId],
    [session, `session/${g.sessionId}`],
  ] as const) {
    const history = JSON.parse(json) as { events: unknown[] };
    await Worker.runReplayHistory({ workflowBundle: { codePath } }, history, id);
  }
  expect(eventTypes(goal)[0]).toBe('EVENT_TYPE_WORKFLOW_EXECUTION_STARTED');
  expect(eventTypes(goal).at(-1)).toBe('EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED');
  expect(eventTypes(session).at(-1)).toBe('EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED');
  if (process.env.ZUNO_RECORD_HISTORY === '1') {
    const at = Date.now();
    writeFileSync(join(FIXTURES, `goal-${kind}-${at}.json`), goal);
    writeFileSync(join(FIXTURES, `session-goal-${kind}-${at}.json`), session);
  }
  return { goal, session };
}

async function goalOf(g: StartedGoalRun): Promise<GoalSnapshot> {
  return h.client.workflow.getHandle(g.workflowId).query<GoalSnapshot>('goal');
}

describe('goal workflow determinism', () => {
  it('replays a goal completed with a criterion and its evidence, after a refused completion', async () => {
    const sessionId = newSessionId();
    const g = await h.startScriptedGoal({
      workspace: workspace(),
      sessionId,
      prompt: 'Make the check pass',
      criteria: [{ text: 'the check passes', needsEvidence: true }],
      script: {
        replies: [
          { toolCalls: [{ id: 'call_check', name: 'shell', arguments: { command: 'true' } }] },
          // Refused: cr_1 needs evidence and none is given; nothing changes.
          {
            toolCalls: [{ id: 'call_early', name: 'goal_update', arguments: { expected_revision: 1, complete: true } }],
          },
          {
            toolCalls: [
              {
                id: 'call_done',
                name: 'goal_update',
                arguments: {
                  expected_revision: 1,
                  settle: [{ id: 'cr_1', status: 'satisfied', evidence: '[verification {{receipt:call_check}}]' }],
                  complete: true,
                },
              },
            ],
          },
          { text: 'Done: the check passes.' },
        ],
      },
    });
    try {
      const final = await g.result();
      const row = (await h.store.loadTranscript(sessionId))!.toolCalls.find((c) => c.callId === 'call_check')!;
      const rcp = receiptId(sessionId, row.id, 'call_check');
      expect(final.state.status).toBe('completed');
      expect(final.criteria[0]).toMatchObject({ status: 'satisfied', evidence: { receiptId: rcp } });
      expect((await g.sessionResult()).status).toBe('completed');
    } finally {
      await g.closeProvider();
    }
    const { goal } = await replayBoth(g, 'complete');
    expect(eventTypes(goal)).toContain('EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_COMPLETED');
  }, 60_000);

  it('replays a goal paused uncertain_side_effect, kept paused, then resumed to completion', async () => {
    const ws = workspace();
    const g = await h.startScriptedGoal({
      workspace: ws,
      prompt: 'Deploy the thing',
      script: {
        replies: [
          {
            toolCalls: [
              {
                name: 'shell',
                arguments: { command: "echo run >> runs.txt; trap '' TERM; echo $$ > pid.txt; sleep 60" },
              },
            ],
          },
          { toolCalls: [{ name: 'goal_update', arguments: { expected_revision: 3, complete: true } }] },
          { text: 'Checked the deploy by hand; done.' },
        ],
      },
    });
    const handle = h.client.workflow.getHandle(g.workflowId);
    const control = (commandId: string, choice: 'resume' | 'keep_paused') =>
      handle.executeUpdate<GoalControlResult, [GoalControlRequest]>('goalControl', {
        args: [{ commandId, action: 'resume', choice }],
      });
    try {
      await vi.waitFor(() => expect(existsSync(join(ws, 'pid.txt'))).toBe(true), { timeout: 30_000, interval: 50 });
      await interruptSession(h.client, g.sessionId, 'test');
      await vi.waitFor(async () => expect((await goalOf(g)).state.status).toBe('paused'), {
        timeout: 30_000,
        interval: 100,
      });
      expect((await goalOf(g)).state).toMatchObject({ reason: 'uncertain_side_effect' });
      expect(await control('keep-1', 'keep_paused')).toMatchObject({ status: 'paused' });
      expect(await control('resume-1', 'resume')).toMatchObject({ status: 'active', revision: 3 });
      const final = await g.result();
      expect(final.state.status).toBe('completed');
      expect((await g.sessionResult()).status).toBe('completed');
      expect(readFileSync(join(ws, 'runs.txt'), 'utf8')).toBe('run\n');
    } finally {
      await g.closeProvider();
    }
    const { goal } = await replayBoth(g, 'uncertain-resume');
    expect(eventTypes(goal).filter((t) => t === 'EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_COMPLETED')).toHaveLength(3);
  }, 90_000);

  it('replays a goal that backs off on a timer, then waits for a remote observer and completes on its report', async () => {
    const g = await h.startScriptedGoal({
      workspace: workspace(),
      prompt: 'Make CI green',
      provider: (p) => ({
        ...p,
        retry: { maxAttempts: 2, initialDelayMs: 100, maxDelayMs: 100, recoveryWindowMs: 5_000 },
      }),
      script: {
        replies: [
          {
            // The first turn fails provider_unavailable (both attempts); the continuation after the backoff starts CI.
            fault: { status: 503, times: 2 },
            text: 'Starting CI.',
            toolCalls: [
              {
                name: 'shell',
                arguments: {
                  command: 'sleep 2; echo ci passed',
                  background: true,
                  backgroundPurpose: 'remoteObserver',
                },
              },
            ],
          },
          { text: 'CI runs; I will continue on its report.' },
          // active 1 → backoff 2 → active 3 → waiting_background 4.
          { toolCalls: [{ name: 'goal_update', arguments: { expected_revision: 4, complete: true } }] },
          { text: 'CI passed.' },
        ],
      },
    });
    try {
      const final = await g.result();
      expect(final.state.status).toBe('completed');
      expect(final.revision).toBe(5);
      expect(final.spent).toMatchObject({ turns: 3, toolCalls: 2 });
      expect((await g.sessionResult()).status).toBe('completed');
    } finally {
      await g.closeProvider();
    }
    const statuses = (await h.store.eventsOfType(g.sessionId, 'goal.status')).map(
      (e) => (e.data as { status: string }).status,
    );
    expect(statuses).toEqual(['active', 'backoff', 'active', 'waiting_background', 'completed']);
    const { goal, session } = await replayBoth(g, 'backoff-background');
    expect(eventTypes(goal)).toContain('EVENT_TYPE_TIMER_FIRED');
    // The observer's wait was held by the session workflow (patched('zuno-remote-observer-v1')): polls between timers.
    expect(session).toContain('"bgObserverPoll"');
    expect(session).not.toContain('"bgCommand"');
  }, 60_000);

  it('replays a release-watching goal: checks on timers, then its own session start and completion (issue 31)', async () => {
    let checks = 0;
    const registry = createServer((_req, res) => {
      checks += 1;
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ 'dist-tags': { latest: checks < 3 ? '1.0.0' : '2.0.0' } }));
    });
    await new Promise<void>((r) => registry.listen(0, '127.0.0.1', r));
    const g = await h.startScriptedGoal({
      workspace: workspace(),
      ...watchedGoal(`http://127.0.0.1:${(registry.address() as AddressInfo).port}/pkg`, 1_000, 600_000),
      script: {
        replies: [
          {
            toolCalls: [{ id: 'call_done', name: 'goal_update', arguments: { expected_revision: 2, complete: true } }],
          },
          { text: 'pkg 2.0.0 is out.' },
        ],
      },
    });
    try {
      expect((await g.result()).state.status).toBe('completed');
      expect((await g.sessionResult()).status).toBe('completed');
    } finally {
      await g.closeProvider();
      registry.close();
    }
    const { goal } = await replayBoth(g, 'watch');
    expect(goal).toContain('"watchProbe"');
    expect(goal).toContain('"startGoalSession"');
  }, 60_000);
});
