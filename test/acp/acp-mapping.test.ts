/**
 * The event → ACP update mapping of `zuno acp` on a real SQLite projection:
 * `tool.dispatch.interrupted` becomes a failed `tool_call_update` whose
 * content is the verdict (SF13); the edit projection (SF15: titles, absolute
 * locations, diffs, an uncertain edit stays failed with its diff); usage;
 * the Plan from the work state (GP29); prompt text, permission options and
 * JSON-RPC errors.
 */
import { describe, expect, it } from 'vitest';
import { RequestError, type ContentBlock } from '@agentclientprotocol/sdk';
import type { NewEvent, ToolCallRow } from '../../activities/projection/types.js';
import { EV } from '../../core/events.js';
import { ZunoError } from '../../core/errors.js';
import { encodePlan } from '../../core/work/codec.js';
import { diffContent, editLocations, editTitle, sidesOf } from '../../client/acp/edit-projection.js';
import { promptEndError, toRequestError } from '../../client/acp/errors.js';
import { EventMapper } from '../../client/acp/event-updates.js';
import { answerOf, decisionOf, questionOptions } from '../../client/acp/permission-bridge.js';
import { planEntries, PlanProjector } from '../../client/acp/plan-projection.js';
import { clientMessageIdOf, promptText } from '../../client/acp/prompt-text.js';
import { useTestStore } from '../projection/harness.js';

const T0 = 1_700_000_000_000;
const WS = '/work/ws';

function row(sessionId: string, id: string, tool: string, over: Partial<ToolCallRow> = {}): ToolCallRow {
  return {
    id,
    sessionId,
    turn: 0,
    step: 0,
    position: 0,
    callId: `call_${id}`,
    tool,
    argsJson: '{}',
    status: 'completed',
    outcome: 'ok',
    output: '',
    result: null,
    attempts: 1,
    startedAtMs: T0,
    endedAtMs: T0 + 1,
    ...over,
  };
}

/** Appends `e` and returns the stored row. */
async function stored(store: ReturnType<typeof useTestStore>['store'], e: NewEvent) {
  await store.appendEvent(e);
  return (await store.listEvents(e.sessionId, 0, 1000)).find((r) => r.id === e.id)!;
}

const UPDATE_DIFF = ['--- a/src/a.ts', '+++ b/src/a.ts', '@@ -1,2 +1,2 @@', ' keep', '-old', '+new', ''].join('\n');

describe('the ACP mapping of stored events', () => {
  const t = useTestStore('sqlite');

  it('tool.dispatch.interrupted: a failed tool_call_update whose content is the verdict (announced first when new)', async () => {
    const sid = 'ses_acpmap_int';
    await t.store.upsertToolCall(
      row(sid, 'tc_0_0_0', 'shell', { outcome: 'uncertain', argsJson: '{"command":"sleep 9"}' }),
    );
    const mapper = new EventMapper(t.store, sid, WS);
    const data = {
      rowId: 'tc_0_0_0',
      callId: 'call_tc_0_0_0',
      tool: 'shell',
      outcome: 'uncertain' as const,
      cause: 'interrupted',
      verdict: 'uncertain: an interrupt stopped it before it reported',
    };
    const e = await stored(t.store, { id: 'ev1', sessionId: sid, type: EV.toolDispatchInterrupted, data, atMs: T0 });
    const ups = await mapper.map(e);
    expect(ups).toEqual([
      expect.objectContaining({
        sessionUpdate: 'tool_call',
        toolCallId: 'tc_0_0_0',
        kind: 'execute',
        status: 'pending',
      }),
      {
        sessionUpdate: 'tool_call_update',
        toolCallId: 'tc_0_0_0',
        status: 'failed',
        content: [{ type: 'content', content: { type: 'text', text: data.verdict } }],
        rawOutput: { outcome: 'uncertain', cause: 'interrupted', verdict: data.verdict },
      },
    ]);
    // Already announced: only the update.
    expect((await mapper.map({ ...e, id: 'ev2' })).map((u) => u.sessionUpdate)).toEqual(['tool_call_update']);
  });

  it('an apply_patch call: Editing <file>, absolute location, only the diff on success', async () => {
    const sid = 'ses_acpmap_edit';
    const patch = '*** Begin Patch\n*** Update File: src/a.ts\n-old\n+new\n*** End Patch';
    await t.store.upsertToolCall(
      row(sid, 'tc_0_0_0', 'apply_patch', {
        argsJson: JSON.stringify({ patch }),
        output: 'applied 1 change',
        result: { changes: [{ path: 'src/a.ts', op: 'update', diff: UPDATE_DIFF }] },
      }),
    );
    const mapper = new EventMapper(t.store, sid, WS);
    const ids = { rowId: 'tc_0_0_0', callId: 'c', tool: 'apply_patch' };
    const start = await mapper.map(
      await stored(t.store, {
        id: 's',
        sessionId: sid,
        type: EV.toolStarted,
        data: { ...ids, attempt: 1, summary: 'x' },
        atMs: T0,
      }),
    );
    expect(start).toEqual([
      expect.objectContaining({
        sessionUpdate: 'tool_call',
        title: 'Editing a.ts',
        kind: 'edit',
        status: 'in_progress',
        locations: [{ path: '/work/ws/src/a.ts' }],
      }),
    ]);
    const end = await mapper.map(
      await stored(t.store, {
        id: 'c',
        sessionId: sid,
        type: EV.toolCompleted,
        data: { ...ids, outcome: 'ok' },
        atMs: T0,
      }),
    );
    expect(end).toEqual([
      expect.objectContaining({
        sessionUpdate: 'tool_call_update',
        status: 'completed',
        title: 'Editing a.ts',
        content: [{ type: 'diff', path: '/work/ws/src/a.ts', oldText: 'keep\nold\n', newText: 'keep\nnew\n' }],
      }),
    ]);
  });

  it('an uncertain edit stays failed, keeps its diff and says why; a pre-write failure shows only the error', async () => {
    const sid = 'ses_acpmap_unc';
    await t.store.upsertToolCall(
      row(sid, 'tc_0_0_0', 'write', {
        argsJson: JSON.stringify({ path: 'src/a.ts', content: 'new' }),
        outcome: 'uncertain',
        result: { diff: UPDATE_DIFF, uncertain: { cause: 'lost_outcome', paths: ['src/a.ts'] } },
      }),
    );
    await t.store.upsertToolCall(
      row(sid, 'tc_0_0_1', 'write', {
        argsJson: JSON.stringify({ path: 'src/b.ts', content: 'x' }),
        outcome: 'error',
        output: 'cannot write src/b.ts: read it first',
        errorCode: 'stale_read',
      }),
    );
    const mapper = new EventMapper(t.store, sid, WS);
    const done = (rowId: string, outcome: 'uncertain' | 'error') =>
      stored(t.store, {
        id: rowId,
        sessionId: sid,
        type: EV.toolCompleted,
        data: { rowId, callId: rowId, tool: 'write', outcome },
        atMs: T0,
      });
    const unc = (await mapper.map(await done('tc_0_0_0', 'uncertain'))).at(-1)!;
    expect(unc).toMatchObject({ status: 'failed', title: 'Editing a.ts' });
    expect(unc.sessionUpdate === 'tool_call_update' && unc.content).toEqual([
      { type: 'diff', path: '/work/ws/src/a.ts', oldText: 'keep\nold\n', newText: 'keep\nnew\n' },
      {
        type: 'content',
        content: {
          type: 'text',
          text: 'uncertain: its outcome was lost (the activity timed out or its worker went away); may have changed src/a.ts',
        },
      },
    ]);
    const err = (await mapper.map(await done('tc_0_0_1', 'error'))).at(-1)!;
    expect(err).toMatchObject({ status: 'failed', title: 'Editing b.ts' });
    expect(err.sessionUpdate === 'tool_call_update' && err.content).toEqual([
      { type: 'content', content: { type: 'text', text: 'cannot write src/b.ts: read it first' } },
    ]);
  });

  it('usage becomes usage_update only when the window is known', async () => {
    const sid = 'ses_acpmap_use';
    const mapper = new EventMapper(t.store, sid, WS);
    const usage = (id: string, windowTokens?: number) =>
      stored(t.store, {
        id,
        sessionId: sid,
        type: EV.usage,
        data: {
          eventId: id,
          turn: 0,
          step: 0,
          attempt: 1,
          usage: null,
          buckets: {},
          cumulative: { requests: 1, tokens: {}, unknownRequests: {} },
          snapshot: { estimatedTokens: 10, totalTokens: 1200, ...(windowTokens ? { windowTokens } : {}) },
        },
        atMs: T0,
      });
    expect(await mapper.map(await usage('u1'))).toEqual([]);
    expect(await mapper.map(await usage('u2', 128_000))).toEqual([
      { sessionUpdate: 'usage_update', used: 1200, size: 128_000 },
    ]);
  });

  it('the Plan from the work state: sent first, then at each revision; superseded steps left out', async () => {
    const sid = 'ses_acpmap_plan';
    const projector = new PlanProjector(t.store, sid);
    expect(await projector.next()).toBeNull();
    const plan = (revision: number, status: 'pending' | 'completed') => ({
      revision,
      nextStep: 4,
      levels: [
        {
          steps: [
            { id: 'st_1', title: 'Read', status },
            { id: 'st_2', title: 'Old idea', status: 'superseded' as const },
          ],
        },
        { steps: [{ id: 'st_3', title: 'Nested', status: 'in_progress' as const }] },
      ],
    });
    const write = (revision: number, status: 'pending' | 'completed') =>
      t.store.upsertWorkState({
        sessionId: sid,
        ...encodePlan(plan(revision, status)),
        todoRevision: 0,
        todoJson: null,
        updatedAtMs: T0,
      });
    await write(1, 'pending');
    expect(await projector.next()).toEqual({
      sessionUpdate: 'plan',
      entries: [
        { content: 'Read', priority: 'medium', status: 'pending' },
        { content: '↳ Nested', priority: 'medium', status: 'in_progress' },
      ],
    });
    expect(await projector.next()).toBeNull();
    await write(2, 'completed');
    expect(await projector.next()).toMatchObject({ entries: [{ content: 'Read', status: 'completed' }, {}] });
    expect(planEntries(plan(3, 'pending'))).toHaveLength(2);
  });
});

describe('the edit projection (pure)', () => {
  it('titles list at most 3 names and 160 characters; no target yet reads Editing files', () => {
    expect(editTitle([])).toBe('Editing files');
    expect(editTitle(['src/a.ts', 'b.ts', 'lib/c.ts', 'd.ts', 'e.ts'])).toBe('Editing a.ts, b.ts, c.ts (+2 more)');
    const long = editTitle(['x'.repeat(100), '😀'.repeat(100)]);
    expect([...long].length).toBe(160);
    expect(editLocations(WS, ['src/a.ts', '/abs/b.ts'])).toEqual([
      { path: '/work/ws/src/a.ts' },
      { path: '/abs/b.ts' },
    ]);
    expect(editLocations('relative', ['a.ts'])).toEqual([]);
  });

  it('the two sides of added, deleted and multi-hunk diffs', () => {
    expect(sidesOf('--- /dev/null\n+++ b/n.ts\n@@ -0,0 +1,2 @@\n+one\n+two\n')).toEqual({
      oldText: '',
      newText: 'one\ntwo\n',
      added: true,
    });
    expect(sidesOf('--- a/d.ts\n+++ /dev/null\n@@ -1 +0,0 @@\n-gone\n')).toEqual({
      oldText: 'gone\n',
      newText: '',
      added: false,
    });
    expect(sidesOf('--- a/m.ts\n+++ b/m.ts\n@@ -1 +1 @@\n-a\n+b\n@@ -9 +9 @@\n-y\n+z\n')).toEqual({
      oldText: 'a\n…\ny\n',
      newText: 'b\n…\nz\n',
      added: false,
    });
    expect(
      diffContent(WS, { changes: [{ path: 'n.ts', diff: '--- /dev/null\n+++ b/n.ts\n@@ -0,0 +1 @@\n+x\n' }] }),
    ).toEqual([{ type: 'diff', path: '/work/ws/n.ts', newText: 'x\n' }]);
  });
});

describe('prompts, permissions and errors (pure)', () => {
  it('prompt text from text, links and embedded text; images refused; client message ids', () => {
    const blocks: ContentBlock[] = [
      { type: 'text', text: 'look at' },
      { type: 'resource_link', uri: 'file:///w/a.ts', name: 'a.ts' },
      { type: 'resource', resource: { uri: 'file:///w/b.ts', text: 'const b = 1;' } },
    ];
    expect(promptText(blocks)).toBe('look at\n\nfile:///w/a.ts\n\nfile:///w/b.ts\nconst b = 1;');
    expect(() => promptText([{ type: 'image', data: 'AA==', mimeType: 'image/png' }])).toThrow(RequestError);
    expect(() => promptText([{ type: 'text', text: '  ' }])).toThrow(/no text/);
    expect(clientMessageIdOf({ sessionId: 's', prompt: [], _meta: { clientMessageId: 'm-1' } })).toBe('m-1');
    expect(clientMessageIdOf({ sessionId: 's', prompt: [] })).toMatch(/^acp-[0-9a-f-]{36}$/);
  });

  it('approval options are the decisions; question options are the choices plus answer later', () => {
    expect(decisionOf({ outcome: { outcome: 'selected', optionId: 'approve_session' } })).toBe('approve_session');
    expect(decisionOf({ outcome: { outcome: 'selected', optionId: 'frob' } })).toBeNull();
    expect(decisionOf({ outcome: { outcome: 'cancelled' } })).toBeNull();
    const item = { itemId: 'i1', question: 'Which?', options: ['red', 'blue'] };
    expect(questionOptions(item).map((o) => [o.optionId, o.name])).toEqual([
      ['answer:0', 'red'],
      ['answer:1', 'blue'],
      ['later', 'Answer later'],
    ]);
    expect(answerOf(item, { outcome: { outcome: 'selected', optionId: 'answer:1' } })).toBe('blue');
    expect(answerOf(item, { outcome: { outcome: 'selected', optionId: 'later' } })).toBeNull();
  });

  it('a paused turn answers -32005 with the receipt; failures carry the Zuno code', () => {
    const receipt = { inputId: 'in_1', status: 'driven', duplicate: false };
    const paused = promptEndError(
      { status: 'paused', text: null, error: { code: 'session_paused', message: 'gate' }, event: null },
      receipt,
    )!;
    expect({ code: paused.code, data: paused.data }).toEqual({
      code: -32005,
      data: {
        admission: 'accepted',
        reason: 'executionGated',
        recoveryRequired: true,
        receipt,
        code: 'session_paused',
      },
    });
    expect(promptEndError({ status: 'completed', text: 'ok', error: null, event: null }, receipt)).toBeNull();
    expect(promptEndError({ status: 'failed', text: null, error: null, event: null }, receipt)?.code).toBe(-32011);
    expect(toRequestError(new ZunoError('session_not_found', 'no session x')).code).toBe(-32002);
    expect(toRequestError(new ZunoError('input_rejected', 'empty')).code).toBe(-32602);
    expect(toRequestError(new ZunoError('api_key_missing', 'no key')).data).toEqual({ code: 'api_key_missing' });
    expect(toRequestError(new Error('boom')).code).toBe(-32603);
  });
});
