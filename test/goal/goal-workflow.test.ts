import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import type { GoalControlRequest, GoalControlResult, GoalSnapshot } from '../../core/goal/contract.js';
import { receiptId } from '../../activities/tools/shell/receipt.js';
import { interruptSession, newSessionId, submitInput } from '../../client/session-start.js';
import { pidWritten } from '../helpers/session.js';
import { waitFor } from '../helpers/worker-process.js';
import { createHarness, type Harness } from '../helpers/harness.js';

/**
 * The `goal` workflow driving its session (GL19–GL23): continuation turns
 * with no user message, each turn's outcome deciding the next, and the
 * progress guard that pauses a Goal whose turns change nothing.
 */
let h: Harness;
beforeAll(async () => {
  h = await createHarness({ address: inject('temporalAddress') });
});
afterAll(async () => {
  await h?.close();
});

async function goalOf(workflowId: string): Promise<GoalSnapshot> {
  return h.client.workflow.getHandle(workflowId).query<GoalSnapshot>('goal');
}

describe('a goal whose turns change nothing', () => {
  it('continues without a user message, then pauses no_progress after three identical turns', async () => {
    const workspace = mkdtempSync(join(tmpdir(), 'zuno-goal-ws-'));
    const g = await h.startScriptedGoal({
      workspace,
      prompt: 'Keep the build green',
      script: {
        replies: [
          { text: 'Looking at it.' },
          { text: 'Still looking.' },
          { text: 'Nothing changed.' },
          { text: 'Nothing changed again.' },
          { text: 'unused' },
        ],
      },
    });
    try {
      await vi.waitFor(async () => expect((await goalOf(g.workflowId)).state.status).toBe('paused'), {
        timeout: 60_000,
        interval: 300,
      });
      const s = await goalOf(g.workflowId);
      expect(s.state).toMatchObject({ status: 'paused', reason: 'no_progress' });
      expect(s.spent.turns).toBe(3);
      // Turn 1 carried the objective; turns 2 and 3 were continuations: no new user message was sent.
      const users = (g.providerRequests as { messages: { role: string }[] }[]).map(
        (r) => r.messages.filter((m) => m.role === 'user').length,
      );
      expect(users).toEqual([1, 1, 1]);
      const system = (g.providerRequests[1] as { messages: { role: string; content: string }[] }).messages[0]!;
      expect(system.content).toContain('automatic continuation of the goal');
      const row = await h.store.getGoal(g.goalId);
      expect(row?.snapshot.state.status).toBe('paused');
      const events = await h.store.eventsOfType(g.sessionId, 'goal.status');
      expect(events.map((e) => (e.data as { status: string }).status)).toContain('paused');
    } finally {
      await g.goal.executeUpdate('goalControl', { args: [{ commandId: 'c1', action: 'cancel' }] });
      await g.result();
      await g.sessionResult();
      await g.closeProvider();
    }
  });
});

describe('completing a goal (GL30–GL32)', () => {
  it('refuses a completion whose evidence did not pass, rolling everything back, and commits one with a passing receipt', async () => {
    const workspace = mkdtempSync(join(tmpdir(), 'zuno-goal-ws-'));
    const sessionId = newSessionId();
    const g = await h.startScriptedGoal({
      workspace,
      sessionId,
      prompt: 'Make the check pass',
      criteria: [{ text: 'the check passes', needsEvidence: true }],
      script: {
        replies: [
          { toolCalls: [{ id: 'call_check_1', name: 'shell', arguments: { command: 'exit 1' } }] },
          {
            toolCalls: [
              {
                id: 'call_done_1',
                name: 'goal_update',
                arguments: {
                  expected_revision: 1,
                  add_criteria: [{ text: 'a criterion that must roll back' }],
                  settle: [{ id: 'cr_1', status: 'satisfied', evidence: '[verification {{receipt:call_check_1}}]' }],
                  complete: true,
                },
              },
            ],
          },
          { toolCalls: [{ id: 'call_check_2', name: 'shell', arguments: { command: 'true' } }] },
          {
            toolCalls: [
              {
                id: 'call_done_2',
                name: 'goal_update',
                arguments: {
                  expected_revision: 1,
                  settle: [{ id: 'cr_1', status: 'satisfied', evidence: '{{receipt:call_check_2}}' }],
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
      const t = await h.store.loadTranscript(sessionId);
      // The receipts the scripted model cited: each row's own (session + row id + call id, issue 26 item 5).
      const row = (callId: string) => t!.toolCalls.find((c) => c.callId === callId)!;
      const failed = receiptId(sessionId, row('call_check_1').id, 'call_check_1');
      const passed = receiptId(sessionId, row('call_check_2').id, 'call_check_2');
      expect((row('call_check_1').result!.receipt as { id: string }).id).toBe(failed);
      expect(final.state.status).toBe('completed');
      expect(final.revision).toBe(2);
      expect(final.criteria).toEqual([
        {
          id: 'cr_1',
          text: 'the check passes',
          needsEvidence: true,
          status: 'satisfied',
          evidence: { receiptId: passed, callId: 'call_check_2' },
        },
      ]);
      const refused = t!.toolCalls.find((c) => c.callId === 'call_done_1')!;
      expect(refused.outcome).toBe('error');
      expect(refused.errorCode).toBe('update_refused');
      expect(refused.output).toContain(`cr_1 needs evidence: ${failed} did not pass`);
      expect(refused.output).toContain('nothing changed, the goal stays at revision 1');
      expect(t!.toolCalls.find((c) => c.callId === 'call_done_2')!.outcome).toBe('ok');
      // The goal ended, so its session closed once idle.
      expect((await g.sessionResult()).status).toBe('completed');
      const described = await h.client.workflow.getHandle(g.workflowId).describe();
      expect(described.searchAttributes.ZunoGoalStatus).toEqual(['completed']);
    } finally {
      await g.closeProvider();
    }
  });
});

describe('an unknown outcome under a goal (GL27, GL33–GL36)', () => {
  it('pauses uncertain_side_effect; a discussion offers no tools; Keep paused keeps it; Resume goal continues; the call never runs again', async () => {
    const workspace = mkdtempSync(join(tmpdir(), 'zuno-goal-ws-'));
    const g = await h.startScriptedGoal({
      workspace,
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
          { toolCalls: [{ name: 'shell', arguments: { command: 'echo run >> runs.txt' } }] },
          { text: 'I cannot tell whether the deploy ran; please check it.' },
          { toolCalls: [{ name: 'goal_update', arguments: { expected_revision: 3, complete: true } }] },
          { text: 'Checked and done.' },
        ],
      },
    });
    const handle = h.client.workflow.getHandle(g.workflowId);
    const control = (commandId: string, choice: 'resume' | 'keep_paused') =>
      handle.executeUpdate<GoalControlResult, [GoalControlRequest]>('goalControl', {
        args: [{ commandId, action: 'resume', choice }],
      });
    try {
      await waitFor(async () => pidWritten(workspace), 60_000, 'the command to start');
      await interruptSession(h.client, g.sessionId, 'test');
      await vi.waitFor(async () => expect((await goalOf(g.workflowId)).state.status).toBe('paused'), {
        timeout: 30_000,
        interval: 200,
      });
      const paused = await goalOf(g.workflowId);
      expect(paused.state).toMatchObject({ status: 'paused', reason: 'uncertain_side_effect' });
      expect(paused.uncertain).toEqual([expect.objectContaining({ tool: 'shell' })]);

      // GL36: a person's message while paused runs a discussion: no tools offered, an attempted call is blocked.
      // The discussion's requests are the ones carrying the person's message (picked by content, not by position:
      // under load a request of the interrupted turn can still arrive after the count is read).
      const ASKED = 'What happened with the deploy?';
      const discussionRequests = () =>
        g.providerRequests.filter((r) => JSON.stringify(r).includes(ASKED)) as { tools?: unknown[] }[];
      // The query shows the pause at once; the directive that disables the session's tools follows the Goal's
      // recordGoal. Wait until the server delivered it, or the message could start an ordinary turn first.
      await vi.waitFor(
        async () => {
          const events = (await handle.fetchHistory()).events ?? [];
          const sent = events.filter((e) => e.signalExternalWorkflowExecutionInitiatedEventAttributes);
          const last = sent.at(-1)?.signalExternalWorkflowExecutionInitiatedEventAttributes?.input?.payloads?.[0];
          expect(Buffer.from(last?.data ?? []).toString()).toContain('"toolsDisabled":true');
          expect(events.filter((e) => e.externalWorkflowExecutionSignaledEventAttributes)).toHaveLength(sent.length);
        },
        { timeout: 30_000, interval: 200 },
      );
      await submitInput(h.client, g.sessionId, { text: ASKED });
      await vi.waitFor(async () => expect(discussionRequests().length).toBe(2), { timeout: 30_000 });
      for (const discussion of discussionRequests()) expect(discussion.tools ?? []).toEqual([]);
      await vi.waitFor(
        async () => {
          const t = await h.store.loadTranscript(g.sessionId);
          expect(t!.toolCalls.filter((c) => c.outcome === 'blocked')).toHaveLength(1);
        },
        { timeout: 30_000 },
      );
      expect((await goalOf(g.workflowId)).state.status).toBe('paused');

      // Keep paused: nothing changes, and asking twice with the same command is the same answer.
      const kept = await control('keep-1', 'keep_paused');
      expect(kept).toMatchObject({ status: 'paused', message: 'the goal stays paused; nothing was run' });
      expect(await control('keep-1', 'keep_paused')).toEqual(kept);
      expect((await goalOf(g.workflowId)).revision).toBe(2);

      // Resume goal: a continuation runs (and completes the goal); the uncertain call is not run again.
      expect(await control('resume-1', 'resume')).toMatchObject({ status: 'active' });
      const final = await g.result();
      expect(final.state.status).toBe('completed');
      expect(readFileSync(join(workspace, 'runs.txt'), 'utf8')).toBe('run\n');
    } finally {
      await g.closeProvider();
    }
  }, 120_000);
});

describe('stagnant reads under a goal (GP22)', () => {
  it('three identical successful plan_get steps pause the goal no_progress after one turn', async () => {
    const workspace = mkdtempSync(join(tmpdir(), 'zuno-goal-ws-'));
    const read = { toolCalls: [{ name: 'plan_get', arguments: {} }] };
    const g = await h.startScriptedGoal({
      workspace,
      prompt: 'Plan the release',
      script: { replies: [read, read, read, { text: 'never reached' }] },
    });
    try {
      await vi.waitFor(async () => expect((await goalOf(g.workflowId)).state.status).toBe('paused'), {
        timeout: 30_000,
        interval: 200,
      });
      const s = await goalOf(g.workflowId);
      expect(s.state).toMatchObject({ status: 'paused', reason: 'no_progress' });
      expect(s.spent).toMatchObject({ turns: 1, toolCalls: 3 });
      expect(g.providerRequests).toHaveLength(3); // the same paid read is not repeated a fourth time
    } finally {
      await g.goal.executeUpdate('goalControl', { args: [{ commandId: 'c1', action: 'cancel' }] });
      await g.result();
      await g.sessionResult();
      await g.closeProvider();
    }
  });
});

describe('a goal cancelled from Temporal (the UI, `temporal workflow cancel`)', () => {
  it('is recorded cancelled, its session is told and closes, and the workflow ends Canceled', async () => {
    const workspace = mkdtempSync(join(tmpdir(), 'zuno-goal-ws-'));
    const g = await h.startScriptedGoal({
      workspace,
      prompt: 'Wait for a person',
      script: { replies: [{ text: 'a' }, { text: 'b' }, { text: 'c' }, { text: 'unused' }] },
    });
    try {
      await vi.waitFor(async () => expect((await goalOf(g.workflowId)).state.status).toBe('paused'), {
        timeout: 30_000,
        interval: 200,
      });
      await g.goal.cancel();
      await expect(g.result()).rejects.toThrow();
      expect((await g.goal.describe()).status.name).toBe('CANCELLED');
      const row = await h.store.getGoal(g.goalId);
      expect(row!.snapshot.state).toEqual({ status: 'cancelled', by: 'temporal' });
      expect((await g.goal.describe()).searchAttributes.ZunoGoalStatus).toEqual(['cancelled']);
      expect((await g.sessionResult()).status).toBe('completed');
    } finally {
      await g.closeProvider();
    }
  });
});

describe('an interrupt while a goal waits for its remote observer', () => {
  it('stops the observer; with no report to wait for the session leaves waiting_background and stays responsive', async () => {
    const workspace = mkdtempSync(join(tmpdir(), 'zuno-goal-ws-'));
    const g = await h.startScriptedGoal({
      workspace,
      prompt: 'Watch CI',
      script: {
        replies: [
          {
            toolCalls: [
              {
                name: 'shell',
                arguments: { command: 'sleep 120', background: true, backgroundPurpose: 'remoteObserver' },
              },
            ],
          },
          { text: 'Waiting for CI.' },
          { text: 'unused' },
        ],
      },
    });
    try {
      await vi.waitFor(async () => expect((await goalOf(g.workflowId)).state.status).toBe('waiting_background'), {
        timeout: 30_000,
        interval: 200,
      });
      const session = h.client.workflow.getHandle(`session/${g.sessionId}`);
      const receipt = await interruptSession(h.client, g.sessionId, 'test');
      expect(receipt.backgroundCancelled).toEqual(['bg_0_0_0']);
      // The interrupt consumed the observer's completion: no report comes, so the session is idle again —
      // before the fix its run loop spun without yielding and the worker's deadlock detector killed it.
      await vi.waitFor(async () => expect((await session.query<{ phase: string }>('state')).phase).toBe('idle'), {
        timeout: 45_000,
        interval: 200,
      });
      const history = (await session.fetchHistory()).events ?? [];
      expect(history.some((e) => e.workflowTaskTimedOutEventAttributes || e.workflowTaskFailedEventAttributes)).toBe(
        false,
      );
    } finally {
      await g.goal.cancel().catch(() => undefined);
      await g.closeProvider();
    }
  }, 60_000);
});
