import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultPayloadConverter } from '@temporalio/common';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { EV } from '../../core/events.js';
import type { GoalSnapshot } from '../../core/goal/contract.js';
import type { GoalState } from '../../core/goal/status.js';
import type { SessionState } from '../../core/session/state.js';
import { submitInput } from '../../client/session-start.js';
import type { Harness } from '../helpers/harness.js';
import { startTimeSkippingServer, type TimeSkippingServer } from '../helpers/time-skipping.js';

/**
 * The Goal's timers on the time-skipping test server (test/helpers/time-skipping.ts):
 * a backoff of minutes, a peer's Retry-After, a time budget of hours — each in
 * a few seconds of wall time — and what `waiting_background` can and cannot
 * show there.
 *
 * Each test has a server of its own: a server's clock only moves forward (a
 * goal started after a skip would measure its time budget from the client's
 * clock, behind the server's), and an activity left behind by one test would
 * lock the clock of every test after it.
 */
const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

let ts: TimeSkippingServer | undefined;
let h: Harness | undefined;
/** Shared by the tests' harnesses, one after another: the workflow bundle is built once; the projection (ids never collide) too. */
let stateDir: string;
const cleanups: (() => Promise<unknown>)[] = [];
beforeAll(() => {
  stateDir = mkdtempSync(join(tmpdir(), 'zuno-goal-timers-state-'));
});
afterAll(() => rmSync(stateDir, { recursive: true, force: true }));
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
  await h?.close();
  await ts?.teardown();
  h = undefined;
  ts = undefined;
});

async function fresh(): Promise<{ ts: TimeSkippingServer; h: Harness; workspace: string }> {
  ts = await startTimeSkippingServer();
  h = await ts.harness({ stateDir });
  const workspace = mkdtempSync(join(tmpdir(), 'zuno-goal-timers-'));
  cleanups.push(async () => rmSync(workspace, { recursive: true, force: true }));
  return { ts, h, workspace };
}

/** The `goal` query. */
function goalOf(s: { ts: TimeSkippingServer }, workflowId: string): Promise<GoalSnapshot> {
  return s.ts.client.workflow.getHandle(workflowId).query<GoalSnapshot>('goal');
}

/**
 * Skips server time `step` at a time (`env.sleep`: skipped while no activity
 * is in flight, real speed while one is) until `done` holds; at most `max` of
 * server time in all.
 */
async function skipUntil(
  s: { ts: TimeSkippingServer },
  done: () => Promise<boolean>,
  step: number,
  max: number,
): Promise<void> {
  for (let skipped = 0; !(await done()); skipped += step) {
    if (skipped > max) throw new Error(`not reached within ${max} ms of server time`);
    await s.ts.env.sleep(step);
  }
}

/** Every snapshot the goal recorded (`recordGoal` inputs, in order), read from its history. */
async function recorded(s: { ts: TimeSkippingServer }, workflowId: string): Promise<GoalSnapshot[]> {
  const history = await s.ts.client.workflow.getHandle(workflowId).fetchHistory();
  const out: GoalSnapshot[] = [];
  for (const e of history.events ?? []) {
    const a = e.activityTaskScheduledEventAttributes;
    if (a?.activityType?.name !== 'recordGoal') continue;
    const input = defaultPayloadConverter.fromPayload<{ snapshot: GoalSnapshot }>(a.input!.payloads![0]!);
    out.push(input.snapshot);
  }
  return out;
}

type Backoff = Extract<GoalState, { status: 'backoff' }>;

/** The backoffs among recorded snapshots, one per revision, with the delay each one waits. */
function backoffsOf(snaps: GoalSnapshot[]): (Backoff & { delayMs: number; revision: number })[] {
  const seen = new Set<number>();
  const out: (Backoff & { delayMs: number; revision: number })[] = [];
  for (const s of snaps) {
    if (s.state.status !== 'backoff' || seen.has(s.revision)) continue;
    seen.add(s.revision);
    out.push({ ...s.state, delayMs: s.state.untilMs - s.updatedAtMs, revision: s.revision });
  }
  return out;
}

/** How many activities of this type the workflow has scheduled. */
async function activityCount(s: { ts: TimeSkippingServer }, workflowId: string, type: string): Promise<number> {
  const history = await s.ts.client.workflow.getHandle(workflowId).fetchHistory();
  return (history.events ?? []).filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === type)
    .length;
}

/** The workflow time between the goal's start and its last history event, ms (server clock). */
async function workflowTimeMs(s: { ts: TimeSkippingServer }, workflowId: string): Promise<number> {
  const events = (await s.ts.client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  const at = (i: number) => {
    const t = events[i]!.eventTime!;
    return Number(t.seconds) * 1000 + Math.floor((t.nanos ?? 0) / 1e6);
  };
  return at(events.length - 1) - at(0);
}

const completeAt = (revision: number, id: string) => ({
  toolCalls: [{ id, name: 'goal_update', arguments: { expected_revision: revision, complete: true } }],
});

describe('a backoff of minutes (GL5)', () => {
  it('seven provider outages in a row back off 5 s·2^(n−1) ±20 %, reach minutes, then the goal continues and completes', async () => {
    const s = await fresh();
    const t0 = Date.now();
    // Every turn's model step fails 3 times (the provider's own retries), 7 turns in a row; the 8th completes.
    // Each failure and each wake moves the revision: 1 + 2·7 = 15 when the 8th turn runs.
    const g = await s.h.startScriptedGoal({
      workspace: s.workspace,
      prompt: 'Keep the release pipeline green',
      script: {
        replies: [{ fault: { status: 503, times: 21 }, ...completeAt(15, 'call_done') }, { text: 'Done.' }],
      },
    });
    cleanups.push(() => g.closeProvider());

    // Skip server time until the sixth backoff: 160 s ±20 %.
    let sixth: GoalSnapshot | undefined;
    await skipUntil(
      s,
      async () => {
        const q = await goalOf(s, g.workflowId);
        if (q.state.status === 'backoff' && q.state.attempt >= 6) sixth = q;
        return sixth !== undefined;
      },
      30 * SECOND,
      30 * MINUTE,
    );
    const st = sixth!.state as Backoff;
    expect(st).toMatchObject({ status: 'backoff', attempt: 6, cause: 'provider_unavailable' });
    expect(st.untilMs - sixth!.updatedAtMs).toBeGreaterThanOrEqual(0.8 * 160 * SECOND);
    expect(st.untilMs - sixth!.updatedAtMs).toBeLessThanOrEqual(1.2 * 160 * SECOND);
    // The five backoffs before it (at least 0.8 · 155 s) passed in workflow time.
    expect(sixth!.updatedAtMs - sixth!.createdAtMs).toBeGreaterThanOrEqual(0.8 * 155 * SECOND);
    // The projection row and ZunoGoalStatus show it too (once its record ran: nothing skips time meanwhile).
    await vi.waitFor(
      async () => {
        expect((await s.h.store.getGoal(g.goalId))?.snapshot.state).toEqual(st);
        const described = await s.ts.client.workflow.getHandle(g.workflowId).describe();
        expect(described.searchAttributes.ZunoGoalStatus).toEqual(['backoff']);
      },
      { timeout: 45_000, interval: 100 },
    );

    const final = await g.result();
    expect(final.state.status).toBe('completed');
    expect(final.revision).toBe(16);
    expect(final.spent.turns).toBe(8);
    expect(g.providerRequests).toHaveLength(21 + 2);

    const backoffs = backoffsOf(await recorded(s, g.workflowId));
    expect(backoffs.map((b) => b.attempt)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    for (const b of backoffs) {
      const base = 5 * SECOND * 2 ** (b.attempt - 1);
      expect(b.cause).toBe('provider_unavailable');
      expect(b.delayMs).toBeGreaterThanOrEqual(0.8 * base);
      expect(b.delayMs).toBeLessThanOrEqual(1.2 * base);
    }
    const waited = backoffs.reduce((n, b) => n + b.delayMs, 0);
    expect(waited).toBeGreaterThan(0.8 * 635 * SECOND); // over 8 minutes of backoff in all
    expect(await workflowTimeMs(s, g.workflowId)).toBeGreaterThanOrEqual(waited);
    expect(Date.now() - t0).toBeLessThan(waited / 3); // skipped: wall time is a small part of it, even under load
    await g.sessionResult();
  }, 60_000);
});

describe("a peer's Retry-After (GL6)", () => {
  it('is honoured when longer than the local delay (10 min) and truncated to the 15-minute cap (20 min)', async () => {
    const s = await fresh();
    const t0 = Date.now();
    // Turn 1 meets a 429 asking for 10 min; the continuation's first step runs, its second meets 20 min.
    // Revisions: 1 → backoff 2 → active 3 → backoff 4 → active 5.
    const g = await s.h.startScriptedGoal({
      workspace: s.workspace,
      prompt: 'Ship the release notes',
      script: {
        replies: [
          {
            fault: { status: 429, retryAfter: '600' },
            toolCalls: [{ id: 'call_echo', name: 'shell', arguments: { command: 'echo notes' } }],
          },
          { fault: { status: 429, retryAfter: '1200' }, ...completeAt(5, 'call_done') },
          { text: 'Done.' },
        ],
      },
    });
    cleanups.push(() => g.closeProvider());
    const final = await g.result();
    expect(final.state.status).toBe('completed');
    expect(final.revision).toBe(6);

    const backoffs = backoffsOf(await recorded(s, g.workflowId));
    // The local delays would be 5 s and 10 s (±20 %); the peer's wins, and 20 min is cut to the cap.
    expect(backoffs.map((b) => [b.attempt, b.cause, b.delayMs])).toEqual([
      [1, 'provider_rate_limited', 10 * MINUTE],
      [2, 'provider_rate_limited', 15 * MINUTE],
    ]);
    // Each 429 asked for longer than the provider's 180 s recovery window: one request each, no local retry.
    expect(g.providerRequests).toHaveLength(5);
    expect(await workflowTimeMs(s, g.workflowId)).toBeGreaterThanOrEqual(25 * MINUTE);
    expect(Date.now() - t0).toBeLessThan((25 * MINUTE) / 3); // skipped
    await g.sessionResult();
  }, 60_000);
});

describe('a time budget of hours (GL14)', () => {
  it('stops a goal that waits out backoffs with nothing in flight at its deadline: budget_limited time_budget with a notice', async () => {
    const s = await fresh();
    const t0 = Date.now();
    // The provider asks for 10 min after every request; backoffs grow to the 15-minute cap; 3 h pass.
    const g = await s.h.startScriptedGoal({
      workspace: s.workspace,
      prompt: 'Wait for the provider to come back',
      budgets: { timeMs: 3 * HOUR },
      script: { replies: [{ fault: { status: 429, retryAfter: '600', times: 1000 }, text: 'unused' }] },
    });
    cleanups.push(() => g.closeProvider());
    let stopped: GoalSnapshot | undefined;
    await skipUntil(
      s,
      async () => {
        const q = await goalOf(s, g.workflowId);
        if (q.state.status !== 'active' && q.state.status !== 'backoff') stopped = q;
        return stopped !== undefined;
      },
      10 * MINUTE,
      4 * HOUR,
    );
    expect(stopped!.state).toEqual({
      status: 'budget_limited',
      kind: 'time_budget',
      message: 'the Goal ran 3h of its 3h time budget',
    });
    // It stopped at the deadline, not at the end of the backoff it was in (the last one ran from before it).
    const elapsed = stopped!.updatedAtMs - stopped!.createdAtMs;
    expect(elapsed).toBeGreaterThanOrEqual(3 * HOUR);
    expect(elapsed).toBeLessThan(3 * HOUR + MINUTE);
    const backoffs = backoffsOf(await recorded(s, g.workflowId));
    const last = backoffs.at(-1)!;
    expect(last.untilMs).toBeGreaterThan(stopped!.updatedAtMs);
    for (const b of backoffs) {
      expect(b.delayMs).toBeGreaterThanOrEqual(10 * MINUTE); // the peer's 10 min, never shortened
      expect(b.delayMs).toBeLessThanOrEqual(15 * MINUTE);
    }
    // One request per turn, one turn per backoff; nothing ran after the stop.
    expect(stopped!.spent.turns).toBe(backoffs.length);
    expect(g.providerRequests).toHaveLength(backoffs.length);

    // The row and the typed notice, once the stop's record ran.
    await vi.waitFor(
      async () => {
        expect((await s.h.store.getGoal(g.goalId))?.snapshot.state).toEqual(stopped!.state);
        const notices = await s.h.store.eventsOfType(g.sessionId, EV.notice);
        expect(notices.map((e) => e.data)).toEqual([
          { code: 'budget.time_budget', message: 'the Goal ran 3h of its 3h time budget', goalId: g.goalId },
        ]);
      },
      { timeout: 45_000, interval: 100 },
    );
    expect(Date.now() - t0).toBeLessThan(HOUR); // the 3 h budget clock was skipped

    await g.goal.executeUpdate('goalControl', { args: [{ commandId: 'cancel-1', action: 'cancel' }] });
    expect((await g.result()).state.status).toBe('cancelled');
    await g.sessionResult();
  }, 60_000);
});

describe('user input during a backoff (GL5)', () => {
  it('wakes the goal early: the turn runs minutes before the backoff deadline, which never fires', async () => {
    const s = await fresh();
    // The anchor turn meets a 429 asking for 10 min; the person's message drives the next turn at once.
    // Revisions: 1 → backoff 2 → active 3 (woken by the user turn) → completed 4.
    const g = await s.h.startScriptedGoal({
      workspace: s.workspace,
      prompt: 'Fix the flaky test',
      script: {
        replies: [
          { fault: { status: 429, retryAfter: '600' }, text: 'unused' },
          completeAt(3, 'call_done'),
          { text: 'Fixed it as you asked.' },
        ],
      },
    });
    cleanups.push(() => g.closeProvider());
    // Nothing awaits a result here: the server's clock runs at real speed.
    await vi.waitFor(async () => expect((await goalOf(s, g.workflowId)).state.status).toBe('backoff'), {
      timeout: 30_000,
      interval: 100,
    });
    const backoff = (await goalOf(s, g.workflowId)).state as Backoff;
    expect(backoff.untilMs - Date.now()).toBeGreaterThan(9 * MINUTE);
    expect(g.providerRequests).toHaveLength(1);

    await submitInput(s.ts.client, g.sessionId, { text: 'Look at the flaky test now, please' });
    const final = await g.result();
    expect(final.state.status).toBe('completed');
    expect(final.revision).toBe(4);
    expect(final.spent.turns).toBe(2);
    expect(g.providerRequests).toHaveLength(3);
    expect(JSON.stringify(g.providerRequests[1])).toContain('Look at the flaky test now, please');

    const snaps = await recorded(s, g.workflowId);
    const woke = snaps.find((x) => x.revision === 3)!;
    expect(woke.state).toEqual({ status: 'active' });
    expect(backoff.untilMs - woke.updatedAtMs).toBeGreaterThan(9 * MINUTE);
    // The backoff's timer was cancelled, never fired; the goal's whole life took far less than the backoff.
    const events = (await s.ts.client.workflow.getHandle(g.workflowId).fetchHistory()).events ?? [];
    expect(events.some((e) => e.timerStartedEventAttributes)).toBe(true);
    expect(events.some((e) => e.timerFiredEventAttributes)).toBe(false);
    expect(await workflowTimeMs(s, g.workflowId)).toBeLessThan(10 * MINUTE);
    await g.sessionResult();
  }, 60_000);
});

/**
 * `waiting_background` for an hour (GL26, SH9). A remote observer's wait is
 * held by the session workflow — a start, then timers and short polls
 * (workflows/observer.ts) — so no activity is in flight while it waits and
 * the server skips the hour. The observer itself is a real process that
 * waits for a file; the test writes it once the hour has passed.
 */
describe('waiting_background (GL26) on the time-skipping server', () => {
  it('waits an hour without continuing while the observer lives, and continues on its report', async () => {
    const s = await fresh();
    // Revisions: 1 → waiting_background 2 → completed 3 (by the report turn).
    const g = await s.h.startScriptedGoal({
      workspace: s.workspace,
      prompt: 'Get CI green',
      script: {
        replies: [
          {
            toolCalls: [
              {
                id: 'call_ci',
                name: 'shell',
                arguments: {
                  command: 'until [ -f ci-done ]; do sleep 0.1; done; echo ci passed',
                  background: true,
                  backgroundPurpose: 'remoteObserver',
                },
              },
            ],
          },
          { text: 'CI started; waiting for its report.' },
          completeAt(2, 'call_done'),
          { text: 'CI passed; the goal is complete.' },
        ],
      },
    });
    cleanups.push(() => g.closeProvider());
    await vi.waitFor(async () => expect((await goalOf(s, g.workflowId)).state.status).toBe('waiting_background'), {
      timeout: 30_000,
      interval: 100,
    });
    const waiting = await goalOf(s, g.workflowId);
    expect(waiting.state).toEqual({ status: 'waiting_background', taskIds: [expect.stringMatching(/^bg_/)] });
    const taskIds = (waiting.state as Extract<GoalState, { status: 'waiting_background' }>).taskIds;
    expect(g.providerRequests).toHaveLength(2);

    // An hour of server time passes in seconds: the observer is polled (a timer, then a short activity), never awaited by one.
    const from = await s.ts.env.currentTimeMs();
    await skipUntil(s, async () => (await s.ts.env.currentTimeMs()) - from >= HOUR, 5 * MINUTE, 2 * HOUR);
    // Meanwhile nothing continued: the same status, no further provider request, the session waits too.
    expect((await goalOf(s, g.workflowId)).state).toEqual(waiting.state);
    expect(g.providerRequests).toHaveLength(2);
    const session = await s.ts.client.workflow.getHandle(`session/${g.sessionId}`).query<SessionState>('state');
    expect(session).toMatchObject({ phase: 'waiting_background', background: taskIds });
    // The hour was spent polling the observer: its polls back off to one every 5 minutes (1 s, 1 s, 2 s, 2 s, … 256 s, 256 s,
    // then 300 s: 18 polls in the first 17 minutes, ~9 in the rest of the hour).
    const polls = await activityCount(s, `session/${g.sessionId}`, 'bgObserverPoll');
    expect(polls).toBeGreaterThanOrEqual(24);
    expect(polls).toBeLessThanOrEqual(32);

    writeFileSync(join(s.workspace, 'ci-done'), '');
    // The next poll (at most a minute of server time away) reads the report; the turn it wakes completes the goal.
    await skipUntil(
      s,
      async () => (await goalOf(s, g.workflowId)).state.status !== 'waiting_background',
      10 * SECOND,
      5 * MINUTE,
    );
    const final = await g.result();
    expect(final.state.status).toBe('completed');
    expect(final.revision).toBe(3);
    expect(g.providerRequests).toHaveLength(4);
    // The report turn's request carried the observer's report.
    expect(JSON.stringify(g.providerRequests[2])).toContain('ci passed');
    const started = await s.h.store.eventsOfType(g.sessionId, EV.turnStarted);
    expect(started.map((e) => (e.data as { trigger: string }).trigger)).toEqual(['user_input', 'background_report']);
    await g.sessionResult();
    // The observer ended: the clock skips again.
    expect(await s.ts.timeSkips()).toBe(true);
  }, 60_000);
});
