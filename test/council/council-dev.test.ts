import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { WorkflowFailedError } from '@temporalio/client';
import { CancelledFailure } from '@temporalio/common';
import { Worker } from '@temporalio/worker';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { DEFAULT_ACTIVITY_DEFAULTS, type ActivityDefaults } from '../../core/activity-defaults.js';
import type { CouncilResult } from '../../core/council/contract.js';
import { workflowBundlePath } from '../../worker/workflow-bundle.js';
import { TEMPORAL_BIN } from '../helpers/dev-server.js';
import { createHarness } from '../helpers/harness.js';
import { createProcessHarness, useCleanups } from '../helpers/session.js';
import { waitFor, type WorkerProcess } from '../helpers/worker-process.js';
import {
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
 * The Council on the real dev server: its worker SIGKILLed in the middle of
 * a seat (a `zuno worker` child process; the scripted provider runs in this
 * process and outlives it), and the history-replay fixture of the `council`
 * workflow (test/fixtures/histories/council-balanced-review-v1.json, recorded
 * with ZUNO_RECORD_HISTORY=1; test/session/replay.test.ts replays every
 * checked-in fixture too).
 */
const cleanups = useCleanups();
const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'histories');
/** v1: recorded before the seat start record (issue 25); v2: under `patched('zuno-council-seat-start-record-v1')`. */
const FIXTURE_NAMES = ['council-balanced-review-v1', 'council-balanced-review-v2'] as const;

const bundleDir = mkdtempSync(join(tmpdir(), 'zuno-council-bundle-'));
let bundle: string;
beforeAll(async () => {
  bundle = await workflowBundlePath(bundleDir);
  cleanups.unshift(async () => rmSync(bundleDir, { recursive: true, force: true }));
}, 60_000);

/** Short heartbeat timeouts: a dead worker's model step times out within 5 s (it heartbeats every 2 s), a tool within 2 s. */
const FAST_HEARTBEATS: ActivityDefaults = {
  ...DEFAULT_ACTIVITY_DEFAULTS,
  model: { startToCloseTimeoutMs: 120_000, heartbeatTimeoutMs: 5_000 },
  tool: { startToCloseTimeoutMs: 120_000, heartbeatTimeoutMs: 2_000 },
  safeRetry: { ...DEFAULT_ACTIVITY_DEFAULTS.safeRetry, initialIntervalMs: 200 },
};

/** A seat that reads `src/range.js`, then reports (its report reply delayed `delayMs`: a model step in flight). */
function readingSeat(agent: string, claim: string, delayMs?: number) {
  const report = validReport('src/range.js', 3, claim);
  return seatThread(agent, 1, [
    {
      text: 'Reading the change.',
      toolCalls: [{ id: `call_${agent}`, name: 'read', arguments: { path: 'src/range.js' } }],
    },
    delayMs ? { ...report, fault: { delayMs } } : report,
  ]);
}

function within<T>(p: Promise<T>, ms: number, what: () => string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, rej) => (timer = setTimeout(() => rej(new Error(what())), ms)));
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

describe('a worker SIGKILLed mid-seat', () => {
  it('a new worker retries the seat’s model step; every seat settles once, no seat is restarted, and the Council succeeds', async () => {
    const ph = await createProcessHarness('zuno-council-crash', cleanups);
    mkdirSync(join(ph.home, 'cache'), { recursive: true });
    copyFileSync(bundle, join(ph.home, 'cache', basename(bundle)));
    cleanups.unshift(async () => rmSync(ph.home, { recursive: true, force: true }));
    const ws = gitWorkspace();
    cleanups.unshift(async () => rmSync(ws, { recursive: true, force: true }));
    const first: WorkerProcess = ph.spawnWorker();
    const c = await startScriptedCouncil(ph.h.client, ph.h.taskQueue, {
      workspace: ws,
      activityDefaults: FAST_HEARTBEATS,
      script: {
        replies: [],
        threads: [
          synthesisThread('Agreed: src/range.js:3 loops one past n.'),
          readingSeat('correctness-review', 'i <= n yields n+1 items'),
          readingSeat('security-review', 'no bound on n', 4_000),
          readingSeat('tests-review', 'no test of range(n)'),
        ],
      },
    });
    cleanups.unshift(() => c.closeProvider());
    const security = () => c.providerRequests.filter((r) => firstUserText(r).includes('security-review · attempt 1/'));
    // The security seat's second step (after its read) is in flight: its reply is held back 4 s.
    await waitFor(async () => security().length >= 2, 60_000, 'the security seat’s report step');
    await new Promise((r) => setTimeout(r, 300));
    await first.crash();
    const second = ph.spawnWorker();
    const r: CouncilResult = await within(c.result() as Promise<CouncilResult>, 90_000, () => second.stderr());
    expect(r.status).toBe('succeeded');
    expect(r.seats.map((s) => [s.status, s.validity, s.attempts.length])).toEqual([
      ['completed', 'valid', 1],
      ['completed', 'valid', 1],
      ['completed', 'valid', 1],
    ]);
    expect(await childrenOf(ph.h.client, c.workflowId)).toHaveLength(3); // no seat restarted
    // The lost model step was retried by Temporal (same request, same reply), not re-run by the Council.
    expect(security().length).toBeGreaterThanOrEqual(3);
    const seatSession = r.seats[1]!.childSessionIds[0]!;
    const events = (await ph.h.client.workflow.getHandle(`session/${seatSession}`).fetchHistory()).events ?? [];
    const attempts = events
      .filter((e) => e.activityTaskStartedEventAttributes)
      .map((e) => e.activityTaskStartedEventAttributes!.attempt);
    expect(attempts).toContain(2);
    const t = (await ph.h.store.loadTranscript(seatSession))!;
    expect(t.toolCalls.map((x) => [x.tool, x.outcome])).toEqual([['read', 'ok']]);
    expect((await ph.h.store.getCouncil(c.runId))?.synthesis).toContain('src/range.js:3');
    await second.stop();
  }, 180_000);
});

describe('a Council cancelled by its owner', () => {
  it('its seats’ children are asked to cancel and close Cancelled, the row says failed/cancelled, the workflow ends Cancelled', async () => {
    const h = await createHarness({ address: inject('temporalAddress') });
    cleanups.unshift(() => h.close());
    const ws = gitWorkspace();
    cleanups.unshift(async () => rmSync(ws, { recursive: true, force: true }));
    const c = await startScriptedCouncil(h.client, h.taskQueue, {
      workspace: ws,
      script: {
        replies: [],
        threads: [
          synthesisThread('never asked'),
          seatThread('correctness-review', 1, NEVER_FINISHES),
          seatThread('security-review', 1, NEVER_FINISHES),
          seatThread('tests-review', 1, NEVER_FINISHES),
        ],
      },
    });
    cleanups.unshift(() => c.closeProvider());
    // Every seat has asked its provider (and paused on the 401).
    await waitFor(async () => c.providerRequests.length >= 3, 30_000, 'three seat requests');
    const children = await childrenOf(h.client, c.workflowId);
    expect(children).toHaveLength(3);
    await c.handle.cancel();
    const err = await c.result().then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(WorkflowFailedError);
    expect((err as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
    const row = await h.store.getCouncil(c.runId);
    expect(row).toMatchObject({ status: 'failed', errorCode: 'cancelled', synthesis: null });
    expect((row!.seats as { status: string }[]).map((s) => s.status)).toEqual(['cancelled', 'cancelled', 'cancelled']);
    for (const id of children)
      await waitFor(
        async () => (await h.client.workflow.getHandle(id).describe()).status.name === 'CANCELLED',
        20_000,
        `${id} to close Cancelled`,
      );
  }, 60_000);
});

/** The `patched()` ids a history's markers record (their details carry `{ id, deprecated }` base64-encoded). */
function patchIds(history: { events: Record<string, unknown>[] }): string[] {
  type Details = Record<string, { payloads?: { data: string }[] }>;
  return history.events
    .filter((e) => e.eventType === 'EVENT_TYPE_MARKER_RECORDED')
    .flatMap((e) => Object.values((e.markerRecordedEventAttributes as { details: Details }).details))
    .flatMap((d) => d.payloads ?? [])
    .map((p) => (JSON.parse(Buffer.from(p.data, 'base64').toString('utf8')) as { id?: string }).id ?? '');
}

describe('history replay of the council workflow', () => {
  it('records a Council (a retried seat, a failed seat, the synthesis) and replays it; replays the checked-in fixture', async () => {
    const h = await createHarness({ address: inject('temporalAddress') });
    cleanups.unshift(() => h.close());
    const ws = gitWorkspace();
    cleanups.unshift(async () => rmSync(ws, { recursive: true, force: true }));
    const codePath = await workflowBundlePath(h.stateDir);
    const c = await startScriptedCouncil(h.client, h.taskQueue, {
      workspace: ws,
      script: {
        replies: [],
        threads: [
          synthesisThread('Agreed: src/range.js:3 loops one past n.'),
          seatThread('correctness-review', 1, [{ text: 'Off by one, I think.' }]),
          seatThread('correctness-review', 2, [validReport('src/range.js', 3, 'i <= n yields n+1 items')]),
          readingSeat('security-review', 'no bound on n'),
          seatThread('tests-review', 1, [{ fault: { status: 400, times: 10 } }]),
        ],
      },
    });
    cleanups.unshift(() => c.closeProvider());
    const r = await c.result();
    expect(r.status).toBe('succeeded');
    expect(r.seats.map((s) => [s.status, s.validity, s.attempts.length])).toEqual([
      ['completed', 'valid', 2],
      ['completed', 'valid', 1],
      ['failed', 'missing', 1],
    ]);
    const json = execFileSync(
      TEMPORAL_BIN,
      ['workflow', 'show', '--workflow-id', c.workflowId, '--address', h.address, '--output', 'json'],
      { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
    );
    const types = (JSON.parse(json) as { events: { eventType: string }[] }).events.map((e) => e.eventType);
    expect(types.filter((t) => t === 'EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED')).toHaveLength(4);
    expect(types.at(-1)).toBe('EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED');
    await Worker.runReplayHistory({ workflowBundle: { codePath } }, JSON.parse(json), c.workflowId);
    if (process.env.ZUNO_RECORD_HISTORY === '1')
      writeFileSync(join(FIXTURES, `council-balanced-review-${Date.now()}.json`), json);
    for (const name of FIXTURE_NAMES) {
      const file = join(FIXTURES, `${name}.json`);
      expect(existsSync(file)).toBe(true);
      const text = readFileSync(file, 'utf8');
      const fixture = JSON.parse(text);
      expect(fixture.events.length).toBeGreaterThan(30);
      expect(patchIds(fixture).includes('zuno-council-seat-start-record-v1')).toBe(name.endsWith('-v2'));
      await Worker.runReplayHistory({ workflowBundle: { codePath } }, fixture, name);
    }
  }, 120_000);
});
