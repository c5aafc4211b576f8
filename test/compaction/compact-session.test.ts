import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProjectionStore, ProjectionWrite } from '../../activities/projection/types.js';
import { buildAnthropicBody } from '../../activities/providers/anthropic-request.js';
import { buildChatCompletionBody } from '../../activities/providers/chat-request.js';
import { buildResponsesBody } from '../../activities/providers/responses-request.js';
import { runCompaction, type CompactControl } from '../../activities/session/compaction/compact-session.js';
import { COMPACTION_SEGMENT_ID } from '../../activities/session/compaction/compacted-head.js';
import { currentSummary } from '../../activities/session/compaction/current.js';
import { RequestAssembler } from '../../activities/session/request-assembly.js';
import { TranscriptCache } from '../../activities/session/transcript-cache.js';
import { localProvider } from '../../client/zuno-config.js';
import { DEFAULT_ACTIVITY_DEFAULTS } from '../../core/activity-defaults.js';
import type { CompactInput } from '../../core/compaction/contract.js';
import { COMPACTION_DEFAULTS } from '../../core/compaction/settings.js';
import { EV } from '../../core/events.js';
import type { SessionMeta } from '../../core/session/meta.js';
import { conversationPosition } from '../../local-provider/position.js';
import type { Script } from '../../local-provider/script.js';
import { startLocalProvider, type LocalProvider } from '../../local-provider/server.js';
import { createTestDb, sessionRow, type TestDb } from '../projection/harness.js';

/**
 * The compactSession activity's body against a real SQLite projection and
 * the real local provider over HTTP (CP6–CP15): it publishes once, a second
 * run of the same compaction sends nothing, an unacceptable answer
 * publishes nothing and leaves the earlier summary valid, and a compacted
 * session's next request carries the anchor, the summary segment and the tail.
 */

const S = 'ses_compact';
const ANCHOR = 'Fix the parser bug in config.ts and keep the public API unchanged.';
const ctl: CompactControl = { attempt: 1, heartbeat: () => undefined };
let db: TestDb;
let store: ProjectionStore;
let ws: string;
const servers: LocalProvider[] = [];
let cache: TranscriptCache;

/** The writes of one stored step: optional user text, assistant text, one read call with its result. */
function stepWrites(
  turn: number,
  step: number,
  opts: { user?: string; text: string; output?: string },
): ProjectionWrite[] {
  const w: ProjectionWrite[] = [];
  const at = { sessionId: S, turn, step, createdAtMs: 1 };
  let pos = 0;
  if (opts.user !== undefined) {
    const id = `msg_in_in_${turn}`;
    w.push({ kind: 'message', row: { ...at, id, role: 'user', inputId: `in_${turn}` } });
    w.push({
      kind: 'part',
      row: { ...at, id: `prt_${turn}_${step}_0_text`, messageId: id, position: pos++, kind: 'text', text: opts.user },
    });
  }
  const mid = `msg_${turn}_${step}`;
  w.push({ kind: 'message', row: { ...at, id: mid, role: 'assistant' } });
  w.push({
    kind: 'part',
    row: {
      ...at,
      id: `prt_${turn}_${step}_${pos}_text`,
      messageId: mid,
      position: pos++,
      kind: 'text',
      text: opts.text,
    },
  });
  if (opts.output !== undefined) {
    const rowId = `tc_${turn}_${step}_${pos}`;
    w.push({
      kind: 'part',
      row: {
        ...at,
        id: `prt_${turn}_${step}_${pos}_tool_call`,
        messageId: mid,
        position: pos,
        kind: 'tool_call',
        toolCallId: rowId,
      },
    });
    w.push({
      kind: 'toolCall',
      mode: 'plan',
      row: {
        sessionId: S,
        id: rowId,
        turn,
        step,
        position: pos,
        callId: `call_${turn}_${step}`,
        tool: 'read',
        argsJson: '{"path":"config.ts"}',
        status: 'completed',
        outcome: 'ok',
        output: opts.output,
      },
    });
  }
  return w;
}

function meta(server: LocalProvider, over: Partial<SessionMeta> = {}): SessionMeta {
  return {
    sessionId: S,
    workspace: ws,
    provider: localProvider(server.url),
    model: 'scripted',
    title: 't',
    toolConcurrency: 8,
    activityDefaults: DEFAULT_ACTIVITY_DEFAULTS,
    compaction: { ...COMPACTION_DEFAULTS, retainedTokens: 125 },
    ...over,
  };
}

async function serve(summaryReply: Script['replies'][number]): Promise<LocalProvider> {
  const server = await startLocalProvider({
    script: { replies: [], threads: [{ match: 'Compaction request', replies: [summaryReply] }] },
  });
  servers.push(server);
  return server;
}

const input = (m: SessionMeta, compactionId: string, at: { turn: number; step: number }): CompactInput => ({
  meta: m,
  compactionId,
  trigger: 'threshold',
  at,
  recovery: 1,
  usedTokens: 900,
  limitTokens: 800,
});

async function failureOf(p: Promise<unknown>): Promise<ApplicationFailure> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(ApplicationFailure);
    return err as ApplicationFailure;
  }
  throw new Error('expected a failure');
}

beforeAll(async () => {
  ws = mkdtempSync(join(tmpdir(), 'zuno-compact-ws-'));
  db = await createTestDb('sqlite');
  store = await db.open();
  await store.upsertSession(sessionRow(S, 1));
  await store.writeBatch(S, [
    ...stepWrites(0, 0, {
      user: ANCHOR,
      text: 'Reading config.ts.',
      output: 'export function parse() {}\n'.repeat(200),
    }),
    ...stepWrites(0, 1, { text: 'Found it.', output: 'ok' }),
    ...stepWrites(0, 2, { text: 'The bug is fixed.' }),
    ...stepWrites(1, 0, { user: 'Now add a test.', text: 'Adding.', output: 'written' }),
  ]);
});

afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  await db.dispose();
  rmSync(ws, { recursive: true, force: true });
});

describe('compactSession', () => {
  it('publishes the summary once; a second run of the same compaction sends nothing', async () => {
    const server = await serve({ text: 'SUMMARY ONE: parser fixed in config.ts; next: tests.' });
    const m = meta(server);
    const first = await runCompaction(store, input(m, 'cmp_1_1_1', { turn: 1, step: 1 }), ctl);
    expect(first).toMatchObject({ compactionId: 'cmp_1_1_1', boundary: { turn: 0, step: 2 }, alreadyPublished: false });
    expect(first.afterTokens).toBeLessThan(first.beforeTokens);
    expect(server.requests.length).toBe(1);
    const body = server.requests[0]!;
    expect(body.tools ?? []).toEqual([]);
    const [system, user] = body.messages! as { role: string; content: string }[];
    expect(system!.role).toBe('system');
    expect(system!.content).toContain('Verified progress');
    expect(user!.content.split('\n')[0]).toBe(
      `Compaction request: summarize the earlier conversation of session ${S}.`,
    );
    expect(user!.content).toContain('tool call: {"call":"call_0_0"');
    expect(user!.content).not.toContain('Now add a test.'); // the retained step is not summarized
    const again = await runCompaction(store, input(m, 'cmp_1_1_1', { turn: 1, step: 1 }), { ...ctl, attempt: 2 });
    expect(again).toEqual({ ...first, alreadyPublished: true });
    expect(server.requests.length).toBe(1);
    const types = (await store.listEvents(S, 0)).map((e) => e.type);
    expect(types.filter((t) => t === EV.contextCompact)).toHaveLength(1);
    expect(types.filter((t) => t === EV.compactionSummary)).toHaveLength(1);
    expect(types.filter((t) => t === EV.compactionPrompt)).toHaveLength(1);
    const valid = await currentSummary(store, S);
    expect(valid).toMatchObject({
      summarizedSteps: 3,
      summarizedUserMessages: 0,
      anchor: { turn: 0, step: 0, position: 0 },
    });
  });

  it('assembles the next request from the anchor, the summary segment and the tail, with no synthesized user message', async () => {
    const server = await serve({ text: 'unused' });
    const m = meta(server);
    cache = new TranscriptCache(store);
    const earlier = await cache.before(S, { turn: 1, step: 1 });
    expect(earlier.summary?.compactionId).toBe('cmp_1_1_1');
    const request = await new RequestAssembler(store).assemble(
      { meta: m, turn: 1, step: 1, newInputs: [], settled: [] },
      earlier.messages,
      1,
      { offered: ['read'] },
    );
    const roles = request.messages.map((x) => (x.role === 'system' ? `system:${x.segment}` : x.role));
    // the system segments, then the summary segment, the anchor, and step 1.0 verbatim (its user message, answer, result)
    expect(roles).toEqual([
      'system:system.base',
      'system:system.family',
      'system:system.agent',
      'system:runtime.read_only',
      'system:runtime.execution',
      'system:runtime.environment',
      `system:${COMPACTION_SEGMENT_ID}`,
      'user',
      'user',
      'assistant',
      'tool',
    ]);
    const segment = request.messages[6] as { text: string };
    expect(segment.text).toContain('SUMMARY ONE');
    expect(segment.text).toContain(
      'This summary replaces 3 earlier model steps and 0 earlier user messages of this session.',
    );
    const users = request.messages.filter((x) => x.role === 'user') as { text: string }[];
    expect(users.map((u) => u.text)).toEqual([ANCHOR, 'Now add a test.']); // stored messages only
    expect(JSON.stringify(request.messages)).not.toContain('Reading config.ts.');
    // A scripted model sees the position the uncompacted request would have had (4 steps, 2 turns) on every surface.
    const full = { messages: request.messages, model: 'm', tools: [] };
    expect(conversationPosition('chat-completions', buildChatCompletionBody(full) as never)).toEqual({
      steps: 4,
      turns: 2,
    });
    expect(conversationPosition('anthropic-messages', buildAnthropicBody(full) as never)).toEqual({
      steps: 4,
      turns: 2,
    });
    expect(conversationPosition('responses', buildResponsesBody({}, full) as never)).toEqual({ steps: 4, turns: 2 });
  });

  it('publishes nothing for an answer that did not finish normally, and the earlier summary stays valid', async () => {
    await store.writeBatch(S, [
      ...stepWrites(1, 1, { text: 'Test written.', output: 'done' }),
      ...stepWrites(1, 2, { text: 'All green.' }),
    ]);
    for (const [reply, code] of [
      [{ text: 'cut short', finishReason: 'length' }, 'finish_length'],
      [{ text: ' ' }, 'empty'],
      [{ text: 'y'.repeat(400) }, 'too_large'],
    ] as const) {
      const server = await serve(reply);
      const m = meta(server, { compaction: { ...COMPACTION_DEFAULTS, retainedTokens: 100, maxSummaryBytes: 300 } });
      const id = `cmp_bad_${code}`;
      const failure = await failureOf(runCompaction(store, input(m, id, { turn: 1, step: 3 }), ctl));
      expect(failure.type).toBe('compaction_failed');
      expect(failure.nonRetryable).toBe(true);
      const failed = await store.lastEvent(S, EV.compactionFailed);
      expect(failed?.data).toMatchObject({ compactionId: id, code });
      expect((await currentSummary(store, S))?.compactionId).toBe('cmp_1_1_1');
    }
  });

  it('a repeat compaction inherits the previous summary and moves the boundary on', async () => {
    const server = await serve({ text: 'SUMMARY TWO: parser fixed, test written and green.' });
    const second = await runCompaction(store, input(meta(server), 'cmp_1_3_1', { turn: 1, step: 3 }), ctl);
    expect(second.boundary).toEqual({ turn: 1, step: 1 });
    const [system, previous] = server.requests[0]!.messages! as { role: string; content: string }[];
    expect(system!.role).toBe('system');
    // Chat joins the leading system segments: the previous summary rides with the template.
    expect(`${system!.content}${previous?.role === 'system' ? previous.content : ''}`).toContain('SUMMARY ONE');
    const valid = await currentSummary(store, S);
    expect(valid).toMatchObject({
      compactionId: 'cmp_1_3_1',
      summarizedSteps: 5,
      summarizedUserMessages: 1,
      anchor: { turn: 0, step: 0 },
    });
    const stored = await store.lastEvent(S, EV.compactionSummary);
    expect(stored?.data).toMatchObject({ previous: 'cmp_1_1_1' });
    // The worker's cached prefix belonged to the first summary: the next request starts from the second.
    const next = await cache.before(S, { turn: 1, step: 3 });
    const head = next.messages[0] as { role: string; text: string };
    expect(head.text).toContain('SUMMARY TWO');
    expect(head.text).not.toContain('SUMMARY ONE');
    expect(next.messages[1]).toEqual({ role: 'user', text: ANCHOR });
    expect(JSON.stringify(next.messages)).not.toContain('Now add a test.');
    expect(JSON.stringify(next.messages)).toContain('All green.');
  });

  it('a summary request past compaction.timeoutSeconds publishes nothing (timeout)', async () => {
    const server = await serve({ text: 'late', fault: { delayMs: 60_000 } });
    const m = meta(server, { compaction: { ...COMPACTION_DEFAULTS, retainedTokens: 100, timeoutSeconds: 1 } });
    const failure = await failureOf(runCompaction(store, input(m, 'cmp_slow', { turn: 1, step: 3 }), ctl));
    expect(failure.type).toBe('compaction_failed');
    expect((await store.lastEvent(S, EV.compactionFailed))?.data).toMatchObject({
      compactionId: 'cmp_slow',
      code: 'timeout',
    });
    expect((await currentSummary(store, S))?.compactionId).toBe('cmp_1_3_1');
  });

  it('a transient provider failure retries (typed, retryable); the request’s own context limit is compaction_failed', async () => {
    const busy = await serve({ text: 'x', fault: { status: 503 } });
    const transient = await failureOf(runCompaction(store, input(meta(busy), 'cmp_busy', { turn: 1, step: 3 }), ctl));
    expect(transient.type).toBe('provider_unavailable');
    expect(transient.nonRetryable).toBe(false);
    const retried = await runCompaction(store, input(meta(busy), 'cmp_busy', { turn: 1, step: 3 }), {
      ...ctl,
      attempt: 2,
    });
    expect(retried.alreadyPublished).toBe(false);
    await store.writeBatch(S, stepWrites(1, 3, { text: 'More.', output: 'more' }));
    const full = await serve({ text: 'x', fault: { contextLimit: true } });
    const limit = await failureOf(runCompaction(store, input(meta(full), 'cmp_full', { turn: 1, step: 4 }), ctl));
    expect(limit.type).toBe('compaction_failed');
    expect(limit.nonRetryable).toBe(true);
    expect((await store.lastEvent(S, EV.compactionFailed))?.data).toMatchObject({
      compactionId: 'cmp_full',
      code: 'compaction_failed',
    });
  });

  it('fails compaction_failed when nothing is left to compact', async () => {
    const server = await serve({ text: 'unused' });
    const failure = await failureOf(runCompaction(store, input(meta(server), 'cmp_none', { turn: 1, step: 2 }), ctl));
    expect(failure.type).toBe('compaction_failed');
    expect(failure.message).toContain('nothing left to compact');
    expect((await store.lastEvent(S, EV.compactionFailed))?.data).toMatchObject({ compactionId: 'cmp_none' });
    expect(server.requests.length).toBe(0);
  });
});
