import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GoalSnapshot } from '../../core/goal/contract.js';
import type { Harness } from '../helpers/harness.js';
import { startTimeSkippingServer, type TimeSkippingServer } from '../helpers/time-skipping.js';
import { watchedGoal } from '../helpers/watch.js';

/**
 * Issue 31 item 4, Must show: a release-watching Goal on the time-skipping
 * server waits 24 h on a registry that publishes v2 only then — checks on
 * workflow timers, one short fetch each, no provider request and no session
 * while it waits — and wakes exactly once, its first turn reading the typed
 * report and completing on the criterion the watch owns.
 */
const HOUR = 3_600_000;
const EVERY_MS = 10 * 60_000;
/** Checks that see v1 only: 24 h of them. */
const V1_CHECKS = (24 * HOUR) / EVERY_MS;

let ts: TimeSkippingServer;

type HistoryEvent = { eventTime?: { seconds?: unknown; nanos?: number | null } | null };
const eventMs = (e: HistoryEvent) => Number(e.eventTime!.seconds) * 1000 + Math.round((e.eventTime!.nanos ?? 0) / 1e6);
let h: Harness;
let workspace: string;

/** A registry-like server: `/pkg` answers a packument whose `latest` is 1.0.0 for the first `v1Checks` requests. */
function registry(v1Checks: number, onRequest: (n: number) => void): Promise<{ server: Server; url: string }> {
  let n = 0;
  const server = createServer((req, res) => {
    n += 1;
    onRequest(n);
    const latest = n <= v1Checks ? '1.0.0' : '2.0.0';
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ name: 'pkg', 'dist-tags': { latest }, versions: { [latest]: {} } }));
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/pkg?token=secret` }),
    ),
  );
}

beforeAll(async () => {
  ts = await startTimeSkippingServer();
  h = await ts.harness();
  workspace = mkdtempSync(join(tmpdir(), 'zuno-watch-ws-'));
});
afterAll(async () => {
  await h?.close();
  await ts?.teardown();
  if (workspace) rmSync(workspace, { recursive: true, force: true });
});

describe('a release-watching goal on the time-skipping server', () => {
  it('waits 24 h on workflow timers without a provider request, then wakes once and completes on the report', async () => {
    let providerRequestsWhenPublished = -1;
    const requests: unknown[][] = [];
    const reg = await registry(V1_CHECKS, (n) => {
      if (n === V1_CHECKS + 1) providerRequestsWhenPublished = requests[0]?.length ?? -2;
    });
    try {
      const g = await h.startScriptedGoal({
        workspace,
        ...watchedGoal(reg.url, EVERY_MS, 48 * HOUR),
        script: {
          replies: [
            {
              text: 'It is out.',
              toolCalls: [
                { id: 'call_done', name: 'goal_update', arguments: { expected_revision: 2, complete: true } },
              ],
            },
            { text: 'pkg 2.0.0 is out (watch report).' },
          ],
        },
      });
      requests.push(g.providerRequests);
      try {
        const final: GoalSnapshot = await g.result();
        expect(final.state.status).toBe('completed');
        // Woken once: 24 h of v1 checks, then the one that saw 2.0.0 — and no model request before it.
        expect(providerRequestsWhenPublished).toBe(0);
        const w = final.watch!;
        expect(w.attempts).toBe(V1_CHECKS + 1);
        expect(w.sessionStarted).toBe(true);
        expect(w.report).toMatchObject({
          reportId: `wr_${g.goalId}`,
          outcome: 'matched',
          value: '2.0.0',
          attempts: V1_CHECKS + 1,
          until: 'json dist-tags.latest = 2.0.0',
        });
        // The query string (a token) is in no report, summary or prompt.
        expect(w.report!.url).toBe(reg.url.replace(/\?.*$/, ''));
        expect(final.criteria[0]).toMatchObject({
          status: 'satisfied',
          evidence: { receiptId: `wr_${g.goalId}`, callId: 'watch' },
        });
        expect(g.providerRequests).toHaveLength(2);
        const first = JSON.stringify(g.providerRequests[0]);
        expect(first).toContain(`The release watch matched (report wr_${g.goalId})`);
        expect(first).not.toContain('token=secret');
        expect((await g.sessionResult()).status).toBe('completed');

        const history = (await ts.client.workflow.getHandle(g.workflowId).fetchHistory()).events ?? [];
        const probes = history.filter(
          (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'watchProbe',
        ).length;
        expect(probes).toBe(V1_CHECKS + 1);
        const starts = history.filter(
          (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'startGoalSession',
        );
        expect(starts).toHaveLength(1);
        // The wait, in the server's (skipped) time: from the Goal's start to its session's start.
        const waited = eventMs(starts[0]!) - eventMs(history[0]!);
        expect(waited).toBeGreaterThanOrEqual(24 * HOUR);
        const during = history.filter((e) => eventMs(e) <= eventMs(starts[0]!)).length;
        const perHour = during / (waited / HOUR);
        // A figure, not a timing: about 12 events a check (timer, activity, workflow task), 6 checks an hour.
        console.log(
          `release watch: ${during} goal history events over ${(waited / HOUR).toFixed(1)} h: ${perHour.toFixed(1)} per hour`,
        );
        expect(perHour).toBeLessThan(120);
        const statuses = (await h.store.eventsOfType(g.sessionId, 'goal.status')).map(
          (e) => (e.data as { status: string }).status,
        );
        expect(statuses).toEqual(['waiting_watch', 'active', 'completed']);
      } finally {
        await g.closeProvider();
      }
    } finally {
      reg.server.close();
    }
  }, 300_000);

  it('a goal woken by its watch goes on by itself after a first turn that does not complete it', async () => {
    const reg = await registry(1, () => undefined);
    try {
      const g = await h.startScriptedGoal({
        workspace,
        ...watchedGoal(reg.url, 60_000, HOUR),
        script: {
          replies: [
            { text: 'The watch reported; I will finish in the next turn.' },
            {
              toolCalls: [
                { id: 'call_done', name: 'goal_update', arguments: { expected_revision: 2, complete: true } },
              ],
            },
            { text: 'Done.' },
          ],
        },
      });
      try {
        const final = await g.result();
        expect(final.state.status).toBe('completed');
        expect(final.spent.turns).toBe(2); // the anchor turn, then the goal's own continuation
        expect(g.providerRequests).toHaveLength(3);
      } finally {
        await g.closeProvider();
      }
    } finally {
      reg.server.close();
    }
  }, 120_000);
});
