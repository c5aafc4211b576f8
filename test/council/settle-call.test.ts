import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { recordPlanned } from '../../activities/session/tool-records.js';
import type { CouncilResult, SettleCouncilCallInput } from '../../core/council/contract.js';
import { EV } from '../../core/events.js';
import type { ToolActivityResult } from '../../core/session/tool-activity.js';
import { newSessionId } from '../../client/session-start.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { TEST_WORKFLOWS_PATH } from '../helpers/time-skipping.js';
import { sessionRow } from '../projection/harness.js';
import { gitWorkspace, seatThread, startScriptedCouncil, synthesisThread, validReport } from './helpers.js';

/**
 * `settleCouncilCall`: the parent session's `council_run` tool-call row gets
 * the Council's result through the one writer of tool-call records — run by
 * a real worker from a fixture workflow (test/helpers/workflows/fixtures.ts),
 * on a row planned the way modelStep plans one.
 */
let h: Harness;
let ws: string;
beforeAll(async () => {
  h = await createHarness({ address: inject('temporalAddress'), workflowsPath: TEST_WORKFLOWS_PATH });
  ws = gitWorkspace();
});
afterAll(async () => {
  await h?.close();
  rmSync(ws, { recursive: true, force: true });
});

/** A parent session with one planned `council_run` call at tc_0_0_0. */
async function plannedCall(): Promise<{ sessionId: string; rowId: string; callId: string }> {
  const sessionId = newSessionId();
  const now = Date.now();
  await h.store.upsertSession({ ...sessionRow(sessionId, now), workspace: ws });
  await h.store.upsertMessage({
    id: 'msg_0_0_assistant',
    sessionId,
    role: 'assistant',
    turn: 0,
    step: 0,
    createdAtMs: now,
  });
  const call = {
    id: 'tc_0_0_0',
    sessionId,
    turn: 0,
    step: 0,
    position: 0,
    callId: 'call_council',
    tool: 'council_run',
    argsJson: JSON.stringify({ question: 'Is it right?', diff: 'HEAD~1..HEAD' }),
  };
  await recordPlanned(h.store, call, { messageId: 'msg_0_0_assistant', atMs: now });
  return { sessionId, rowId: call.id, callId: call.callId };
}

function settle(input: SettleCouncilCallInput, id: string): Promise<ToolActivityResult> {
  return h.client.workflow.execute('settleCouncilCallWorkflow', {
    workflowId: `settle-council-${id}`,
    taskQueue: h.taskQueue,
    args: [input],
  });
}

describe('settleCouncilCall', () => {
  it('writes a succeeded Council (seats, quorum, synthesis) as the call’s ok result, once however often it runs', async () => {
    const c = await startScriptedCouncil(h.client, h.taskQueue, {
      workspace: ws,
      script: {
        replies: [],
        threads: [
          synthesisThread('Agreed: src/range.js:3 loops one past n.'),
          seatThread('correctness-review', 1, [validReport('src/range.js', 3, 'off by one')]),
          seatThread('security-review', 1, [validReport('src/range.js', 1, 'unbounded n')]),
          seatThread('tests-review', 1, [validReport('src/range.js', 1, 'untested')]),
        ],
      },
    });
    const result = (await c.result()) as CouncilResult;
    await c.closeProvider();
    const p = await plannedCall();
    const input: SettleCouncilCallInput = { ...p, turn: 0, step: 0, runId: c.runId, result };
    const first = await settle(input, `${p.sessionId}-1`);
    expect(first).toMatchObject({ outcome: 'ok', status: 'ok' });
    const row = await h.store.getToolCall(p.sessionId, p.rowId);
    expect(row).toMatchObject({ status: 'completed', outcome: 'ok', errorCode: null });
    expect(row!.output).toContain(`council ${c.runId}: succeeded (ok) · 3 valid reports, quorum 2`);
    expect(row!.output).toContain('seat 2/3 security-review: completed, report valid');
    expect(row!.output).toContain('Agreed: src/range.js:3 loops one past n.');
    expect(first.outputBytes).toBe(Buffer.byteLength(row!.output!));
    // A second run (a retried activity) finds the committed result: nothing new is written.
    const again = await settle(input, `${p.sessionId}-2`);
    expect(again).toEqual(first);
    const completed = (await h.store.listEvents(p.sessionId, 0)).filter((e) => e.type === EV.toolCompleted);
    expect(completed).toHaveLength(1);
  }, 60_000);

  it('writes a failed Council as an error result with its code', async () => {
    const p = await plannedCall();
    const r = await settle(
      {
        ...p,
        turn: 0,
        step: 0,
        runId: 'cr_nosuchrun0',
        failure: { code: 'council_quorum_missed', message: '1/2 valid' },
      },
      p.sessionId,
    );
    expect(r).toMatchObject({ outcome: 'error', status: 'failed', errorCode: 'council_quorum_missed' });
    const row = await h.store.getToolCall(p.sessionId, p.rowId);
    expect(row!.output).toBe('council cr_nosuchrun0 failed: council_quorum_missed: 1/2 valid');
  }, 60_000);
});
