import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EV } from '../../core/events.js';
import type { ProjectionStore, ProjectionWrite, ToolCallRow } from '../../activities/projection/types.js';
import { recordCompleted, recordStarted, type ToolCallIdentity } from '../../activities/session/tool-records.js';
import { BACKENDS, createTestDb, type TestDb } from './harness.js';

const T0 = 1_700_000_000_000;

function identity(sessionId: string, turn: number, step: number, position: number): ToolCallIdentity {
  return {
    id: `tc_${turn}_${step}_${position}`,
    sessionId,
    turn,
    step,
    position,
    callId: `call_${turn}_${step}_${position}`,
    tool: 'read',
    argsJson: '{"path":"a.ts"}',
  };
}

const done = (output: string, attempt = 1) => ({
  outcome: 'ok' as const,
  output,
  errorCode: null,
  data: { bytes: output.length },
  attempt,
  startedAtMs: T0,
  endedAtMs: T0 + 5,
});

/**
 * The projection's hot path (issue 13 item 2) on both backends: one batch is
 * one transaction of prepared statements, a completion never overwrites a
 * completed record, nothing of a failed batch is left, and the incremental
 * transcript reads return exactly the newer steps.
 */
describe.each(BACKENDS)('projection hot path (%s)', (backend) => {
  let db: TestDb;
  let store: ProjectionStore;
  beforeAll(async () => {
    db = await createTestDb(backend);
    store = await db.open();
  });
  afterAll(() => db?.dispose());

  it('a tool call costs two transactions and no read: running, then row + result part + tool.completed', async () => {
    const call = identity('ses_hot1', 0, 0, 1);
    const before = store.sqlStats();
    await recordStarted(store, call, 1, T0, 'read: a.ts');
    const written = await recordCompleted(store, call, done('one'), { abandon: false });
    const after = store.sqlStats();
    expect(written).toEqual({ kind: 'written', outcome: 'ok', outputBytes: 3 });
    expect(after.transactions - before.transactions).toBe(2);
    // SQLite counts every statement on the connection (Prisma's included): 2 + 3 hot-path statements, nothing else.
    if (backend === 'sqlite') expect(after.statements - before.statements).toBe(5);
    const row = (await store.getToolCall('ses_hot1', call.id))!;
    expect(row).toMatchObject({
      status: 'completed',
      outcome: 'ok',
      output: 'one',
      attempts: 1,
      argsJson: call.argsJson,
    });
    const events = await store.listEvents('ses_hot1', 0);
    expect(events.map((e) => e.type)).toEqual([EV.toolStarted, EV.toolCompleted]);
  });

  it('a local read costs one transaction: tool.started, row, result part and tool.completed together', async () => {
    const call = identity('ses_hot_local', 0, 0, 1);
    const before = store.sqlStats();
    const written = await recordCompleted(store, call, done('one'), {
      abandon: false,
      started: { summary: 'read: a.ts' },
    });
    const after = store.sqlStats();
    expect(written).toEqual({ kind: 'written', outcome: 'ok', outputBytes: 3 });
    expect(after.transactions - before.transactions).toBe(1);
    if (backend === 'sqlite') expect(after.statements - before.statements).toBe(4);
    const events = await store.listEvents('ses_hot_local', 0);
    expect(events.map((e) => [e.type, e.data.attempt])).toEqual([
      [EV.toolStarted, 1],
      [EV.toolCompleted, 1],
    ]);
    expect((await store.getToolCall('ses_hot_local', call.id))!).toMatchObject({ status: 'completed', outcome: 'ok' });
  });

  it('a completion that meets a completed row writes nothing of its batch; the first record stands', async () => {
    const call = identity('ses_hot2', 0, 0, 1);
    await recordCompleted(store, call, done('first'), { abandon: false });
    // A second run of the same activity: its start leaves the completed row as it is.
    await recordStarted(store, call, 2, T0 + 100, 'read: a.ts');
    const again = await recordCompleted(store, call, done('second, longer', 2), { abandon: false });
    expect(again).toEqual({ kind: 'written', outcome: 'ok', outputBytes: 5 });
    const row = (await store.getToolCall('ses_hot2', call.id))!;
    expect(row).toMatchObject({ status: 'completed', output: 'first', attempts: 1 });
    const t = (await store.transcriptAfter('ses_hot2', null))!;
    expect(t.parts.map((p) => [p.kind, p.text])).toEqual([['tool_result', 'first']]);
    const events = await store.listEvents('ses_hot2', 0);
    expect(events.map((e) => [e.type, e.data.attempt])).toEqual([
      [EV.toolCompleted, 1],
      [EV.toolStarted, 2],
    ]);
  });

  it('a batch that fails part way leaves none of its writes', async () => {
    const call = identity('ses_hot3', 0, 0, 1);
    const row: ToolCallRow = { ...call, status: 'pending' };
    const broken = {
      kind: 'part',
      // messageId is NOT NULL: the driver rejects this statement, after the row's went through.
      row: {
        id: 'prt_0_0_1_tool_call',
        sessionId: 'ses_hot3',
        turn: 0,
        step: 0,
        position: 1,
        kind: 'tool_call',
        createdAtMs: T0,
      },
    } as unknown as ProjectionWrite;
    await expect(
      store.writeBatch('ses_hot3', [
        { kind: 'toolCall', mode: 'plan', row },
        {
          kind: 'event',
          event: {
            id: 'x',
            sessionId: 'ses_hot3',
            type: EV.toolStarted,
            data: { rowId: call.id, callId: call.callId, tool: 'read', attempt: 1, summary: '' },
            atMs: T0,
          },
        },
        broken,
      ]),
    ).rejects.toThrow();
    expect(await store.getToolCall('ses_hot3', call.id)).toBeNull();
    expect(await store.listEvents('ses_hot3', 0)).toEqual([]);
    // The connection is usable afterwards (the transaction was rolled back, not left open).
    expect(await store.writeBatch('ses_hot3', [{ kind: 'toolCall', mode: 'plan', row }])).toBe(true);
    expect((await store.getToolCall('ses_hot3', call.id))!.status).toBe('pending');
  });

  it('events are insert-if-absent: the same id twice keeps one row and one seq', async () => {
    const e = {
      id: 'turn_0:started',
      sessionId: 'ses_hot4',
      type: EV.turnStarted,
      data: { turn: 0, trigger: 'user_input', anchorMessageId: null, agent: 'build', provider: 'p', model: 'm' },
      atMs: T0,
    } as const;
    const seq = await store.appendEvent(e);
    expect(await store.writeBatch('ses_hot4', [{ kind: 'event', event: e }])).toBe(true);
    expect(await store.appendEvent(e)).toBe(seq);
    expect((await store.listEvents('ses_hot4', 0)).map((r) => r.seq)).toEqual([seq]);
    expect((await store.lastEvent('ses_hot4', EV.turnStarted))?.seq).toBe(seq);
  });

  it('reads only the steps after a watermark, counts parts through a step, and lists the calls that succeeded', async () => {
    const sid = 'ses_hot5';
    for (const [turn, step] of [
      [0, 0],
      [0, 1],
      [1, 0],
    ] as const) {
      const call = identity(sid, turn, step, 1);
      await store.writeBatch(sid, [
        {
          kind: 'message',
          row: { id: `msg_${turn}_${step}_assistant`, sessionId: sid, role: 'assistant', turn, step, createdAtMs: T0 },
        },
        {
          kind: 'part',
          row: {
            id: `prt_${turn}_${step}_1_tool_call`,
            sessionId: sid,
            messageId: `msg_${turn}_${step}_assistant`,
            turn,
            step,
            position: 1,
            kind: 'tool_call',
            toolCallId: call.id,
            createdAtMs: T0,
          },
        },
        { kind: 'toolCall', mode: 'plan', row: { ...call, status: 'pending' } },
      ]);
      await recordCompleted(store, call, done(`out ${turn}.${step}`), { abandon: false });
    }
    const after = await store.transcriptAfter(sid, { turn: 0, step: 0 });
    expect(after.parts.map((p) => p.id)).toEqual([
      'prt_0_1_1_tool_call',
      'prt_0_1_1_tool_result',
      'prt_1_0_1_tool_call',
      'prt_1_0_1_tool_result',
    ]);
    expect(after.toolCalls.map((c) => c.id)).toEqual(['tc_0_1_1', 'tc_1_0_1']);
    expect(after.messages.map((m) => m.id).sort()).toEqual(['msg_0_1_assistant', 'msg_1_0_assistant']);
    expect((await store.transcriptAfter(sid, null)).parts).toHaveLength(6);
    expect(await store.partsThrough(sid, { turn: 0, step: 1 })).toBe(4);
    expect((await store.stepParts(sid, { turn: 1, step: 0 })).map((p) => p.kind)).toEqual(['tool_call', 'tool_result']);
    expect((await store.okToolCalls(sid)).map((c) => [c.id, c.output, c.result])).toEqual([
      ['tc_0_0_1', 'out 0.0', { bytes: 7 }],
      ['tc_0_1_1', 'out 0.1', { bytes: 7 }],
      ['tc_1_0_1', 'out 1.0', { bytes: 7 }],
    ]);
  });

  it("a turn's session row, its end and its inputs' states are hot-path writes that keep what they do not name", async () => {
    const sid = 'ses_hot6';
    const turnRow = (atMs: number, title: string | null, model: string) =>
      ({
        kind: 'sessionTurn',
        row: {
          id: sid,
          workflowId: `session/${sid}`,
          workspace: '/ws',
          provider: 'local',
          model,
          status: 'running',
          title,
          host: 'h1',
          taskQueue: 'q/host/h1',
          agent: 'build',
          parentSessionId: null,
          rootSessionId: null,
          depth: null,
          createdAtMs: atMs,
          updatedAtMs: atMs,
        },
      }) satisfies ProjectionWrite;
    const input = {
      kind: 'input',
      row: {
        sessionId: sid,
        id: 'in_0',
        text: 'hi',
        admission: 'driven',
        state: 'applied',
        admittedAtMs: T0,
        updatedAtMs: T0,
      },
    } satisfies ProjectionWrite;
    await store.writeBatch(sid, [turnRow(T0, 'first title', 'm1'), input]);
    await store.writeBatch(sid, [
      { kind: 'sessionStatus', sessionId: sid, status: 'completed', finalText: 'done', atMs: T0 + 1 },
      { kind: 'inputState', sessionId: sid, inputId: 'in_0', state: 'completed', atMs: T0 + 1 },
      { kind: 'inputState', sessionId: sid, inputId: 'in_missing', state: 'completed', atMs: T0 + 1 },
    ]);
    expect(await store.getSession(sid)).toMatchObject({ status: 'completed', finalText: 'done', title: 'first title' });
    // A later turn: a new model, the stored title, creation time and final text stay.
    await store.writeBatch(sid, [turnRow(T0 + 2, 'other title', 'm2')]);
    expect(await store.getSession(sid)).toMatchObject({
      status: 'running',
      model: 'm2',
      title: 'first title',
      finalText: 'done',
      createdAtMs: T0,
      updatedAtMs: T0 + 2,
    });
    // A turn's end without final text keeps the stored one and sets the error.
    await store.writeBatch(sid, [
      { kind: 'sessionStatus', sessionId: sid, status: 'failed', error: 'x: broke', atMs: T0 + 3 },
    ]);
    expect(await store.getSession(sid)).toMatchObject({ status: 'failed', finalText: 'done', error: 'x: broke' });
    // A later completed turn clears it (a resumed pause must not read as still broken); a pause keeps the last one.
    await store.writeBatch(sid, [{ kind: 'sessionStatus', sessionId: sid, status: 'paused', atMs: T0 + 4 }]);
    expect((await store.getSession(sid))!.error).toBe('x: broke');
    await store.writeBatch(sid, [
      { kind: 'sessionStatus', sessionId: sid, status: 'completed', finalText: 'again', atMs: T0 + 5 },
    ]);
    expect(await store.getSession(sid)).toMatchObject({ status: 'completed', finalText: 'again' });
    expect((await store.getSession(sid))!.error ?? null).toBeNull();
    expect(await store.listInputs(sid)).toEqual([
      expect.objectContaining({ id: 'in_0', state: 'completed', updatedAtMs: T0 + 1 }),
    ]);
    // A status for a session with no row changes nothing.
    await store.writeBatch('ses_hot_none', [
      { kind: 'sessionStatus', sessionId: 'ses_hot_none', status: 'completed', atMs: T0 },
    ]);
    expect(await store.getSession('ses_hot_none')).toBeNull();
  });

  it('reads the work state with one prepared statement', async () => {
    const sid = 'ses_hot7';
    expect(await store.getWorkState(sid)).toBeNull();
    const row = {
      sessionId: sid,
      planRevision: 2,
      planJson: '{"levels":[]}',
      todoRevision: 1,
      todoJson: null,
      updatedAtMs: T0,
    };
    await store.upsertWorkState(row);
    const before = store.sqlStats();
    expect(await store.getWorkState(sid)).toEqual(row);
    if (backend === 'sqlite') expect(store.sqlStats().statements - before.statements).toBe(1);
  });
});
