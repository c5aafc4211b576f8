import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { EV } from '../../core/events.js';
import type { GoalBudgets } from '../../core/goal/budgets.js';
import type { GoalDirective, GoalSnapshot } from '../../core/goal/contract.js';
import type { SessionState } from '../../core/session/state.js';
import type { Script } from '../../local-provider/script.js';
import { createHarness, type Harness, type StartedGoalRun } from '../helpers/harness.js';

/**
 * Each budget kind stops a Goal with its typed notice and status (GL10–GL18,
 * on the dev server): `token_budget` and `tool_call_budget` end it
 * `budget_limited`, `turn_budget` pauses it and nothing continues until a
 * person resumes it, `usage_unknown` pauses it only under a token budget the
 * user set. The scripted provider reports each reply's usage as written.
 */
let h: Harness;
beforeAll(async () => {
  h = await createHarness({ address: inject('temporalAddress') });
});
afterAll(async () => {
  await h?.close();
});

function goalOf(workflowId: string): Promise<GoalSnapshot> {
  return h.client.workflow.getHandle(workflowId).query<GoalSnapshot>('goal');
}

async function start(prompt: string, budgets: GoalBudgets, script: Script): Promise<StartedGoalRun> {
  return h.startScriptedGoal({ workspace: mkdtempSync(join(tmpdir(), 'zuno-goal-budget-')), prompt, budgets, script });
}

/**
 * Waits until the goal has left `active` and shown it: the session received
 * the directive of that revision (sent after the projection row and its
 * events were written). Returns the goal as the query saw it.
 */
async function settled(g: StartedGoalRun): Promise<GoalSnapshot> {
  let s: GoalSnapshot | undefined;
  await vi.waitFor(
    async () => {
      s = await goalOf(g.workflowId);
      expect(s.state.status).not.toBe('active');
      expect((await directives(g)).map((d) => d.revision)).toContain(s.revision);
    },
    { timeout: 30_000, interval: 100 },
  );
  return s!;
}

/** The goal's `budget.*` notices in its session's events, as written (`{code, message, goalId}`). */
async function budgetNotices(g: StartedGoalRun): Promise<unknown[]> {
  const events = await h.store.eventsOfType(g.sessionId, EV.notice);
  return events.map((e) => e.data).filter((d) => String((d as { code: string }).code).startsWith('budget.'));
}

/** The `goalDirective` signals the session received, in order (from its history). */
async function directives(g: StartedGoalRun): Promise<GoalDirective[]> {
  const history = await h.client.workflow.getHandle(`session/${g.sessionId}`).fetchHistory();
  return (history.events ?? [])
    .map((e) => e.workflowExecutionSignaledEventAttributes)
    .filter((a) => a?.signalName === 'goalDirective')
    .map((a) => defaultPayloadConverter.fromPayload<GoalDirective>(a!.input!.payloads![0]!));
}

/** The goal row's state and its `goal.status` events' statuses. */
async function recordedOf(g: StartedGoalRun): Promise<{ state: unknown; statuses: unknown[] }> {
  const row = await h.store.getGoal(g.goalId);
  const events = await h.store.eventsOfType(g.sessionId, EV.goalStatus);
  return {
    state: row?.snapshot.state,
    statuses: events.map((e) => [(e.data as { status: string }).status, (e.data as { reason: string }).reason]),
  };
}

async function cancel(g: StartedGoalRun): Promise<void> {
  await g.goal.executeUpdate('goalControl', { args: [{ commandId: `cancel-${g.goalId}`, action: 'cancel' }] });
  expect((await g.result()).state.status).toBe('cancelled');
  await g.sessionResult();
}

const usage = (inputTokens: number, outputTokens: number) => ({ usage: { inputTokens, outputTokens } });
const completeAt = (revision: number, id: string) => ({
  toolCalls: [{ id, name: 'goal_update', arguments: { expected_revision: revision, complete: true } }],
});

describe('overall budgets end a goal budget_limited with a notice (GL10, GL14, GL17)', () => {
  it('token_budget: the turn that reaches the total stops the goal', async () => {
    const g = await start(
      'Tidy the docs',
      { tokens: { limit: 100, source: 'user' } },
      {
        replies: [
          { text: 'Tidied the first page.', ...usage(40, 10) },
          { text: 'Tidied the second page.', ...usage(45, 10) },
          { text: 'unused', ...usage(1, 1) },
        ],
      },
    );
    try {
      const s = await settled(g);
      const message = 'the Goal spent 105 of its 100 tokens';
      expect(s.state).toEqual({ status: 'budget_limited', kind: 'token_budget', message });
      expect(s.spent).toMatchObject({ tokens: 105, unmeasuredRequests: 0, turns: 2 });
      expect(await budgetNotices(g)).toEqual([{ code: 'budget.token_budget', message, goalId: g.goalId }]);
      expect(await recordedOf(g)).toEqual({
        state: s.state,
        statuses: [
          ['active', null],
          ['budget_limited', 'token_budget'],
        ],
      });
      expect(g.providerRequests).toHaveLength(2);
      // The first turn's end continued the goal; the stop sent no continuation.
      expect((await directives(g)).map((d) => [d.status, d.continueWith?.continuationId ?? null])).toEqual([
        ['active', 'gc_1'],
        ['budget_limited', null],
      ]);
    } finally {
      await cancel(g);
      await g.closeProvider();
    }
  });

  it('tool_call_budget: the goal continues until its turns made that many calls', async () => {
    const g = await start(
      'Check the two services',
      { toolCalls: 2 },
      {
        replies: [
          { toolCalls: [{ id: 'call_one', name: 'shell', arguments: { command: 'echo one' } }] },
          { text: 'The first service is up.' },
          { toolCalls: [{ id: 'call_two', name: 'shell', arguments: { command: 'echo two' } }] },
          { text: 'The second service is up.' },
          { text: 'unused' },
        ],
      },
    );
    try {
      const s = await settled(g);
      const message = 'the Goal made 2 of its 2 tool calls';
      expect(s.state).toEqual({ status: 'budget_limited', kind: 'tool_call_budget', message });
      expect(s.spent).toMatchObject({ toolCalls: 2, turns: 2 });
      expect(await budgetNotices(g)).toEqual([{ code: 'budget.tool_call_budget', message, goalId: g.goalId }]);
      expect((await recordedOf(g)).state).toEqual(s.state);
      expect(g.providerRequests).toHaveLength(4);
      // A stopped goal is not resumed while the budget is still spent.
      const refused = await g.goal
        .executeUpdate('goalControl', { args: [{ commandId: 'resume-1', action: 'resume', choice: 'resume' }] })
        .catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(WorkflowUpdateFailedError);
      expect((refused as WorkflowUpdateFailedError).cause).toMatchObject({
        type: 'budget_exhausted',
        message: expect.stringContaining('has spent its tool call budget'),
      });
    } finally {
      await cancel(g);
      await g.closeProvider();
    }
  });
});

describe('pauses a budget makes (GL10, GL15)', () => {
  it('turn_budget pauses the goal and it does not auto-continue; Resume goal continues it', async () => {
    const g = await start(
      'Refactor the parser',
      { turnTokens: 50 },
      {
        replies: [
          { text: 'Refactored a lot in one go.', ...usage(50, 10) },
          { ...completeAt(3, 'call_done'), ...usage(10, 5) },
          { text: 'Done.', ...usage(10, 5) },
        ],
      },
    );
    try {
      const s = await settled(g);
      const message = 'the last turn spent 60 tokens, its allowance is 50; the next turn would spend it the same way';
      expect(s.state).toEqual({ status: 'paused', reason: 'turn_budget', message });
      expect(await budgetNotices(g)).toEqual([{ code: 'budget.turn_budget', message, goalId: g.goalId }]);
      expect(await recordedOf(g)).toEqual({
        state: s.state,
        statuses: [
          ['active', null],
          ['paused', 'turn_budget'],
        ],
      });
      // No continuation: the session was told "paused" with none, it is idle and sends nothing more.
      expect((await directives(g)).map((d) => [d.status, d.continueWith ?? null])).toEqual([['paused', null]]);
      await new Promise((r) => setTimeout(r, 1500));
      expect(g.providerRequests).toHaveLength(1);
      const session = await h.client.workflow.getHandle(`session/${g.sessionId}`).query<SessionState>('state');
      expect(session).toMatchObject({ phase: 'idle', pending: [] });
      expect((await goalOf(g.workflowId)).state).toEqual(s.state);

      // Resume goal: the next turn is a continuation, and it completes the goal.
      await g.goal.executeUpdate('goalControl', {
        args: [{ commandId: 'resume-1', action: 'resume', choice: 'resume', expectedRevision: 2 }],
      });
      const final = await g.result();
      expect(final.state.status).toBe('completed');
      expect(g.providerRequests).toHaveLength(3);
      expect(JSON.stringify(g.providerRequests[1])).toContain('automatic continuation of the goal (revision 3)');
      await g.sessionResult();
    } finally {
      await g.closeProvider();
    }
  });

  it('usage_unknown: a reply without usage pauses a goal whose token budget the user set', async () => {
    const g = await start(
      'Update the changelog',
      { tokens: { limit: 10_000, source: 'user' } },
      {
        replies: [{ text: 'Updated it.', usage: null }, { text: 'unused' }],
      },
    );
    try {
      const s = await settled(g);
      const message = 'a provider request reported no usage, so the token budget you set cannot be kept';
      expect(s.state).toEqual({ status: 'paused', reason: 'usage_unknown', message });
      expect(s.spent).toMatchObject({ tokens: 0, unmeasuredRequests: 1, turns: 1 });
      expect(await budgetNotices(g)).toEqual([{ code: 'budget.usage_unknown', message, goalId: g.goalId }]);
      expect((await recordedOf(g)).state).toEqual(s.state);
      expect((await directives(g)).map((d) => [d.status, d.continueWith ?? null])).toEqual([['paused', null]]);
      expect(g.providerRequests).toHaveLength(1);
    } finally {
      await cancel(g);
      await g.closeProvider();
    }
  });

  it('usage_unknown: under the host default token budget the unmeasured request is not counted and the goal goes on', async () => {
    const g = await start(
      'Update the changelog',
      { tokens: { limit: 10_000, source: 'host_default' } },
      {
        replies: [
          { text: 'Updated it.', usage: null },
          { ...completeAt(1, 'call_done'), ...usage(10, 5) },
          { text: 'Done.', ...usage(10, 5) },
        ],
      },
    );
    try {
      const final = await g.result();
      expect(final.state.status).toBe('completed');
      expect(final.spent).toMatchObject({ tokens: 30, unmeasuredRequests: 1, turns: 2 });
      expect(await budgetNotices(g)).toEqual([]);
      expect((await recordedOf(g)).statuses).toEqual([
        ['active', null],
        ['completed', null],
      ]);
      // The second turn was the goal's continuation, right after the unmeasured one.
      expect(JSON.stringify(g.providerRequests[1])).toContain('automatic continuation of the goal (revision 1)');
      await g.sessionResult();
    } finally {
      await g.closeProvider();
    }
  });
});
