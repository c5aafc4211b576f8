import { existsSync, mkdtempSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { replayExported } from '../helpers/history.js';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { submitInput } from '../../client/session-start.js';
import type { GoalControlRequest, GoalControlResult, GoalSnapshot } from '../../core/goal/contract.js';
import type { SessionState } from '../../core/session/state.js';
import { RESUME_UPDATE } from '../../core/session/updates.js';
import { workflowBundlePath } from '../../worker/workflow-bundle.js';
import { createHarness, type Harness, waitForPhase } from '../helpers/harness.js';

/**
 * Issue 33: a session whose workspace is missing on its host pauses
 * `workspace_unavailable` — at a tool call (the call is `blocked`, the model
 * gets no further step) and at a model step (nothing is sent) — and a resume
 * once the directory is back runs the turn again. Real Temporal, a real
 * worker, the real local provider, real directories.
 */
let h: Harness;
const HOST = 'ws-host';

let codePath: string;

beforeAll(async () => {
  h = await createHarness({ address: inject('temporalAddress') });
  codePath = await workflowBundlePath(h.stateDir);
}, 120_000);
afterAll(() => h?.close());

/** A workspace holding `a.txt`. */
function freshWorkspace(): string {
  const ws = mkdtempSync(join(tmpdir(), 'zuno-ws-missing-'));
  writeFileSync(join(ws, 'a.txt'), 'alpha\n');
  return ws;
}

/** Waits until the session's first turn answered and it idles (exitWhenIdle false). */
/** Ends a scripted run of a test: its workflow terminated (if still open), its provider closed. */
async function endRun(run: { workflowId: string; closeProvider(): Promise<void> }): Promise<void> {
  await h.client.workflow
    .getHandle(run.workflowId)
    .terminate('test over')
    .catch(() => undefined);
  await run.closeProvider();
}

async function idleAfter(workflowId: string, turns: number): Promise<void> {
  const handle = h.client.workflow.getHandle(workflowId);
  await vi.waitFor(
    async () => {
      const s = await handle.query<SessionState>('state');
      expect(s.phase).toBe('idle');
      expect(s.turn).toBeGreaterThanOrEqual(turns);
    },
    { timeout: 30_000, interval: 100 },
  );
}

async function modelStepAttempts(workflowId: string): Promise<number> {
  const history = await h.client.workflow.getHandle(workflowId).fetchHistory();
  return (history.events ?? []).filter(
    (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'modelStep',
  ).length;
}

describe('a workspace missing on its host (issue 33)', () => {
  it('a tool call pauses the turn workspace_unavailable; restored and resumed, the turn completes', async () => {
    const workspace = freshWorkspace();
    const gone = `${workspace}.gone`;
    const run = await h.startScripted({
      workspace,
      prompt: 'read a.txt',
      exitWhenIdle: false,
      route: { host: HOST, taskQueue: h.taskQueue, servedBy: 'worker' },
      // The first call of turn 2 moves the workspace itself away: unconfined.
      sandbox: { mode: 'danger-full-access', network: 'allow', writableRoots: [], explicit: false },
      script: {
        replies: [
          { toolCalls: [{ name: 'read', arguments: { path: 'a.txt' } }] },
          { text: 'It says alpha.' },
          // Turn 2: the first call moves the workspace away; the read after it finds none; the last is not run.
          {
            toolCalls: [
              { name: 'shell', arguments: { command: 'mv "$PWD" "$PWD.gone"' } },
              { name: 'read', arguments: { path: 'a.txt' } },
              { name: 'shell', arguments: { command: 'echo ran > ran.txt' } },
            ],
          },
          { text: 'Back again.' },
        ],
      },
    });
    try {
      await idleAfter(run.workflowId, 1);
      expect(run.providerRequests).toHaveLength(2);
      await submitInput(h.client, run.sessionId, { text: 'read it again' });
      const paused = await waitForPhase(h.client, run.workflowId, 'paused');
      const message = `the workspace ${workspace} does not exist on host ${HOST}; restore it and run zuno session resume ${run.sessionId}`;
      expect(paused.lastOutcome).toMatchObject({ kind: 'paused', reason: 'workspace_unavailable', message });
      // The model got no step after the blocked call.
      expect(run.providerRequests).toHaveLength(3);
      const t = (await h.store.loadTranscript(run.sessionId))!;
      const calls = t.toolCalls.filter((c) => c.turn === 1);
      // The move ran (its output capture moved with the workspace: whatever it reports), the read is blocked,
      // the shell call after it (an Exclusive batch of its own) is settled not run.
      expect(existsSync(gone)).toBe(true);
      expect(calls.map((c) => [c.tool, c.outcome])).toEqual([
        ['shell', expect.any(String)],
        ['read', 'blocked'],
        ['shell', 'error'],
      ]);
      expect(calls[1]!.errorCode).toBe('workspace_unavailable');
      expect(calls[1]!.output).toBe(`Not run: ${message}.`);
      const row = (await h.store.getSession(run.sessionId))!;
      expect(row.status).toBe('paused');
      expect(row.error).toBe(`workspace_unavailable: ${message}`);
      const events = await h.store.listEvents(run.sessionId, 0, 1000);
      expect(events.some((e) => e.type === 'session.paused')).toBe(true);

      renameSync(gone, workspace);
      expect(existsSync(join(workspace, 'ran.txt'))).toBe(false);
      const handle = h.client.workflow.getHandle(run.workflowId);
      const receipt = await handle.executeUpdate(RESUME_UPDATE, { args: [{ source: 'test' }] });
      expect(receipt).toMatchObject({ sessionId: run.sessionId, pausedBy: 'workspace_unavailable' });
      await idleAfter(run.workflowId, 3);
      expect(run.providerRequests).toHaveLength(4);
      expect((await h.store.getSession(run.sessionId))!).toMatchObject({
        status: 'completed',
        finalText: 'Back again.',
      });
      // The pause and the resumed turn replay against the current workflow code; the checked-in
      // session-workspace-pause-v1.json (recorded here with ZUNO_RECORD_HISTORY=1) keeps the shape replaying.
      await replayExported(h.address, run.workflowId, codePath, 'session-workspace-pause-v1.json');
    } finally {
      await endRun(run);
    }
  }, 90_000);

  it('a model step pauses workspace_unavailable before anything is sent; resumed, it answers', async () => {
    const workspace = freshWorkspace();
    const gone = `${workspace}.gone`;
    const run = await h.startScripted({
      workspace,
      prompt: 'hello',
      exitWhenIdle: false,
      route: { host: HOST, taskQueue: h.taskQueue, servedBy: 'worker' },
      script: { replies: [{ text: 'first' }, { text: 'second' }] },
    });
    try {
      await idleAfter(run.workflowId, 1);
      renameSync(workspace, gone);
      await submitInput(h.client, run.sessionId, { text: 'again' });
      const paused = await waitForPhase(h.client, run.workflowId, 'paused');
      expect(paused.lastOutcome).toMatchObject({
        kind: 'paused',
        reason: 'workspace_unavailable',
        message: `the workspace ${workspace} does not exist on host ${HOST}; restore it and run zuno session resume ${run.sessionId}`,
      });
      // Not retried, nothing sent.
      expect(await modelStepAttempts(run.workflowId)).toBe(2);
      expect(run.providerRequests).toHaveLength(1);
      // What the step carried is recorded: the input is the paused turn's.
      const t = (await h.store.loadTranscript(run.sessionId))!;
      expect(t.inputs.map((i) => i.id)).toEqual(['in_0', 'in_1']);

      renameSync(gone, workspace);
      await h.client.workflow.getHandle(run.workflowId).executeUpdate(RESUME_UPDATE, { args: [{ source: 'test' }] });
      await idleAfter(run.workflowId, 3);
      expect(run.providerRequests).toHaveLength(2);
      expect((await h.store.getSession(run.sessionId))!).toMatchObject({ status: 'completed', finalText: 'second' });
    } finally {
      await endRun(run);
    }
  }, 90_000);

  it('a shell command, foreground or background, sees ZUNO_HOST_ID = the route host and no other ZUNO_ variable', async () => {
    const workspace = freshWorkspace();
    process.env.ZUNO_WS_TEST_PRIVATE = 'hidden';
    process.env.ZUNO_HOST_ID = 'the-worker-env';
    const echo = 'echo "host=$ZUNO_HOST_ID private=${ZUNO_WS_TEST_PRIVATE-unset}"';
    try {
      const run = await h.runSession({
        workspace,
        prompt: 'which host',
        route: { host: HOST, taskQueue: h.taskQueue, servedBy: 'worker' },
        script: {
          replies: [
            {
              toolCalls: [
                { name: 'shell', arguments: { command: echo } },
                { name: 'shell', arguments: { command: `${echo} > bg.txt`, background: true } },
              ],
            },
            { text: 'started' },
            { text: 'the background one reported' },
          ],
        },
      });
      expect(run.result.status).toBe('completed');
      const call = (await h.store.loadTranscript(run.sessionId))!.toolCalls[0]!;
      expect(call.output).toContain(`host=${HOST} private=unset`);
      expect(readFileSync(join(workspace, 'bg.txt'), 'utf8')).toBe(`host=${HOST} private=unset\n`);
    } finally {
      delete process.env.ZUNO_WS_TEST_PRIVATE;
      delete process.env.ZUNO_HOST_ID;
    }
  }, 60_000);

  it("a Goal's session that pauses workspace_unavailable pauses its Goal; resuming the Goal resumes the session", async () => {
    const workspace = freshWorkspace();
    const gone = `${workspace}.gone`;
    // Gone before the Goal's first model step: the step pauses (nothing sent), and the Goal with it.
    renameSync(workspace, gone);
    const g = await h.startScriptedGoal({
      workspace,
      prompt: 'Read a.txt',
      route: { host: HOST, taskQueue: h.taskQueue, servedBy: 'worker' },
      script: {
        replies: [
          { toolCalls: [{ name: 'read', arguments: { path: 'a.txt' } }] },
          { text: 'Read it.' },
          { text: 'Nothing more.' },
          { text: 'Nothing more.' },
          { text: 'Nothing more.' },
        ],
      },
    });
    const goal = h.client.workflow.getHandle(g.workflowId);
    const session = h.client.workflow.getHandle(`session/${g.sessionId}`);
    try {
      await vi.waitFor(async () => expect((await goal.query<GoalSnapshot>('goal')).state.status).toBe('paused'), {
        timeout: 30_000,
        interval: 200,
      });
      expect((await goal.query<GoalSnapshot>('goal')).state).toMatchObject({
        status: 'paused',
        reason: 'workspace_unavailable',
        message: `the workspace ${workspace} does not exist on host ${HOST}; restore it and run zuno goal resume ${g.goalId}`,
      });
      expect((await session.query<SessionState>('state')).phase).toBe('paused');
      expect(g.providerRequests).toHaveLength(0);

      renameSync(gone, workspace);
      const resumed = await goal.executeUpdate<GoalControlResult, [GoalControlRequest]>('goalControl', {
        args: [{ commandId: 'resume-1', action: 'resume', choice: 'resume' }],
      });
      expect(resumed).toMatchObject({ status: 'active' });
      // The session's paused turn runs again: the model is asked, its read runs in the restored workspace.
      await vi.waitFor(() => expect(g.providerRequests.length).toBeGreaterThanOrEqual(2), {
        timeout: 30_000,
        interval: 100,
      });
      await vi.waitFor(
        async () => {
          const read = (await h.store.loadTranscript(g.sessionId))!.toolCalls[0];
          expect(read).toMatchObject({ tool: 'read', outcome: 'ok' });
        },
        { timeout: 30_000, interval: 100 },
      );
    } finally {
      await goal.terminate('test over').catch(() => undefined);
      await session.terminate('test over').catch(() => undefined);
      await g.closeProvider();
    }
  }, 90_000);
});
