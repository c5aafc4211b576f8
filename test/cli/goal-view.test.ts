/**
 * How the goal commands say things: the closing line and next step of a
 * stopped goal, the final `--json` line, the list table and the show view
 * (budgets used and left, criteria with evidence, live details). Pure.
 */
import { describe, expect, it } from 'vitest';
import type { GoalSnapshot } from '../../core/goal/contract.js';
import type { GoalRow } from '../../activities/projection/types.js';
import { goalFinalJsonLine, goalStopLines } from '../../client/goal-end.js';
import type { GoalStop } from '../../client/goal-follow.js';
import { renderGoalList } from '../../client/commands/goal-list.js';
import { budgetLines, renderGoal } from '../../client/commands/goal-show-view.js';

const T0 = Date.UTC(2025, 4, 1, 12, 0, 0);

function snap(patch: Partial<GoalSnapshot> = {}): GoalSnapshot {
  return {
    goalId: 'goal_a1',
    sessionId: 'ses_s1',
    objective: 'Make CI green',
    revision: 4,
    state: { status: 'paused', reason: 'no_progress', message: '3 turns in a row changed nothing' },
    budgets: {},
    spent: { tokens: 1200, unmeasuredRequests: 0, toolCalls: 3, turns: 3 },
    criteria: [],
    progress: { fingerprint: null, repeats: 0 },
    createdAtMs: T0,
    updatedAtMs: T0 + 60_000,
    ...patch,
  };
}

function stopOf(s: GoalSnapshot, reason: string | null): GoalStop {
  return {
    goalId: s.goalId,
    sessionId: s.sessionId,
    status: s.state.status,
    reason,
    message: 'message' in s.state ? s.state.message : null,
    revision: s.revision,
    spent: s.spent,
    snapshot: s,
  };
}

describe('goalStopLines: the reason once, then what to do next', () => {
  it('no_progress: resume (with --script for a scripted goal) or cancel', () => {
    const text = goalStopLines(stopOf(snap(), 'no_progress'), { scripted: true });
    expect(text).toBe(
      'zuno: no_progress: goal goal_a1 paused: 3 turns in a row changed nothing\n' +
        '  when there is something new to try, resume it: zuno goal resume goal_a1 --script FILE (or cancel it: zuno goal cancel goal_a1)\n',
    );
  });

  it('uncertain_side_effect: inspect, then choose explicitly', () => {
    const s = snap({ state: { status: 'paused', reason: 'uncertain_side_effect', message: 'shell call_0_0 unknown' } });
    const text = goalStopLines(stopOf(s, 'uncertain_side_effect'), { scripted: false });
    expect(text).toContain('zuno: uncertain_side_effect: goal goal_a1 paused: shell call_0_0 unknown');
    expect(text).toContain('zuno session show ses_s1');
    expect(text).toContain(
      'zuno goal resume goal_a1 --choice resume (Resume goal) or --choice keep-paused (Keep paused)',
    );
  });

  it('required_input: the question and the answer command', () => {
    const s = snap({
      state: { status: 'paused', reason: 'required_input', message: 'Which branch?' },
      question: { requestId: 'rq_c1', text: 'Which branch?', revision: 4 },
    });
    const text = goalStopLines(stopOf(s, 'required_input'), { scripted: false });
    expect(text).toContain('goal goal_a1 paused: Which branch?');
    expect(text).not.toContain('the goal asks'); // said once
    expect(text).toContain('zuno goal answer goal_a1 "…"');
  });

  it('budget_limited names the flag that raises it; blocked says cancel and start anew', () => {
    const b = snap({ state: { status: 'budget_limited', kind: 'tool_call_budget', message: 'made 5 of its 5' } });
    const text = goalStopLines(stopOf(b, 'tool_call_budget'), { scripted: false });
    expect(text).toContain('zuno: tool_call_budget: goal goal_a1 stopped by its budget: made 5 of its 5');
    expect(text).toContain('zuno goal budgets goal_a1 --tool-call-budget N');
    const k = snap({ state: { status: 'blocked', code: 'provider_protocol', message: 'bad stream' } });
    expect(goalStopLines(stopOf(k, 'provider_protocol'), { scripted: false })).toContain(
      'zuno goal cancel goal_a1) and start a new one',
    );
  });

  it('a cancelled goal names goal_cancelled and suggests nothing', () => {
    const c = snap({ state: { status: 'cancelled', by: 'user' } });
    expect(goalStopLines(stopOf(c, 'user'), { scripted: false })).toBe(
      'zuno: goal_cancelled: goal goal_a1 cancelled\n',
    );
  });
});

describe('goalFinalJsonLine', () => {
  it('is goal.<status> with the stop and what was spent', () => {
    const line = goalFinalJsonLine(stopOf(snap(), 'no_progress'));
    expect(line.endsWith('\n')).toBe(true);
    expect(JSON.parse(line)).toEqual({
      type: 'goal.paused',
      goalId: 'goal_a1',
      sessionId: 'ses_s1',
      status: 'paused',
      reason: 'no_progress',
      message: '3 turns in a row changed nothing',
      revision: 4,
      spent: { tokens: 1200, unmeasuredRequests: 0, toolCalls: 3, turns: 3 },
    });
  });
});

describe('renderGoalList', () => {
  it('one aligned line per goal: status with reason, turns, objective on one line and cut', () => {
    const rows: GoalRow[] = [
      { id: 'goal_a1', sessionId: 'ses_s1', workflowId: 'goal/goal_a1', snapshot: snap() },
      {
        id: 'goal_b22',
        sessionId: 'ses_s2',
        workflowId: 'goal/goal_b22',
        snapshot: snap({
          goalId: 'goal_b22',
          state: { status: 'active' },
          objective: `Watch the release\npipeline ${'x'.repeat(80)}`,
        }),
      },
    ];
    const lines = renderGoalList(rows, T0 + 120_000)
      .trimEnd()
      .split('\n');
    expect(lines[0]).toMatch(/^ID\s+STATUS\s+TURNS\s+LAST ACTIVITY\s+OBJECTIVE$/);
    expect(lines[1]).toMatch(/^goal_a1\s+paused \(no_progress\)\s+3\s+1 min ago\s+Make CI green$/);
    expect(lines[2]).toMatch(/^goal_b22\s+active\s+3\s+1 min ago\s+Watch the release pipeline x+…$/);
    expect([...lines[2]!.split(/\s{2,}/).at(-1)!]).toHaveLength(60);
  });
});

describe('goal show', () => {
  it('budgets: used and left, the host default named, counters without a budget', () => {
    const s = snap({
      budgets: { tokens: { limit: 5000, source: 'host_default' }, toolCalls: 10, timeMs: 3_600_000, turnTokens: 2000 },
      spent: { tokens: 1200, unmeasuredRequests: 1, toolCalls: 3, turns: 3 },
    });
    expect(budgetLines(s.budgets, s, T0 + 120_000)).toEqual([
      'tokens      1,200 of 5,000 (3,800 left; the host default; 1 request reported no usage)',
      'per turn    at most 2,000 tokens (a turn that reaches it pauses the goal)',
      'tool calls  3 of 10 (7 left)',
      'time        2m of 1h (58m left)',
    ]);
    expect(budgetLines({}, snap(), T0 + 90_000)).toEqual([
      'tokens      1,200 so far (no budget)',
      'tool calls  3 so far (no budget)',
      'time        1m30s so far (no budget)',
    ]);
  });

  it('prints objective, status, session, criteria with evidence, and the live details', () => {
    const s = snap({
      state: { status: 'active' },
      criteria: [
        {
          id: 'cr_1',
          text: 'npm test passes',
          needsEvidence: true,
          status: 'satisfied',
          evidence: { receiptId: 'rcp_9', callId: 'call_2_0' },
        },
        { id: 'cr_2', text: 'changelog updated', needsEvidence: false, status: 'pending' },
      ],
    });
    const text = renderGoal(
      {
        goal: s,
        session: null,
        live: { execution: 'RUNNING', currentDetails: 'active · turn 4 · working · since 12:03:00 UTC' },
        workState: null,
      },
      T0 + 120_000,
    );
    expect(text).toContain('goal goal_a1 · active · revision 4\n');
    expect(text).toContain('objective   Make CI green\n');
    expect(text).toContain('session     ses_s1 (zuno session show ses_s1)\n');
    expect(text).toContain('turns       3\n');
    expect(text).toContain(
      '  cr_1  satisfied  npm test passes (needs an authoritative receipt) — evidence rcp_9 (call call_2_0)\n',
    );
    expect(text).toContain('  cr_2  pending    changelog updated\n');
    expect(text).toContain('temporal    goal/goal_a1 · running · active · turn 4 · working · since 12:03:00 UTC\n');
  });

  it('says why the live details are unknown, and lists the calls whose outcome is unknown', () => {
    const s = snap({
      state: { status: 'paused', reason: 'uncertain_side_effect', message: 'shell call_0_0 unknown' },
      uncertain: [{ callId: 'call_0_0', tool: 'shell', cause: 'reported_uncertain' }],
    });
    const text = renderGoal(
      {
        goal: s,
        session: null,
        live: { execution: 'RUNNING', currentDetails: null, note: 'no worker answered' },
        workState: null,
      },
      T0,
    );
    expect(text).toContain('status      paused (uncertain_side_effect): shell call_0_0 unknown\n');
    expect(text).toContain('unknown outcomes\n  shell call_0_0 (reported_uncertain)\n');
    expect(text).toContain('temporal    goal/goal_a1 · running · unknown: no worker answered\n');
  });
});
