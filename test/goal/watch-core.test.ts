import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openProjectionStore } from '../../activities/projection/open.js';
import type { SessionRow } from '../../activities/projection/index.js';
import type { TemporalContext } from '../../client/context.js';
import { admitInput } from '../../client/session-admit.js';
import type { SessionMeta } from '../../core/session/meta.js';
import { goalWatchInput } from '../../client/goal-watch-input.js';
import { watchLines, waitingWatchLine } from '../../client/commands/goal-watch-view.js';
import { ZunoError } from '../../core/errors.js';
import type { GoalSnapshot } from '../../core/goal/contract.js';
import {
  evaluateWatch,
  jsonPathKeys,
  parseWatchCondition,
  watchGapMs,
  watchReportText,
  type WatchCondition,
} from '../../core/goal/watch.js';
import { applyGoalUpdate } from '../../workflows/goal-update.js';
import { goalStatusLine } from '../../workflows/goal-status-line.js';

/** Issue 31 item 4: the release watch's pure parts — the `--until` language, judging a response, the views. */
describe('watch conditions', () => {
  it('parses status, regex and json conditions and names what is wrong', () => {
    expect(parseWatchCondition('status=200')).toEqual({ kind: 'status', status: 200 });
    expect(parseWatchCondition('regex:v2\\.\\d+')).toEqual({ kind: 'regex', pattern: 'v2\\.\\d+' });
    expect(parseWatchCondition('json:dist-tags.latest=2.0.0')).toEqual({
      kind: 'json',
      path: 'dist-tags.latest',
      equals: '2.0.0',
    });
    expect(parseWatchCondition('json:versions["2.0.0"]')).toEqual({ kind: 'json', path: 'versions["2.0.0"]' });
    expect(parseWatchCondition('regex:(')).toMatchObject({ error: expect.stringMatching(/^regex: /) });
    expect(parseWatchCondition('json:')).toMatchObject({ error: expect.stringContaining('is not a path') });
    expect(parseWatchCondition('latest is 2')).toMatchObject({ error: expect.stringContaining('status=CODE') });
  });

  it('reads dotted and bracketed JSON paths', () => {
    expect(jsonPathKeys('dist-tags.latest')).toEqual(['dist-tags', 'latest']);
    expect(jsonPathKeys('versions["2.0.0"].dist')).toEqual(['versions', '2.0.0', 'dist']);
    expect(jsonPathKeys('items[0].name')).toEqual(['items', '0', 'name']);
    expect(jsonPathKeys('a..b')).toBeNull();
    expect(jsonPathKeys('')).toBeNull();
  });

  it('judges a response: status, regex match, JSON value with and without equals', () => {
    const json = (latest: string) => ({ status: 200, body: JSON.stringify({ 'dist-tags': { latest } }) });
    const latest: WatchCondition = { kind: 'json', path: 'dist-tags.latest', equals: '2.0.0' };
    expect(evaluateWatch(latest, json('1.0.0'))).toEqual({ matched: false, value: '1.0.0' });
    expect(evaluateWatch(latest, json('2.0.0'))).toEqual({ matched: true, value: '2.0.0' });
    expect(evaluateWatch({ kind: 'json', path: 'dist-tags.next' }, json('2.0.0'))).toEqual({ matched: false });
    expect(evaluateWatch(latest, { status: 200, body: '<html>' })).toMatchObject({
      matched: false,
      error: 'the body is not JSON',
    });
    expect(evaluateWatch(latest, { status: 404, body: '{}' })).toEqual({ matched: false });
    expect(evaluateWatch({ kind: 'status', status: 404 }, { status: 404, body: '' })).toMatchObject({ matched: true });
    expect(evaluateWatch({ kind: 'regex', pattern: 'v2\\.\\d+' }, { status: 200, body: 'out: v2.3 now' })).toEqual({
      matched: true,
      value: 'v2.3',
    });
  });

  it('spaces checks out after failures, never below every, at most 30 min', () => {
    expect(watchGapMs(60_000, 0)).toBe(60_000);
    expect(watchGapMs(60_000, 2)).toBe(240_000);
    expect(watchGapMs(60_000, 20)).toBe(30 * 60_000);
    expect(watchGapMs(3_600_000, 3)).toBe(3_600_000);
  });
});

describe('goal start --watch', () => {
  it('builds the watch and the criterion it owns; the URL shown without its query', () => {
    const w = goalWatchInput({
      watch: 'https://registry.example/pkg?key=s3cret',
      until: 'json:dist-tags.latest=2.0.0',
      every: '30s',
    });
    expect(w!.watch).toMatchObject({ everyMs: 30_000, timeoutMs: 24 * 3_600_000 });
    expect(w!.criterion).toEqual({
      text: 'https://registry.example/pkg shows json dist-tags.latest = 2.0.0',
      needsEvidence: true,
      watch: true,
    });
    expect(goalWatchInput({})).toBeUndefined();
  });

  it('refuses what it cannot watch, naming the flag', () => {
    const err = (f: Parameters<typeof goalWatchInput>[0]) => {
      try {
        goalWatchInput(f);
      } catch (e) {
        return e as ZunoError;
      }
      throw new Error('not refused');
    };
    expect(err({ until: 'status=200' })).toMatchObject({ code: 'usage_error', message: '--until needs --watch URL' });
    expect(err({ watch: 'https://x.example/' })).toMatchObject({ code: 'usage_error' });
    const bad = err({ watch: 'ftp://x.example/', until: 'nope', every: '0s', watchTimeout: '90d' });
    expect(bad.code).toBe('input_invalid');
    expect(bad.message).toContain('--watch: only http and https');
    expect(bad.message).toContain('--until: expected status=CODE');
    expect(bad.message).toContain('--every:');
    expect(bad.message).toContain('--watch-timeout:');
    expect(err({ watch: 'https://u:p@x.example/', until: 'status=200' }).message).toContain('credentials');
  });
});

function watchedGoal(): GoalSnapshot {
  return {
    goalId: 'goal_w',
    sessionId: 'ses_w',
    objective: 'bump pkg',
    revision: 2,
    state: { status: 'waiting_watch' },
    budgets: {},
    spent: { tokens: 0, unmeasuredRequests: 0, toolCalls: 0, turns: 0 },
    criteria: [{ id: 'cr_1', text: 'pkg 2 is out', needsEvidence: true, watch: true, status: 'pending' }],
    progress: { fingerprint: null, repeats: 0 },
    createdAtMs: Date.UTC(2026, 11, 6, 14, 0),
    updatedAtMs: Date.UTC(2026, 11, 6, 14, 0),
    watch: {
      spec: {
        url: 'https://registry.example/pkg?key=s3cret',
        until: { kind: 'json', path: 'dist-tags.latest', equals: '2.0.0' },
        everyMs: 300_000,
        timeoutMs: 86_400_000,
      },
      attempts: 3,
      failures: 0,
      nextCheckAtMs: Date.UTC(2026, 11, 6, 14, 5),
      last: { atMs: Date.UTC(2026, 11, 6, 14, 0), status: 200 },
    },
  };
}

describe('a waiting watch as people see it', () => {
  it('the current details and goal show say what is watched and when the next check runs, without the query', () => {
    const s = watchedGoal();
    const details = goalStatusLine(s, { turnRunning: false, nowMs: s.createdAtMs });
    expect(details).toBe(
      'waiting for https://registry.example/pkg (next check 14:05 UTC) · 3 checks · last: status 200',
    );
    expect(waitingWatchLine(s, s.createdAtMs)).toBe(
      'waiting for https://registry.example/pkg (next check 2026-12-06 14:05 UTC)',
    );
    // Past the stored next check (a check that saw nothing new is not stored): the interval instead.
    expect(waitingWatchLine(s, s.createdAtMs + 600_000)).toBe(
      'waiting for https://registry.example/pkg (a check every 5m)',
    );
    const lines = watchLines(s).join('\n');
    expect(lines).toContain('https://registry.example/pkg until json dist-tags.latest = 2.0.0 · every 5m');
    expect(lines).not.toContain('s3cret');
  });

  it('a watch criterion is settled only by the report, never by a tool call', () => {
    const s = { ...watchedGoal(), state: { status: 'active' as const } };
    const out = applyGoalUpdate(
      s,
      { expectedRevision: 2, settle: [{ id: 'cr_1', status: 'satisfied', receiptId: 'rcp_1' }], receipts: {}, turn: 1 },
      s.updatedAtMs,
    );
    expect(out.result).toMatchObject({ ok: false });
    expect(JSON.stringify(out.result)).toContain('owned by the release watch');
  });

  it('the report reads as evidence, and a timed-out one says it settles nothing', () => {
    const base = { reportId: 'wr_g', url: 'https://r.example/pkg', until: 'status 200', atMs: 0, attempts: 4 };
    expect(watchReportText({ ...base, outcome: 'matched', value: '200' })).toContain('satisfied by this report');
    expect(watchReportText({ ...base, outcome: 'timed_out', lastError: 'network_connect_failed' })).toContain(
      'not satisfied',
    );
  });
});

describe('a watched goal’s session before its watch reports', () => {
  it('takes no prompt: zuno run --session (or a surface) is refused naming the goal, and nothing starts', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'zuno-watch-admit-'));
    const store = await openProjectionStore({ zunoDir: dir });
    try {
      const s = watchedGoal();
      await store.upsertGoal({ id: s.goalId, sessionId: s.sessionId, workflowId: `goal/${s.goalId}`, snapshot: s });
      const row = { id: s.sessionId } as SessionRow;
      // No Temporal is reached before the refusal: the context is never used.
      const refused = await admitInput(store, {} as TemporalContext, {} as SessionMeta, 'go now', false, row).catch(
        (e: unknown) => e as ZunoError,
      );
      expect(refused).toMatchObject({ code: 'session_not_started' });
      expect((refused as ZunoError).message).toContain(`belongs to goal ${s.goalId}, which waits on its release watch`);
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
