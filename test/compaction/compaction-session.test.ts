import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { COMPACTION_DEFAULTS, type ContextWindow } from '../../core/compaction/contract.js';
import { EV } from '../../core/events.js';
import { sessionWorkflowId } from '../../core/ids.js';
import { COMPACT_UPDATE, type CompactReceipt } from '../../core/session/updates.js';
import type { ScriptReply } from '../../local-provider/script.js';
import { Worker } from '@temporalio/worker';
import { COMPACTION_PATCH } from '../../workflows/generation.js';
import { workflowBundlePath } from '../../worker/workflow-bundle.js';
import { TEMPORAL_BIN } from '../helpers/dev-server.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { patchIds } from '../helpers/history.js';

/**
 * Compaction end to end (issue 28, CP6–CP8, CP10): a real Temporal server,
 * the real projection, the scripted provider over HTTP. Figures are kept
 * small: a window of 4 000 tokens beyond the system segments (issue 32: a
 * `read`-only build session's are ~2 000 tokens), files of ~3 000 characters.
 */
let h: Harness;
let codePath: string;
const bundleDir = mkdtempSync(join(tmpdir(), 'zuno-compact-bundle-'));
beforeAll(async () => {
  h = await createHarness({ address: inject('temporalAddress') });
  codePath = await workflowBundlePath(bundleDir);
});
afterAll(async () => {
  await h?.close();
  rmSync(bundleDir, { recursive: true, force: true });
});

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'histories');

/**
 * Replays the workflow's history as the Temporal CLI exports it (DESIGN.md
 * §4) and checks it recorded the compaction generation's marker; with
 * ZUNO_RECORD_HISTORY=1 it is written as fixture `name` (replayed by
 * test/session/replay.test.ts from then on).
 */
async function replays(workflowId: string, name: string): Promise<void> {
  const json = execFileSync(
    TEMPORAL_BIN,
    ['workflow', 'show', '--workflow-id', workflowId, '--address', h.address, '--output', 'json'],
    { encoding: 'utf8' },
  );
  expect(patchIds(JSON.parse(json))).toContain(COMPACTION_PATCH);
  await Worker.runReplayHistory({ workflowBundle: { codePath } }, JSON.parse(json), workflowId);
  if (process.env.ZUNO_RECORD_HISTORY === '1') writeFileSync(join(FIXTURES, name), json);
}

/** The system segments of these sessions, about (base, family, role, read-only, execution, environment). */
const SYSTEM_TOKENS = 2_000;
const WINDOW: ContextWindow = { windowTokens: SYSTEM_TOKENS + 4_000, outputReserveTokens: 1_000, source: 'config' };
const SETTINGS = { ...COMPACTION_DEFAULTS, retainedTokens: 1_000 };
const SUMMARY = 'SUMMARY-ONE: the person asked to read the notes; a.txt and b.txt were read; next read the rest.';

/** A workspace with `n` files of about 3 000 characters each (`f0.txt` …). */
function workspace(n: number): string {
  const dir = mkdtempSync(join(tmpdir(), 'zuno-compact-ws-'));
  for (let i = 0; i < n; i++) {
    const lines = Array.from(
      { length: 60 },
      (_, l) => `file ${i} line ${l}: notes about the retry policy and its backoff`,
    );
    writeFileSync(join(dir, `f${i}.txt`), `${lines.join('\n')}\n`);
  }
  return dir;
}

const read = (i: number): ScriptReply => ({ toolCalls: [{ name: 'read', arguments: { path: `f${i}.txt` } }] });
const summaries = (...texts: string[]) => [{ match: 'Compaction request', replies: texts.map((text) => ({ text })) }];

type Body = { messages?: { role: string; content: unknown }[]; tools?: unknown[] };
const bodies = (requests: unknown[]) => requests as Body[];
const text = (c: unknown) => (typeof c === 'string' ? c : JSON.stringify(c));
const isCompaction = (b: Body) =>
  b.messages?.some((m) => m.role === 'user' && text(m.content).startsWith('Compaction request'));

async function eventsOf(sessionId: string, type: string) {
  return (await h.store.listEvents(sessionId, 0, 5000)).filter((e) => e.type === type);
}

describe('compaction in a session (CP6, CP8)', () => {
  it('crossing the threshold compacts before the request; the next request carries the summary and the continuation segment', async () => {
    const run = await h.runSession({
      workspace: workspace(5),
      prompt: 'Read the notes one file at a time.',
      tools: ['read'],
      context: WINDOW,
      compaction: SETTINGS,
      script: {
        replies: [read(0), read(1), read(2), read(3), read(4), { text: 'done reading' }],
        threads: summaries(SUMMARY, `${SUMMARY} (2)`, `${SUMMARY} (3)`, `${SUMMARY} (4)`),
      },
    });
    expect(run.result.status, JSON.stringify(run.result.error)).toBe('completed');
    expect((await h.store.loadTranscript(run.sessionId))!.session.finalText).toBe('done reading');
    const markers = await eventsOf(run.sessionId, EV.contextCompact);
    const published = await eventsOf(run.sessionId, EV.compactionSummary);
    expect(markers.length).toBeGreaterThanOrEqual(1);
    expect(markers[0]!.data).toMatchObject({ trigger: 'threshold', recovery: 1 });
    expect(published.map((e) => e.data.compactionId)).toEqual([...new Set(markers.map((e) => e.data.compactionId))]);
    // No request record was written for the step that asked: every provider.request was sent.
    const all = bodies(run.providerRequests);
    const first = all.findIndex(isCompaction);
    expect(first).toBeGreaterThan(0);
    expect(all[first]!.tools ?? []).toEqual([]);
    const after = all[first + 1]!;
    const system = after
      .messages!.filter((m) => m.role === 'system')
      .map((m) => text(m.content))
      .join('\n');
    expect(system).toContain(SUMMARY);
    expect(system).toMatch(/This summary replaces \d+ earlier model steps and \d+ earlier user messages/);
    // The real user anchor is kept verbatim; no human-looking message carries the summary (CP10).
    const users = after.messages!.filter((m) => m.role === 'user').map((m) => text(m.content));
    expect(users[0]).toContain('Read the notes one file at a time.');
    expect(users.some((u) => u.includes(SUMMARY))).toBe(false);
    expect(after.messages!.length).toBeLessThan(all[first - 1]!.messages!.length);
    // The scripted replies kept their order through the compaction: every file was read once.
    const t = (await h.store.loadTranscript(run.sessionId))!;
    expect(t.toolCalls.map((c) => JSON.parse(c.argsJson).path)).toEqual([
      'f0.txt',
      'f1.txt',
      'f2.txt',
      'f3.txt',
      'f4.txt',
    ]);
    expect(await eventsOf(run.sessionId, EV.failed)).toHaveLength(0);
    await replays(run.workflowId, 'session-compaction-threshold-v1.json');
  });

  for (const surface of ['chat-completions', 'anthropic-messages'] as const) {
    it(`a provider's context-limit error (${surface}) is recovered once and the session completes`, async () => {
      const run = await h.runSession({
        workspace: workspace(3),
        prompt: 'Read f0, f1 and f2.',
        tools: ['read'],
        provider: (p) => ({ ...p, transport: surface }),
        script: {
          replies: [read(0), { ...read(1), fault: { contextLimit: true } }, read(2), { text: 'all read' }],
          threads: summaries(SUMMARY),
        },
      });
      expect(run.result.status).toBe('completed');
      expect((await h.store.loadTranscript(run.sessionId))!.session.finalText).toBe('all read');
      const markers = await eventsOf(run.sessionId, EV.contextCompact);
      expect(markers.map((e) => e.data.trigger)).toEqual(['context_limit']);
      const figures = markers[0]!.data as { usedTokens: number; limitTokens: number };
      expect(figures.usedTokens).toBeGreaterThan(figures.limitTokens);
      expect(await eventsOf(run.sessionId, EV.compactionSummary)).toHaveLength(1);
      const t = (await h.store.loadTranscript(run.sessionId))!;
      expect(t.toolCalls.map((c) => JSON.parse(c.argsJson).path)).toEqual(['f0.txt', 'f1.txt', 'f2.txt']);
      if (surface === 'chat-completions') await replays(run.workflowId, 'session-compaction-context-limit-v1.json');
    });
  }

  it('a 6th recovery in one turn fails typed compaction_limit; the workflow does not loop', async () => {
    const limited = (i: number): ScriptReply => ({ ...read(i), fault: { contextLimit: true } });
    const run = await h.runSession({
      workspace: workspace(8),
      prompt: 'Read every file.',
      tools: ['read'],
      script: {
        replies: [read(0), limited(1), limited(2), limited(3), limited(4), limited(5), limited(6), { text: 'never' }],
        threads: summaries('S1', 'S2', 'S3', 'S4', 'S5', 'S6'),
      },
    });
    expect(run.result.status).toBe('failed');
    expect(run.result.error?.code).toBe('compaction_limit');
    expect(await eventsOf(run.sessionId, EV.compactionSummary)).toHaveLength(5);
    const failed = await eventsOf(run.sessionId, EV.failed);
    expect(failed).toHaveLength(1);
    const desc = await h.client.workflow.getHandle(run.workflowId).describe();
    expect(desc.status.name).toBe('FAILED');
    await replays(run.workflowId, 'session-compaction-limit-v1.json');
  });

  it('compaction.auto false skips the threshold but still recovers from a context-limit error and compacts when asked', async () => {
    const run = await h.startScripted({
      workspace: workspace(5),
      prompt: 'Read the notes one file at a time.',
      tools: ['read'],
      exitWhenIdle: false,
      context: WINDOW,
      compaction: { ...SETTINGS, auto: false },
      script: {
        replies: [read(0), read(1), read(2), { ...read(3), fault: { contextLimit: true } }, read(4), { text: 'done' }],
        threads: summaries('AUTO-OFF-1', 'MANUAL-2'),
      },
    });
    const handle = h.client.workflow.getHandle(sessionWorkflowId(run.sessionId));
    const waitIdle = async () => {
      for (;;) {
        const s = await handle.query<{ phase: string; turn: number }>('state');
        if (s.phase === 'idle' && s.turn >= 1) return;
        await new Promise((r) => setTimeout(r, 100));
      }
    };
    await waitIdle();
    const markers = await eventsOf(run.sessionId, EV.contextCompact);
    expect(markers.map((e) => e.data.trigger)).toEqual(['context_limit']);
    const receipt = await handle.executeUpdate<CompactReceipt, [object]>(COMPACT_UPDATE, { args: [{}] });
    expect(receipt).toMatchObject({ sessionId: run.sessionId, waitedForTurn: false });
    const published = await eventsOf(run.sessionId, EV.compactionSummary);
    expect(published.map((e) => [e.data.trigger, e.data.summary])).toEqual([
      ['context_limit', 'AUTO-OFF-1'],
      ['manual', 'MANUAL-2'],
    ]);
    // CP13: the manual compaction was given the earlier summary to inherit.
    const manual = bodies(run.providerRequests).filter(isCompaction)[1]!;
    expect(manual.messages!.map((m) => text(m.content)).join('\n')).toContain('AUTO-OFF-1');
    await handle.terminate('test over');
    await run.closeProvider();
    await replays(run.workflowId, 'session-compaction-manual-v1.json');
  });
});
