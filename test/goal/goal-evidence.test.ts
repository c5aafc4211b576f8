import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { findReceipts } from '../../activities/goal/receipt-lookup.js';
import type { ToolCallRow } from '../../activities/projection/types.js';
import { receiptId } from '../../activities/tools/shell/receipt.js';
import { newSessionId } from '../../client/session-start.js';
import type { GoalSnapshot } from '../../core/goal/contract.js';
import { applyGoalUpdate } from '../../workflows/goal-update.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { goalSnapshot } from './snapshot.js';

/**
 * Issue 26 items 5–6 on a real Goal (real Temporal dev server, real shell
 * and goal tools, real projection): receipts are unique per call, evidence
 * is looked up by id only (a legacy id held twice is refused
 * `evidence_ambiguous`), and a criterion that owns its check is satisfied
 * only by a passing, fresh receipt of exactly that command.
 */
let h: Harness;
const workspaces: string[] = [];
beforeAll(async () => {
  h = await createHarness({ address: inject('temporalAddress') });
});
afterAll(async () => {
  await h?.close();
  for (const ws of workspaces) rmSync(ws, { recursive: true, force: true });
});

function workspace(): string {
  const ws = mkdtempSync(join(tmpdir(), 'zuno-goal-evidence-'));
  workspaces.push(ws);
  return ws;
}

/** The stored tool-call rows of a session, in order. */
async function rows(sessionId: string): Promise<ToolCallRow[]> {
  return (await h.store.loadTranscript(sessionId))!.toolCalls;
}

const receiptOf = (r: ToolCallRow) => (r.result!.receipt as { id: string }).id;

describe('receipts are unique per call (issue 26 item 5)', () => {
  it('two shell calls with the same provider call id in two turns get two receipts; a goal citing the first is judged on the first', async () => {
    const sessionId = newSessionId();
    const g = await h.startScriptedGoal({
      workspace: workspace(),
      sessionId,
      prompt: 'Prove the check passes',
      criteria: [{ text: 'the check passes', needsEvidence: true }],
      script: {
        replies: [
          { toolCalls: [{ id: 'call_0', name: 'shell', arguments: { command: 'exit 0' } }] },
          { text: 'Checked once.' },
          // Turn 1 (a continuation): the provider numbers its calls per response, so call_0 again.
          { toolCalls: [{ id: 'call_0', name: 'shell', arguments: { command: 'exit 3' } }] },
          {
            toolCalls: [
              {
                id: 'call_1',
                name: 'goal_update',
                arguments: {
                  expected_revision: 1,
                  // The first result of call_0 in the conversation (the scripted provider fills it as it serves).
                  settle: [{ id: 'cr_1', status: 'satisfied', evidence: '[verification {{receipt:call_0@1}}]' }],
                  complete: true,
                },
              },
            ],
          },
          { text: 'Done.' },
        ],
      },
    });
    try {
      const final = await g.result();
      const shells = (await rows(sessionId)).filter((r) => r.tool === 'shell');
      // One call per turn, the same provider call id, two rows.
      expect(shells.map((r) => [r.turn, r.callId])).toEqual([
        [0, 'call_0'],
        [1, 'call_0'],
      ]);
      const [a, b] = shells.map(receiptOf);
      expect(a).toBe(receiptId(sessionId, shells[0]!.id, 'call_0'));
      expect(b).toBe(receiptId(sessionId, shells[1]!.id, 'call_0'));
      expect(a).not.toBe(b);
      const first = a!;
      // What the goal_update cited is the first call's receipt.
      const update = (await rows(sessionId)).find((r) => r.tool === 'goal_update')!;
      expect(JSON.parse(update.argsJson).settle[0].evidence).toBe(`[verification ${first}]`);
      expect(shells.map((r) => (r.result!.receipt as { exitCode: number }).exitCode)).toEqual([0, 3]);
      // Judged on the first (exit 0), not on the later call that shares its provider call id (exit 3).
      expect(final.state.status).toBe('completed');
      expect(final.criteria[0]).toMatchObject({
        status: 'satisfied',
        evidence: { receiptId: first, callId: 'call_0' },
      });
    } finally {
      await g.closeProvider();
    }
  });

  it('a legacy id that two stored calls hold is refused evidence_ambiguous, never resolved to the last one', async () => {
    const sessionId = newSessionId();
    const legacy = 'rcp_ff03292ad75b257f';
    const now = Date.now();
    await h.store.upsertSession({
      id: sessionId,
      workflowId: `session/${sessionId}`,
      workspace: '/tmp/legacy',
      status: 'completed',
      provider: 'p',
      model: 'm',
      createdAtMs: now,
      updatedAtMs: now,
    });
    for (const [turn, exitCode, verdict] of [
      [0, 1, 'failed'],
      [1, 0, 'passed'],
    ] as const) {
      await h.store.upsertToolCall({
        id: `tc_${turn}_0_0`,
        sessionId,
        turn,
        step: 0,
        position: 0,
        callId: 'call_0',
        tool: 'shell',
        argsJson: JSON.stringify({ command: 'bash ci.sh' }),
        status: 'completed',
        outcome: 'ok',
        output: `[verification ${legacy}] ${verdict} · exit ${exitCode} · authoritative (bash, pipefail)`,
        result: { receipt: { id: legacy, command: 'bash ci.sh', verdict, authority: 'authoritative', exitCode } },
        startedAtMs: now,
        endedAtMs: now,
      });
    }
    const receipts = await findReceipts(h.store, sessionId, [legacy]);
    expect(receipts[legacy]).toEqual({ found: true, matches: 2 });
    const snap = goalSnapshot({
      goalId: 'goal_legacy',
      sessionId,
      objective: 'CI is green',
      revision: 1,
      criteria: [{ id: 'cr_1', text: 'CI is green', needsEvidence: true, status: 'pending' }],
      createdAtMs: now,
      updatedAtMs: now,
    });
    const out = applyGoalUpdate(
      snap,
      {
        expectedRevision: 1,
        settle: [{ id: 'cr_1', status: 'satisfied', receiptId: legacy }],
        complete: true,
        receipts,
        turn: 2,
      },
      now,
    );
    expect(out.next).toBeUndefined();
    expect(out.result).toMatchObject({ ok: false, code: 'evidence_ambiguous' });
    expect((out.result as { problems: string[] }).problems[0]).toContain(`${legacy} is held by 2 calls`);
  });
});

describe('a criterion that owns its check (issue 26 item 6)', () => {
  it('refuses echo and `|| true` receipts (evidence_not_from_check) and a stale one (evidence_stale); the real CI receipt completes it', async () => {
    const ws = workspace();
    writeFileSync(join(ws, 'ci.sh'), 'echo "ci: all green"\nexit 0\n');
    const sessionId = newSessionId();
    const settle = (callId: string, cite: string, complete = false) => ({
      toolCalls: [
        {
          id: callId,
          name: 'goal_update',
          arguments: {
            expected_revision: 1,
            settle: [{ id: 'cr_1', status: 'satisfied', evidence: `[verification {{receipt:${cite}}}]` }],
            ...(complete ? { complete: true } : {}),
          },
        },
      ],
    });
    const g = await h.startScriptedGoal({
      workspace: ws,
      sessionId,
      prompt: 'Make CI green',
      criteria: [{ text: 'CI is green', needsEvidence: true, check: 'bash ci.sh' }],
      script: {
        replies: [
          { toolCalls: [{ id: 'call_echo', name: 'shell', arguments: { command: 'echo CI passed' } }] },
          settle('call_u1', 'call_echo', true),
          { toolCalls: [{ id: 'call_true', name: 'shell', arguments: { command: 'bash ci.sh || true' } }] },
          settle('call_u2', 'call_true', true),
          { toolCalls: [{ id: 'call_ci', name: 'shell', arguments: { command: 'bash  ci.sh ' } }] },
          { toolCalls: [{ id: 'call_write', name: 'write', arguments: { path: 'notes.txt', content: 'later\n' } }] },
          settle('call_u3', 'call_ci', true),
          { toolCalls: [{ id: 'call_ci_2', name: 'shell', arguments: { command: 'bash ci.sh' } }] },
          settle('call_u4', 'call_ci_2', true),
          { text: 'CI is green.' },
        ],
      },
    });
    try {
      const final = await g.result();
      const byCall = new Map((await rows(sessionId)).map((r) => [r.callId, r]));
      const echo = receiptOf(byCall.get('call_echo')!);
      const orTrue = receiptOf(byCall.get('call_true')!);
      const stale = receiptOf(byCall.get('call_ci')!);
      const real = receiptOf(byCall.get('call_ci_2')!);
      // Both impostors pass (exit 0): only the command tells them from the check.
      expect(byCall.get('call_echo')!.output).toContain(`[verification ${echo}] passed · exit 0`);
      expect(byCall.get('call_true')!.output).toContain(`[verification ${orTrue}] passed · exit 0`);
      const refusal = (callId: string) => {
        const r = byCall.get(callId)!;
        return { outcome: r.outcome, errorCode: r.errorCode, output: r.output };
      };
      expect(refusal('call_u1')).toMatchObject({ outcome: 'error', errorCode: 'evidence_not_from_check' });
      expect(refusal('call_u1').output).toContain(
        `cr_1 is owned by the check \`bash ci.sh\`, but ${echo} is the receipt of \`echo CI passed\``,
      );
      expect(refusal('call_u2')).toMatchObject({ outcome: 'error', errorCode: 'evidence_not_from_check' });
      expect(refusal('call_u2').output).toContain(`${orTrue} is the receipt of \`bash ci.sh || true\``);
      // The check itself (white space aside), but notes.txt was written after it ran.
      expect(refusal('call_u3')).toMatchObject({ outcome: 'error', errorCode: 'evidence_stale' });
      expect(refusal('call_u3').output).toContain(`${stale} is stale: files were written after \`bash ci.sh\` ran`);
      expect(refusal('call_u3').output).toContain('notes.txt');
      expect(refusal('call_u4')).toMatchObject({ outcome: 'ok', errorCode: null });
      expect(final.state.status).toBe('completed');
      expect(final.revision).toBe(2);
      expect(final.criteria).toEqual([
        {
          id: 'cr_1',
          text: 'CI is green',
          needsEvidence: true,
          check: 'bash ci.sh',
          status: 'satisfied',
          evidence: { receiptId: real, callId: 'call_ci_2' },
        },
      ]);
      // The model saw the check in its runtime context.
      expect(JSON.stringify(g.providerRequests[0])).toContain('owned by the check `bash ci.sh`');
    } finally {
      await g.closeProvider();
    }
  });
});

describe('the audit trail (issue 26 item 7)', () => {
  it('goal show lists every transition of a goal that paused, resumed and completed, in text and as --json transitions', async () => {
    const g = await h.startScriptedGoal({
      workspace: workspace(),
      prompt: 'Release the branch',
      budgets: { toolCalls: 10 },
      script: {
        replies: [
          {
            toolCalls: [
              {
                id: 'call_ask',
                name: 'goal_request_input',
                arguments: { expected_revision: 1, question: 'Which branch?' },
              },
            ],
          },
          { text: 'I asked which branch.' },
          {
            toolCalls: [{ id: 'call_done', name: 'goal_update', arguments: { expected_revision: 4, complete: true } }],
          },
          { text: 'Released.' },
        ],
      },
    });
    const handle = h.client.workflow.getHandle(g.workflowId);
    try {
      // goal_request_input pauses it mid-turn (r2); the turn's end decides again and keeps it paused (r3, the
      // same state: no line in the trail). Resume once that has happened, so the revisions do not race.
      await expect
        .poll(
          async () => {
            const snap = await handle.query<GoalSnapshot>('goal');
            return [snap.state.status, snap.revision];
          },
          { timeout: 30_000, interval: 200 },
        )
        .toEqual(['paused', 3]);
      await handle.executeUpdate('goalControl', {
        args: [{ commandId: 'c_resume', action: 'resume', choice: 'resume', expectedRevision: 3, by: 'you' }],
      });
      expect((await g.result()).state.status).toBe('completed');
    } finally {
      await g.closeProvider();
    }
    // What goal show reads: the projection row (recordGoal keeps the trail there; the last record may trail the result).
    await expect
      .poll(async () => (await h.store.getGoal(g.goalId))?.snapshot.transitions?.length, { timeout: 20_000 })
      .toBe(4);
    const home = process.env.ZUNO_HOME;
    process.env.ZUNO_HOME = h.stateDir;
    const out: string[] = [];
    const sink = { out: (t: string) => out.push(t), err: () => undefined };
    try {
      const { goalShowCommand } = await import('../../client/commands/goal-show.js');
      expect(await goalShowCommand(g.goalId, {}, sink)).toBe(0);
      expect(await goalShowCommand(g.goalId, { json: true }, sink)).toBe(0);
    } finally {
      if (home === undefined) delete process.env.ZUNO_HOME;
      else process.env.ZUNO_HOME = home;
    }
    const text = out[0]!;
    expect(text).toContain('transitions (4, oldest first)');
    const lines = text.split('\n').filter((l) => /^ {2}r\d+ {2}/.test(l));
    expect(lines).toHaveLength(4);
    expect(lines[0]).toMatch(/^ {2}r1 {2}\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC {2}start → active {2}by zuno goal start$/);
    expect(lines[1]).toMatch(
      /^ {2}r2 .* active → paused \(required_input\) {2}by the model: goal_request_input \(call call_ask\) — "Which branch\?"$/,
    );
    expect(lines[2]).toMatch(/^ {2}r4 .* paused → active {2}by you: goal resume$/);
    expect(lines[3]).toMatch(/^ {2}r5 .* active → completed {2}by the model: goal_update in turn 1$/);
    // What was spent, against the budgets, at each point (a budget-less counter shows no limit).
    expect(text).toContain('tokens 0 · tool calls 0 of 10 · turns 0');
    expect(text).toMatch(/r5 .*\n {8}tokens [\d,]+ · tool calls \d+ of 10 · turns \d+/);
    const json = JSON.parse(out[1]!) as { goal: Record<string, unknown>; transitions: Record<string, unknown>[] };
    expect(json.goal.transitions).toBeUndefined(); // one list, not two
    expect(json.transitions.map((t) => [t.revision, t.from, t.to, t.reason, t.by])).toEqual([
      [1, null, 'active', null, 'zuno goal start'],
      [2, 'active', 'paused', 'required_input', 'the model: goal_request_input (call call_ask)'],
      [4, 'paused', 'active', null, 'you: goal resume'],
      [5, 'active', 'completed', null, 'the model: goal_update in turn 1'],
    ]);
    expect(json.transitions[1]).toMatchObject({ message: 'Which branch?', budgets: { toolCalls: 10 } });
    for (const t of json.transitions) expect(typeof t.atMs).toBe('number');
  });
});
