import { beforeEach, describe, expect, it } from 'vitest';
import type { ProjectionStore } from '../../activities/projection/types.js';
import {
  recordCompleted,
  recordPlanned,
  recordSettled,
  recordStarted,
  type ToolCallIdentity,
} from '../../activities/session/tool-records.js';
import { renderTranscript } from '../../client/commands/session-show.js';
import { parseEvent } from '../../core/events.js';
import type { SettledOutcome } from '../../core/session/tool-calls.js';
import { BACKENDS, sessionRow, useTestStore } from '../projection/harness.js';

const T0 = 1_700_000_000_000;

function identity(sessionId: string, position: number): ToolCallIdentity {
  return {
    id: `tc_0_0_${position}`,
    sessionId,
    turn: 0,
    step: 0,
    position,
    callId: `call_${position}`,
    tool: 'shell',
    argsJson: '{"command":"make"}',
  };
}

function lost(call: ToolCallIdentity, cause: SettledOutcome['cause'] = 'lost_outcome'): SettledOutcome {
  return {
    rowId: call.id,
    callId: call.callId,
    tool: call.tool,
    outcome: 'uncertain',
    cause,
    paths: [],
    failureType: 'TimeoutFailure',
    message: 'activity Heartbeat timeout',
    observedAtMs: T0 + 500,
  };
}

const done = { outcome: 'ok' as const, output: 'built', errorCode: null, data: { exitCode: 0 }, attempt: 1 };

describe.each(BACKENDS)('tool-call records (%s)', (backend) => {
  const t = useTestStore(backend);
  let store: ProjectionStore;
  beforeEach(() => {
    store = t.store;
  });

  async function setUp(sid: string, position: number): Promise<ToolCallIdentity> {
    const call = identity(sid, position);
    await store.upsertSession(sessionRow(sid, T0));
    await store.upsertMessage({
      id: 'msg_0_0_assistant',
      sessionId: sid,
      role: 'assistant',
      turn: 0,
      step: 0,
      createdAtMs: T0,
    });
    await recordPlanned(store, call, { messageId: 'msg_0_0_assistant', atMs: T0 });
    return call;
  }

  const types = async (sid: string) => (await store.listEvents(sid, 0)).map((e) => e.type);

  it('a completion commits row, result part and tool.completed together, once however often it is recorded', async () => {
    const sid = `ses_rec_done_${backend}`;
    const call = await setUp(sid, 0);
    await recordStarted(store, call, 1, T0 + 10, 'shell: make');
    const first = await recordCompleted(
      store,
      call,
      { ...done, startedAtMs: T0 + 10, endedAtMs: T0 + 20 },
      { abandon: false },
    );
    const again = await recordCompleted(
      store,
      call,
      { ...done, startedAtMs: T0 + 10, endedAtMs: T0 + 20 },
      { abandon: false },
    );
    expect(first).toEqual({ kind: 'written', outcome: 'ok', outputBytes: 5 });
    expect(again).toEqual(first);
    const t = (await store.loadTranscript(sid))!;
    expect(t.toolCalls[0]).toMatchObject({ status: 'completed', outcome: 'ok', output: 'built' });
    expect(t.parts.map((p) => p.kind)).toEqual(['tool_call', 'tool_result']);
    expect(await types(sid)).toEqual(['tool.started', 'tool.completed']);
  });

  it('a settlement that meets a committed result keeps it and records what the workflow saw, everywhere', async () => {
    const sid = `ses_rec_superseded_${backend}`;
    const call = await setUp(sid, 0);
    await recordStarted(store, call, 1, T0 + 10, 'shell: make');
    await recordCompleted(store, call, { ...done, startedAtMs: T0 + 10, endedAtMs: T0 + 20 }, { abandon: false });
    const reconciled = await recordSettled(store, sid, [lost(call)], T0 + 600);
    const expected = {
      rowId: call.id,
      callId: call.callId,
      tool: 'shell',
      stands: 'ok',
      workflowSaw: {
        outcome: 'uncertain',
        cause: 'lost_outcome',
        failureType: 'TimeoutFailure',
        message: 'activity Heartbeat timeout',
      },
    };
    expect(reconciled).toEqual([expected]);
    // Idempotent: the same answer, no second event.
    expect(await recordSettled(store, sid, [lost(call)], T0 + 700)).toEqual([expected]);
    const row = (await store.getToolCall(sid, call.id))!;
    expect(row).toMatchObject({ outcome: 'ok', output: 'built' });
    expect(row.result).toMatchObject({
      exitCode: 0,
      settlement: { stands: 'ok', workflowSaw: { ...expected.workflowSaw, observedAtMs: T0 + 500 } },
    });
    const events = await store.listEvents(sid, 0);
    expect(events.map((e) => e.type)).toEqual(['tool.started', 'tool.completed', 'tool.settlement_superseded']);
    const superseded = parseEvent(events[2]!);
    expect(superseded?.type === 'tool.settlement_superseded' && superseded.data.stands).toBe('ok');
    // session show says which result stands and why.
    expect(renderTranscript((await store.loadTranscript(sid))!)).toMatch(
      /result stands: the call's own ok result had committed before the workflow settled it \(the workflow saw TimeoutFailure, lost_outcome/,
    );
  });

  it('a settlement of a running call is written as decided; the late result then sits beside it', async () => {
    const sid = `ses_rec_late_${backend}`;
    const call = await setUp(sid, 0);
    await recordStarted(store, call, 1, T0 + 10, 'shell: make');
    expect(await recordSettled(store, sid, [lost(call, 'interrupted')], T0 + 600)).toEqual([]);
    const late = await recordCompleted(
      store,
      call,
      { ...done, startedAtMs: T0 + 10, endedAtMs: T0 + 900 },
      { abandon: true },
    );
    expect(late).toEqual({ kind: 'late', stands: 'uncertain' });
    const row = (await store.getToolCall(sid, call.id))!;
    expect(row).toMatchObject({ status: 'completed', outcome: 'uncertain', errorCode: 'TimeoutFailure' });
    expect(row.output).toContain('Outcome uncertain');
    expect(row.result).toMatchObject({
      settledBy: 'workflow',
      uncertain: { cause: 'interrupted', callId: call.callId },
      lateResult: { outcome: 'ok', attempt: 1 },
    });
    const events = await store.listEvents(sid, 0);
    expect(events.map((e) => e.type)).toEqual(['tool.started', 'tool.completed', 'tool.late_result']);
    expect(events[1]!.data).toMatchObject({ settledBy: 'workflow', started: true, cause: 'interrupted' });
    // The result part was never written: the model sees the settled notice only.
    expect((await store.loadTranscript(sid))!.parts.map((p) => p.kind)).toEqual(['tool_call']);
  });

  it('a call no worker started is settled exactly as the workflow decided, and the event says it never started', async () => {
    const sid = `ses_rec_pending_${backend}`;
    const call = await setUp(sid, 0);
    await recordSettled(store, sid, [lost(call, 'interrupted')], T0 + 600);
    expect((await store.getToolCall(sid, call.id))!).toMatchObject({ outcome: 'uncertain' });
    const [settled] = await store.listEvents(sid, 0);
    expect(settled!.data).toMatchObject({ settledBy: 'workflow', started: false });
  });

  it('an abandoned attempt nobody settled records nothing', async () => {
    const sid = `ses_rec_abandon_${backend}`;
    const call = await setUp(sid, 0);
    await recordStarted(store, call, 1, T0 + 10, 'shell: make');
    const r = await recordCompleted(
      store,
      call,
      { ...done, startedAtMs: T0 + 10, endedAtMs: T0 + 20 },
      { abandon: true },
    );
    expect(r).toEqual({ kind: 'abandoned' });
    expect((await store.getToolCall(sid, call.id))!.status).toBe('running');
    expect(await types(sid)).toEqual(['tool.started']);
  });
});
