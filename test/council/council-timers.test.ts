import { rmSync } from 'node:fs';
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { CouncilResult } from '../../core/council/contract.js';
import { BALANCED_REVIEW } from '../../core/council/preset.js';
import type { Harness } from '../helpers/harness.js';
import { startTimeSkippingServer, type TimeSkippingServer } from '../helpers/time-skipping.js';
import {
  activitiesOf,
  childrenOf,
  firstUserText,
  gitWorkspace,
  NEVER_FINISHES,
  seatThread,
  startScriptedCouncil,
  synthesisThread,
  validReport,
} from './helpers.js';

/**
 * The Council's deadline on the time-skipping test server
 * (test/helpers/time-skipping.ts): the 540 000 ms seat deadline and the
 * 60 000 ms synthesis reserve in a few seconds of wall time.
 *
 * A seat that "never finishes" must do so WITHOUT an activity in flight (the
 * server does not skip time while one runs): its provider answers 401, so its
 * child session pauses (`provider_auth`) and waits for a `resume` that never
 * comes — a workflow condition, no activity, no timer. A permission `ask` would
 * wait the same way, but the seats are read-only and their tools are `Safe`.
 *
 * Each test has a server of its own (a server's clock only moves forward, and
 * an activity one test leaves behind would lock the clock for the next).
 */
let ts: TimeSkippingServer | undefined;
let h: Harness | undefined;
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
  await h?.close();
  await ts?.teardown();
  h = undefined;
  ts = undefined;
});

async function fresh(): Promise<{ ts: TimeSkippingServer; h: Harness; workspace: string }> {
  ts = await startTimeSkippingServer();
  h = await ts.harness();
  const workspace = gitWorkspace();
  cleanups.push(async () => rmSync(workspace, { recursive: true, force: true }));
  return { ts, h, workspace };
}

/** The Council's typed failure: its code and the CouncilResult in its details. */
async function failureOf(p: Promise<unknown>): Promise<{ type: string; result: CouncilResult }> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(WorkflowFailedError);
  const cause = (err as WorkflowFailedError).cause;
  expect(cause).toBeInstanceOf(ApplicationFailure);
  const f = cause as ApplicationFailure;
  return { type: f.type!, result: f.details![0] as CouncilResult };
}

const SYNTHESIS = 'Agreed: src/range.js:3 loops one past n (correctness, tests).';

describe('the seat deadline (DC23, DC26)', () => {
  it('a seat that never finishes is settled timed_out at 540 000 ms, its child asked to cancel, and the synthesis runs inside the 60 000 ms reserve', async () => {
    const s = await fresh();
    const t0 = Date.now();
    const c = await startScriptedCouncil(s.ts.client, s.h.taskQueue, {
      workspace: s.workspace,
      script: {
        replies: [],
        threads: [
          synthesisThread(SYNTHESIS),
          seatThread('correctness-review', 1, [validReport('src/range.js', 3, 'i <= n yields n+1 items')]),
          seatThread('security-review', 1, NEVER_FINISHES),
          seatThread('tests-review', 1, [validReport('src/range.js', 1, 'no test covers range(n)')]),
        ],
      },
    });
    cleanups.push(() => c.closeProvider());
    const r = await c.result();
    expect(r.status).toBe('succeeded');
    expect(r.quorum).toEqual({ needed: 2, valid: 2 });
    const [one, two, three] = r.seats;
    expect(one).toMatchObject({ agent: 'correctness-review', status: 'completed', validity: 'valid', findings: 1 });
    expect(three).toMatchObject({ agent: 'tests-review', status: 'completed', validity: 'valid' });
    // DC25/DC26: the seat's wait timed out and the Council asked its child to cancel; identity kept, no failure made up.
    expect(two).toMatchObject({
      agent: 'security-review',
      status: 'timed_out',
      validity: 'missing',
      cancelRequested: true,
    });
    expect(two!.childSessionIds).toHaveLength(1);
    expect(two!.attempts).toHaveLength(1);
    expect(two!.attempts[0]!.code).toBeUndefined();
    expect(one!.usage.requests).toBe(1);
    expect(two!.usage.requests).toBe(0); // its only requests were refused (401): nothing answered
    // The clock: the seats' deadline is 540 000 ms after the start, the whole Council within 600 000 ms.
    expect(r.seatDeadlineMs - r.startedAtMs).toBe(BALANCED_REVIEW.seatDeadlineMs);
    expect(r.deadlineMs - r.startedAtMs).toBe(BALANCED_REVIEW.totalMs);
    expect(r.endedAtMs).toBeGreaterThanOrEqual(r.seatDeadlineMs);
    expect(r.endedAtMs).toBeLessThanOrEqual(r.deadlineMs);
    const acts = await activitiesOf(s.ts.client, c.workflowId);
    const synth = acts.filter((a) => a.type === 'synthesizeCouncil');
    expect(synth).toHaveLength(1);
    expect(synth[0]!.scheduledAtMs).toBeGreaterThanOrEqual(r.seatDeadlineMs);
    expect(synth[0]!.closedAtMs!).toBeLessThanOrEqual(r.deadlineMs);
    expect(r.synthesisChars).toBe(SYNTHESIS.length);
    expect((await s.h.store.getCouncil(c.runId))?.synthesis).toBe(SYNTHESIS);
    // The paused child honoured the cancel request: it closed Cancelled (the session turns it into an interrupt).
    await vi.waitFor(
      async () =>
        expect(
          (await s.ts.client.workflow.getHandle(`session/${two!.childSessionIds[0]}`).describe()).status.name,
        ).toBe('CANCELLED'),
      { timeout: 20_000, interval: 200 },
    );
    // Its row settles too (issue 25 item 3): a seat cancelled at the deadline is not left `running`.
    await vi.waitFor(
      async () =>
        expect((await s.h.store.getSession(two!.childSessionIds[0]!))?.status).toMatch(/^(interrupted|cancelled)$/),
      { timeout: 20_000, interval: 200 },
    );
    // No workflow of this Council is left running: the Council, its seats' children.
    const ids = [c.workflowId, ...r.seats.flatMap((seat) => seat.childSessionIds.map((id) => `session/${id}`))];
    for (const id of ids) expect((await s.ts.client.workflow.getHandle(id).describe()).status.name).not.toBe('RUNNING');
    // Nine minutes of Council time, skipped: the wall clock saw less than the seat deadline itself.
    expect(Date.now() - t0).toBeLessThan(r.seatDeadlineMs - r.startedAtMs);
  }, 90_000);

  it('quorum missed: two seats never finish → a typed council_quorum_missed failure listing every seat, and no synthesis', async () => {
    const s = await fresh();
    const c = await startScriptedCouncil(s.ts.client, s.h.taskQueue, {
      workspace: s.workspace,
      script: {
        replies: [],
        threads: [
          synthesisThread(SYNTHESIS),
          seatThread('correctness-review', 1, [validReport('src/range.js', 3, 'off by one')]),
          seatThread('security-review', 1, NEVER_FINISHES),
          seatThread('tests-review', 1, NEVER_FINISHES),
        ],
      },
    });
    cleanups.push(() => c.closeProvider());
    const f = await failureOf(c.result());
    expect(f.type).toBe('council_quorum_missed');
    expect(f.result.status).toBe('failed');
    expect(f.result.quorum).toEqual({ needed: 2, valid: 1 });
    expect(f.result.seats.map((x) => [x.agent, x.status, x.validity])).toEqual([
      ['correctness-review', 'completed', 'valid'],
      ['security-review', 'timed_out', 'missing'],
      ['tests-review', 'timed_out', 'missing'],
    ]);
    const acts = await activitiesOf(s.ts.client, c.workflowId);
    expect(acts.some((a) => a.type === 'synthesizeCouncil')).toBe(false);
    expect(c.providerRequests.some((r) => firstUserText(r).includes('Council synthesis'))).toBe(false);
    const row = await s.h.store.getCouncil(c.runId);
    expect(row).toMatchObject({ status: 'failed', errorCode: 'council_quorum_missed', synthesis: null });
    expect(row!.seats).toHaveLength(3);
  }, 90_000);
});

describe('retries and settlements (DC25)', () => {
  it('a completed seat with an invalid report retries once, in a new child, with the time left restated; a failed seat (HTTP 400) is never replayed', async () => {
    const s = await fresh();
    const c = await startScriptedCouncil(s.ts.client, s.h.taskQueue, {
      workspace: s.workspace,
      script: {
        replies: [],
        threads: [
          synthesisThread(SYNTHESIS),
          seatThread('correctness-review', 1, [{ text: 'Looks off by one at line 3, I think.' }]),
          seatThread('correctness-review', 2, [validReport('src/range.js', 3, 'i <= n yields n+1 items')]),
          seatThread('security-review', 1, [validReport('src/range.js', 1, 'no input validation of n')]),
          seatThread('tests-review', 1, [{ fault: { status: 400, times: 1000 } }]),
        ],
      },
    });
    cleanups.push(() => c.closeProvider());
    const r = await c.result();
    expect(r.status).toBe('succeeded');
    const [one, two, three] = r.seats;
    expect(one!.attempts.map((a) => [a.status, a.validity])).toEqual([
      ['completed', 'invalid'],
      ['completed', 'valid'],
    ]);
    expect(one!.attempts[0]!.problem).toMatch(/no ```json report block/);
    expect(new Set(one!.childSessionIds).size).toBe(2);
    expect(one).toMatchObject({ status: 'completed', validity: 'valid' });
    expect(one!.usage.requests).toBe(2); // both attempts' usage kept
    expect(two).toMatchObject({ status: 'completed', validity: 'valid' });
    // The failed seat: settled, never replayed — one child, one provider request (400 is not retryable).
    expect(three).toMatchObject({ status: 'failed', validity: 'missing' });
    expect(three!.attempts).toHaveLength(1);
    expect(three!.attempts[0]!.code).toBe('provider_bad_request');
    const texts = c.providerRequests.map(firstUserText);
    expect(texts.filter((t) => t.includes('tests-review · attempt'))).toHaveLength(1);
    expect(await childrenOf(s.ts.client, c.workflowId)).toHaveLength(4); // 2 + 1 + 1
    // DC24: each attempt's prompt states the time left and the deadline (ISO and Unix ms), computed before it.
    const first = texts.find((t) => t.includes('correctness-review · attempt 1/2'))!;
    const second = texts.find((t) => t.includes('correctness-review · attempt 2/2'))!;
    const left = (t: string) => Number(/Hard time limit: (\d+) ms remain/.exec(t)![1]);
    expect(left(first)).toBeLessThanOrEqual(540_000);
    expect(left(second)).toBeLessThan(left(first));
    expect(first).toContain(`Deadline: ${new Date(r.seatDeadlineMs).toISOString()} (Unix ms ${r.seatDeadlineMs})`);
    expect(second).toContain(`(Unix ms ${r.seatDeadlineMs})`);
    expect(second).toContain('Your previous attempt ended with a report the Council could not accept');
    expect(first).toContain('.zuno/council/');
  }, 90_000);

  it('a seat whose report is invalid twice stays completed + invalid (two facts), and is not retried a third time', async () => {
    const s = await fresh();
    const bad = { text: '```json\n{"summary": "x", "findings": [{"file": "a"}], "unknowns": []}\n```' };
    const c = await startScriptedCouncil(s.ts.client, s.h.taskQueue, {
      workspace: s.workspace,
      script: {
        replies: [],
        threads: [
          synthesisThread(SYNTHESIS),
          seatThread('correctness-review', 1, [bad]),
          seatThread('correctness-review', 2, [bad]),
          seatThread('security-review', 1, [validReport('src/range.js', 1, 'unchecked n')]),
          seatThread('tests-review', 1, [validReport('src/range.js', 1, 'untested')]),
        ],
      },
    });
    cleanups.push(() => c.closeProvider());
    const r = await c.result();
    expect(r.status).toBe('succeeded');
    expect(r.seats[0]).toMatchObject({ status: 'completed', validity: 'invalid' });
    expect(r.seats[0]!.attempts).toHaveLength(2);
    expect(r.seats[0]!.attempts[1]!.problem).toMatch(/does not match the schema: findings\.0/);
    expect(await childrenOf(s.ts.client, c.workflowId)).toHaveLength(4);
  }, 90_000);
});
