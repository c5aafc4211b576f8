import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assistantMessageId, partId, toolCallRowId, userMessageId } from '../../core/ids.js';
import type {
  InputRow,
  MessageRow,
  PartRow,
  ProjectionStore,
  SessionRow,
  ToolCallRow,
} from '../../activities/projection/types.js';
import { BACKENDS, createTestDb, type TestDb, foreignEvent } from './harness.js';

const T0 = 1_700_000_000_000;

function session(id: string, over: Partial<SessionRow> = {}): SessionRow {
  return {
    id,
    workflowId: `session/${id}`,
    workspace: '/work/ws',
    provider: 'openai',
    model: 'gpt-x',
    status: 'running',
    title: 'Fix the build',
    host: 'box-1',
    taskQueue: 'zuno/host/box-1/session/' + id,
    // A session a person started as build: no role recorded, no parent (issue 12 columns, stored as null).
    agent: null,
    parentSessionId: null,
    rootSessionId: null,
    depth: null,
    createdAtMs: T0,
    updatedAtMs: T0,
    ...over,
  };
}

function input(sessionId: string, id: string, admittedAtMs: number): InputRow {
  return {
    id,
    sessionId,
    text: `text of ${id}`,
    clientMessageId: `cm_${id}`,
    admission: 'driven',
    state: 'admitted',
    admittedAtMs,
    updatedAtMs: admittedAtMs,
  };
}

function message(
  sessionId: string,
  role: 'user' | 'assistant',
  turn: number,
  step: number,
  inputId?: string,
): MessageRow {
  return {
    id: role === 'user' ? userMessageId(inputId ?? `in_${turn}`) : assistantMessageId(turn, step),
    sessionId,
    role,
    turn,
    step,
    inputId: role === 'user' ? (inputId ?? `in_${turn}`) : null,
    createdAtMs: T0 + turn * 100 + step,
  };
}

function part(
  sessionId: string,
  turn: number,
  step: number,
  position: number,
  kind: PartRow['kind'] = 'text',
): PartRow {
  return {
    id: partId(turn, step, position, kind),
    sessionId,
    messageId: assistantMessageId(turn, step),
    turn,
    step,
    position,
    kind,
    text: `${kind} ${turn}/${step}/${position}`,
    toolCallId: kind === 'tool_call' ? toolCallRowId(turn, step, position) : null,
    metadata: { providerItemId: `it_${position}`, nested: { n: [1, 2] } },
    createdAtMs: T0 + position,
  };
}

function toolCall(sessionId: string, turn: number, step: number, position: number): ToolCallRow {
  return {
    id: toolCallRowId(turn, step, position),
    sessionId,
    turn,
    step,
    position,
    callId: `call_${turn}_${step}_${position}`,
    tool: 'shell',
    argsJson: '{"cmd":"npm test"}',
    status: 'completed',
    outcome: 'ok',
    blockedCategory: null,
    output: 'all green',
    errorCode: null,
    result: { exitCode: 0, truncated: false },
    attempts: 1,
    startedAtMs: T0 + 10,
    endedAtMs: T0 + 20,
  };
}

describe.each(BACKENDS)('projection store (%s)', (backend) => {
  let db: TestDb;
  let store: ProjectionStore;
  beforeAll(async () => {
    db = await createTestDb(backend);
    store = await db.open();
  });
  afterAll(async () => {
    await db.dispose();
  });

  it('reports its backend', () => {
    expect(store.backend).toBe(backend);
  });

  async function everything(sessionId: string) {
    return {
      transcript: await store.loadTranscript(sessionId),
      events: await store.listEvents(sessionId, 0),
      counts: await Promise.all(
        ['sessions', 'inputs', 'messages', 'parts', 'tool_calls', 'events'].map(
          async (t) => (await db.query(`SELECT * FROM "${t}"`)).length,
        ),
      ),
    };
  }

  it('every write twice leaves the same rows as once', async () => {
    const sid = 'ses_twice';
    const writes: Array<() => Promise<unknown>> = [
      () => store.upsertSession(session(sid)),
      () => store.upsertInput(input(sid, 'in_1', T0 + 1)),
      () => store.setInputState(sid, 'in_1', 'applied', T0 + 5),
      () => store.upsertMessage(message(sid, 'user', 1, 0, 'in_1')),
      () => store.upsertMessage(message(sid, 'assistant', 1, 0)),
      () => store.upsertPart(part(sid, 1, 0, 0)),
      () => store.upsertPart(part(sid, 1, 0, 1, 'tool_call')),
      () => store.upsertToolCall(toolCall(sid, 1, 0, 1)),
      () =>
        store.appendEvent(
          foreignEvent({ id: 'evt_1', sessionId: sid, type: 'tool.completed', data: { a: 1 }, atMs: T0 }),
        ),
      () => store.setSessionStatus(sid, 'completed', { finalText: 'done', updatedAtMs: T0 + 50 }),
      () => store.deleteStep(sid, 9, 9),
    ];
    for (const w of writes) await w();
    const once = await everything(sid);
    for (const w of writes) await w();
    expect(await everything(sid)).toEqual(once);

    expect(once.transcript?.session).toEqual({
      ...session(sid),
      status: 'completed',
      finalText: 'done',
      error: null,
      updatedAtMs: T0 + 50,
    });
    expect(once.transcript?.inputs).toEqual([{ ...input(sid, 'in_1', T0 + 1), state: 'applied', updatedAtMs: T0 + 5 }]);
    expect(once.transcript?.toolCalls).toEqual([toolCall(sid, 1, 0, 1)]);
    expect(once.transcript?.parts[0]).toEqual(part(sid, 1, 0, 0));
  });

  it('upsert updates: undefined keeps a stored value, null clears it, creation time stays', async () => {
    const sid = 'ses_update';
    await store.upsertSession(session(sid, { title: 'first', error: 'boom' }));
    await store.upsertSession(
      session(sid, { title: undefined, error: null, status: 'paused', createdAtMs: T0 + 999, updatedAtMs: T0 + 7 }),
    );
    expect(await store.getSession(sid)).toEqual({
      ...session(sid),
      title: 'first',
      error: null,
      finalText: null,
      status: 'paused',
      updatedAtMs: T0 + 7,
    });

    const running: ToolCallRow = {
      ...toolCall(sid, 0, 0, 0),
      status: 'running',
      outcome: null,
      output: null,
      result: null,
      endedAtMs: null,
    };
    await store.upsertToolCall(running);
    expect(await store.getToolCall(sid, running.id)).toEqual(running);
    await store.upsertToolCall(toolCall(sid, 0, 0, 0));
    expect(await store.getToolCall(sid, running.id)).toEqual(toolCall(sid, 0, 0, 0));
    expect(await store.getToolCall(sid, 'tc_missing')).toBeNull();
    expect(await store.getToolCall('ses_other', running.id)).toBeNull();
  });

  it('status updates of missing rows are no-ops', async () => {
    await store.setSessionStatus('ses_missing', 'failed', { error: 'x', updatedAtMs: T0 });
    await store.setInputState('ses_missing', 'in_x', 'failed', T0);
    expect(await store.getSession('ses_missing')).toBeNull();
    expect(await store.listInputs('ses_missing')).toEqual([]);
  });

  it('appendEvent is idempotent by (sessionId, id) and seq ascends', async () => {
    const sid = 'ses_events';
    const a = await store.appendEvent(
      foreignEvent({
        id: 'e_a',
        sessionId: sid,
        type: 'session.turn.started.1',
        data: { n: 1 },
        atMs: T0,
      }),
    );
    const b = await store.appendEvent(
      foreignEvent({
        id: 'e_b',
        sessionId: sid,
        type: 'message.part.delta',
        data: { n: 2 },
        atMs: T0 + 1,
      }),
    );
    const other = await store.appendEvent(
      foreignEvent({ id: 'e_a', sessionId: 'ses_events_other', type: 't', data: {}, atMs: T0 }),
    );
    expect(b).toBeGreaterThan(a);
    expect(other).toBeGreaterThan(b);
    // A duplicate (even with different content) returns the original seq and changes nothing.
    expect(
      await store.appendEvent(
        foreignEvent({ id: 'e_a', sessionId: sid, type: 'changed', data: { n: 99 }, atMs: T0 + 5 }),
      ),
    ).toBe(a);
    expect(await store.listEvents(sid, 0)).toEqual([
      { seq: a, id: 'e_a', sessionId: sid, type: 'session.turn.started.1', data: { n: 1 }, atMs: T0 },
      { seq: b, id: 'e_b', sessionId: sid, type: 'message.part.delta', data: { n: 2 }, atMs: T0 + 1 },
    ]);

    // Concurrent appends, each id twice: one row per id, duplicates share the seq.
    const ids = Array.from({ length: 10 }, (_, i) => `c_${i}`);
    const seqs = await Promise.all(
      [...ids, ...ids].map((id) =>
        store.appendEvent(foreignEvent({ id, sessionId: sid, type: 't', data: { id }, atMs: T0 })),
      ),
    );
    expect(seqs.slice(0, 10)).toEqual(seqs.slice(10));
    expect(new Set(seqs).size).toBe(10);
    const listed = await store.listEvents(sid, b);
    expect(listed.map((e) => e.id).sort()).toEqual([...ids].sort());
    expect(listed.map((e) => e.seq)).toEqual([...listed.map((e) => e.seq)].sort((x, y) => x - y));
  });

  it('listEvents pages by seq within one session', async () => {
    const sid = 'ses_paging';
    const seqs: number[] = [];
    for (let i = 0; i < 12; i++) {
      seqs.push(
        await store.appendEvent(foreignEvent({ id: `p_${i}`, sessionId: sid, type: 't', data: { i }, atMs: T0 + i })),
      );
      await store.appendEvent(
        foreignEvent({ id: `p_${i}`, sessionId: 'ses_paging_noise', type: 't', data: { i }, atMs: T0 + i }),
      );
    }
    const pages: number[][] = [];
    let after = 0;
    for (;;) {
      const page = await store.listEvents(sid, after, 5);
      if (page.length === 0) break;
      pages.push(page.map((e) => e.data.i as number));
      after = page[page.length - 1]!.seq;
    }
    expect(pages).toEqual([
      [0, 1, 2, 3, 4],
      [5, 6, 7, 8, 9],
      [10, 11],
    ]);
    expect((await store.listEvents(sid, seqs[5]!)).map((e) => e.seq)).toEqual(seqs.slice(6));
    expect(await store.listEvents(sid, seqs[11]!)).toEqual([]);
    expect(await store.listEvents('ses_nobody', 0)).toEqual([]);
  });

  it('listEvents returns at most 500 by default', async () => {
    const sid = 'ses_many';
    for (let i = 0; i < 501; i++) {
      await store.appendEvent(foreignEvent({ id: `m_${i}`, sessionId: sid, type: 't', data: {}, atMs: T0 }));
    }
    expect((await store.listEvents(sid, 0)).length).toBe(500);
    expect((await store.listEvents(sid, 0, 1000)).length).toBe(501);
  });

  it('deleteStep removes the parts and tool calls of one (turn, step) only', async () => {
    const sid = 'ses_delete';
    await store.upsertSession(session(sid));
    for (const [turn, step] of [
      [1, 0],
      [1, 1],
      [2, 0],
    ] as const) {
      await store.upsertMessage(message(sid, 'assistant', turn, step));
      await store.upsertPart(part(sid, turn, step, 0, 'reasoning'));
      await store.upsertPart(part(sid, turn, step, 1, 'tool_call'));
      await store.upsertToolCall(toolCall(sid, turn, step, 1));
    }
    // The user input step (1, 1) carried: not model output, but deleted with the step too.
    await store.upsertMessage(message(sid, 'user', 1, 1, 'in_1'));
    await store.upsertPart({ ...part(sid, 1, 1, 2, 'text'), messageId: userMessageId('in_1') });
    await store.appendEvent(foreignEvent({ id: 'keep', sessionId: sid, type: 't', data: {}, atMs: T0 }));
    // What was removed is counted: the assistant's two parts (model output), the input's part, one call row.
    expect(await store.deleteStep(sid, 1, 1)).toEqual({ assistantParts: 2, otherParts: 1, toolCalls: 1 });
    expect(await store.deleteStep(sid, 1, 1)).toEqual({ assistantParts: 0, otherParts: 0, toolCalls: 0 });
    const t = await store.loadTranscript(sid);
    expect(t?.parts.map((p) => p.id)).toEqual([
      'prt_1_0_0_reasoning',
      'prt_1_0_1_tool_call',
      'prt_2_0_0_reasoning',
      'prt_2_0_1_tool_call',
    ]);
    expect(t?.toolCalls.map((c) => c.id)).toEqual(['tc_1_0_1', 'tc_2_0_1']);
    expect(t?.messages.length).toBe(4);
    expect((await store.listEvents(sid, 0)).length).toBe(1);
    // Rewriting the step after a rollback works (PR4 replay).
    await store.upsertPart(part(sid, 1, 1, 0, 'text'));
    expect((await store.loadTranscript(sid))?.parts.map((p) => p.id)).toContain('prt_1_1_0_text');
  });

  it('loadTranscript returns rows in transcript order', async () => {
    const sid = 'ses_order';
    expect(await store.loadTranscript(sid)).toBeNull();
    await store.upsertSession(session(sid));
    // Written out of order on purpose; position 10 sorts after 2 (numeric, not text).
    await store.upsertInput(input(sid, 'in_b', T0 + 20));
    await store.upsertInput(input(sid, 'in_a', T0 + 10));
    await store.upsertMessage(message(sid, 'assistant', 2, 0));
    await store.upsertMessage(message(sid, 'assistant', 1, 1));
    await store.upsertMessage(message(sid, 'user', 2, 0, 'in_b'));
    await store.upsertMessage(message(sid, 'assistant', 1, 0));
    await store.upsertMessage(message(sid, 'user', 1, 0, 'in_a'));
    await store.upsertPart(part(sid, 2, 0, 0));
    await store.upsertPart(part(sid, 1, 0, 10, 'tool_call'));
    await store.upsertPart(part(sid, 1, 1, 0));
    await store.upsertPart(part(sid, 1, 0, 2));
    await store.upsertPart(part(sid, 1, 0, 0, 'reasoning'));
    await store.upsertToolCall(toolCall(sid, 1, 1, 3));
    await store.upsertToolCall(toolCall(sid, 1, 0, 10));
    await store.upsertToolCall(toolCall(sid, 1, 0, 2));

    const t = await store.loadTranscript(sid);
    expect(t?.session.id).toBe(sid);
    expect(t?.inputs.map((i) => i.id)).toEqual(['in_a', 'in_b']);
    expect(t?.messages.map((m) => m.id)).toEqual([
      'msg_in_in_a',
      'msg_1_0_assistant',
      'msg_1_1_assistant',
      'msg_in_in_b',
      'msg_2_0_assistant',
    ]);
    expect(t?.parts.map((p) => p.id)).toEqual([
      'prt_1_0_0_reasoning',
      'prt_1_0_2_text',
      'prt_1_0_10_tool_call',
      'prt_1_1_0_text',
      'prt_2_0_0_text',
    ]);
    expect(t?.toolCalls.map((c) => c.id)).toEqual(['tc_1_0_2', 'tc_1_0_10', 'tc_1_1_3']);
  });

  it('round-trips large epoch ms and unicode JSON text', async () => {
    const sid = 'ses_values';
    const big = 8_640_000_000_000; // far beyond 32 bits
    await store.upsertSession(session(sid, { createdAtMs: big, updatedAtMs: big, title: 'Ünïcødé ✓ "quotes"' }));
    const seq = await store.appendEvent(
      foreignEvent({
        id: 'v',
        sessionId: sid,
        type: 't',
        data: { s: 'line\nbreak ✓', arr: [1, null, { x: true }] },
        atMs: big,
      }),
    );
    expect(await store.getSession(sid)).toMatchObject({ createdAtMs: big, title: 'Ünïcødé ✓ "quotes"' });
    expect(await store.listEvents(sid, 0)).toEqual([
      { seq, id: 'v', sessionId: sid, type: 't', data: { s: 'line\nbreak ✓', arr: [1, null, { x: true }] }, atMs: big },
    ]);
  });
});
