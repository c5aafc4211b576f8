import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { findReceipts } from '../../activities/goal/receipt-lookup.js';
import { runBackground, runBg } from '../../activities/tools/bg/index.js';
import { newSessionId } from '../../client/session-start.js';
import { checkProblems, evidenceProblem } from '../../core/goal/check.js';
import { createHarness, type Harness } from '../helpers/harness.js';

/**
 * Issue 26 items 5–6, the background side: a remote observer's receipt is
 * one run however often it is read, and it can own a criterion's check —
 * found in the task's own settled status even when the model never read
 * it with `bg`. Real background runs in a temp workspace, the real store.
 */
let h: Harness;
const dirs: string[] = [];

beforeAll(async () => {
  h = await createHarness({ address: inject('temporalAddress') });
}, 120_000);

afterAll(async () => {
  await h?.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function workspace(): string {
  const d = mkdtempSync(join(tmpdir(), 'zuno-observer-receipts-'));
  dirs.push(d);
  return d;
}

async function session(ws: string): Promise<string> {
  const sessionId = newSessionId();
  const now = Date.now();
  await h.store.upsertSession({
    id: sessionId,
    workflowId: `session/${sessionId}`,
    workspace: ws,
    status: 'running',
    provider: 'p',
    model: 'm',
    createdAtMs: now,
    updatedAtMs: now,
  });
  return sessionId;
}

/** Stores a tool-call row at (turn, step, position) with `result` as its data. */
async function row(sessionId: string, at: [number, number, number], tool: string, result: Record<string, unknown>) {
  const [turn, step, position] = at;
  const now = Date.now();
  await h.store.upsertToolCall({
    id: `tc_${turn}_${step}_${position}`,
    sessionId,
    turn,
    step,
    position,
    callId: `call_${turn}_${step}_${position}`,
    tool,
    argsJson: '{}',
    status: 'completed',
    outcome: 'ok',
    output: '',
    result,
    startedAtMs: now,
    endedAtMs: now,
  });
}

const CHECK = { id: 'cr_1', check: 'sh ci/watch' };

describe('a remote observer owns a check', () => {
  it('its settled receipt is found from its status file alone, read twice it is still one run, and it satisfies the check', async () => {
    const ws = workspace();
    const sessionId = await session(ws);
    const done = await runBackground(
      { command: 'sh ci/watch', background: true, backgroundPurpose: 'remoteObserver' },
      { workspace: ws, sessionId, rowId: 'tc_0_0_0', callId: 'call_watch', taskID: 'bg_0_0_0' },
    );
    // `sh ci/watch` does not exist: the run fails; a passing one is below.
    expect(done.receipt.verdict).toBe('failed');
    const failedId = done.receipt.id;

    // Never read with bg: found in the task's status file, judged (it failed), not "not a receipt".
    const fromStatus = await findReceipts(h.store, sessionId, [failedId], ws);
    expect(fromStatus[failedId]).toMatchObject({ found: true, matches: 1, command: 'sh ci/watch', verdict: 'failed' });
    expect(await findReceipts(h.store, sessionId, [failedId])).toEqual({ [failedId]: { found: false } });

    // A passing observer, read twice by the model: two rows copy its receipt, one run.
    mkdirSync(join(ws, 'ci'));
    writeFileSync(join(ws, 'ci', 'watch'), 'echo green\n');
    const ok = await runBackground(
      { command: 'sh ci/watch', background: true, backgroundPurpose: 'remoteObserver' },
      { workspace: ws, sessionId, rowId: 'tc_1_0_0', callId: 'call_watch', taskID: 'bg_1_0_0' },
    );
    expect(ok.receipt).toMatchObject({ verdict: 'passed', authority: 'authoritative' });
    const ctx = { workspace: ws, sessionId, rowId: 'tc_1_1_0', callId: 'call_read' };
    for (const position of [0, 1]) {
      const read = await runBg({ action: 'output', taskID: 'bg_1_0_0' }, { ...ctx, rowId: `tc_1_1_${position}` });
      await row(sessionId, [1, 1, position], 'bg', read.data as Record<string, unknown>);
    }
    const found = await findReceipts(h.store, sessionId, [ok.receipt.id], ws);
    expect(found[ok.receipt.id]).toMatchObject({ found: true, matches: 1, command: 'sh ci/watch', verdict: 'passed' });
    expect(evidenceProblem(CHECK, ok.receipt.id, found[ok.receipt.id])).toBeNull();
    // Another check: not from it.
    expect(evidenceProblem({ id: 'cr_1', check: 'bash ci.sh' }, ok.receipt.id, found[ok.receipt.id])).toMatchObject({
      code: 'evidence_not_from_check',
    });

    // A file written after the observer started makes it stale.
    await row(sessionId, [2, 0, 0], 'write', { writtenPaths: ['src/app.ts'] });
    const stale = await findReceipts(h.store, sessionId, [ok.receipt.id], ws);
    expect(stale[ok.receipt.id]).toMatchObject({ writtenAfter: ['src/app.ts'] });
    expect(evidenceProblem(CHECK, ok.receipt.id, stale[ok.receipt.id])).toMatchObject({ code: 'evidence_stale' });
  }, 60_000);
});

describe('an owned check runs at the workspace root (issue 26 review)', () => {
  it('a passing receipt of the same command run in another workdir is not from the check', async () => {
    const ws = workspace();
    const sessionId = await session(ws);
    const receipt = (id: string) => ({ id, command: 'bash ci.sh', verdict: 'passed', authority: 'authoritative' });
    const cases: [string, Record<string, unknown>, string | undefined][] = [
      ['rcp_sub', { command: 'bash ci.sh', workdir: 'sub' }, 'sub'],
      ['rcp_root_dot', { command: 'bash ci.sh', workdir: '.' }, undefined],
      ['rcp_root_abs', { command: 'bash ci.sh', workdir: ws }, undefined],
      ['rcp_root', { command: 'bash ci.sh' }, undefined],
    ];
    let position = 0;
    for (const [id, args] of cases) {
      const now = Date.now();
      await h.store.upsertToolCall({
        id: `tc_0_0_${position}`,
        sessionId,
        turn: 0,
        step: 0,
        position: position++,
        callId: `call_${id}`,
        tool: 'shell',
        argsJson: JSON.stringify(args),
        status: 'completed',
        outcome: 'ok',
        output: '',
        result: { receipt: receipt(id) },
        startedAtMs: now,
        endedAtMs: now,
      });
    }
    const found = await findReceipts(
      h.store,
      sessionId,
      cases.map(([id]) => id),
      ws,
    );
    for (const [id, , workdir] of cases) {
      expect(found[id]?.workdir, id).toBe(workdir);
      const problem = evidenceProblem({ id: 'cr_1', check: 'bash ci.sh' }, id, found[id]);
      if (workdir === undefined) expect(problem, id).toBeNull();
      else
        expect(problem).toMatchObject({ code: 'evidence_not_from_check', text: expect.stringContaining('ran in sub') });
      // A criterion without a check is judged as before: where it ran does not matter.
      expect(evidenceProblem({ id: 'cr_2' }, id, found[id]), id).toBeNull();
    }
  }, 60_000);

  it('a check holding a line feed or an escape sequence is refused; a tab is white space', () => {
    expect(checkProblems('bash ci.sh\n\u001b[2J', '--check')).toEqual([
      expect.stringContaining('holds a control character'),
    ]);
    expect(checkProblems('bash ci.sh\u2028x', '--check')).toHaveLength(1);
    expect(checkProblems('bash\tci.sh', '--check')).toEqual([]);
  });
});
