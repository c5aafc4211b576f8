import { beforeEach, describe, expect, it } from 'vitest';
import type { ProjectionStore, ToolCallRow } from '../../activities/projection/types.js';
import { BACKENDS, sessionRow, useTestStore } from './harness.js';

const T0 = 1_700_000_000_000;

const session = (id: string) => sessionRow(id, T0);

function call(sessionId: string, attempts: number): ToolCallRow {
  return {
    id: 'tc_0_0_0',
    sessionId,
    turn: 0,
    step: 0,
    position: 0,
    callId: 'c1',
    tool: 'shell',
    argsJson: '{}',
    status: 'running',
    attempts,
  };
}

describe.each(BACKENDS)('projection store transactions (%s)', (backend) => {
  const t = useTestStore(backend);
  let store: ProjectionStore;
  beforeEach(() => {
    store = t.store;
  });

  it('commits a row, a part and an event together, and returns what the body returns', async () => {
    const sid = 'ses_tx_commit';
    await store.upsertSession(session(sid));
    const seq = await store.transaction(sid, async (tx) => {
      await tx.upsertToolCall({ ...call(sid, 1), status: 'completed', outcome: 'ok', output: 'done' });
      await tx.upsertPart({
        id: 'prt_0_0_0_tool_result',
        sessionId: sid,
        messageId: 'msg_0_0_assistant',
        turn: 0,
        step: 0,
        position: 0,
        kind: 'tool_result',
        text: 'done',
        toolCallId: 'tc_0_0_0',
        createdAtMs: T0,
      });
      // Reads inside see the transaction's own writes.
      expect((await tx.getToolCall(sid, 'tc_0_0_0'))?.status).toBe('completed');
      return tx.appendEvent({
        id: 'tc_0_0_0:completed',
        sessionId: sid,
        type: 'tool.late_result',
        data: { rowId: 'tc_0_0_0', callId: 'c1', tool: 'shell', outcome: 'ok', attempt: 1 },
        atMs: T0,
      });
    });
    expect(seq).toBeGreaterThan(0);
    const t = await store.loadTranscript(sid);
    expect(t?.toolCalls[0]).toMatchObject({ status: 'completed', outcome: 'ok' });
    expect(t?.parts.map((p) => p.id)).toEqual(['prt_0_0_0_tool_result']);
    expect((await store.listEvents(sid, 0)).map((e) => e.seq)).toEqual([seq]);
  });

  it('a throw inside leaves none of its writes, and a plain write made meanwhile is kept', async () => {
    const sid = 'ses_tx_rollback';
    await store.upsertSession(session(sid));
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const failing = store.transaction(sid, async (tx) => {
      await tx.upsertToolCall(call(sid, 1));
      await tx.appendEvent({
        id: 'e1',
        sessionId: sid,
        type: 'message.step.rollback',
        data: { turn: 0, step: 0, attempt: 2 },
        atMs: T0,
      });
      await held;
      throw new Error('boom');
    });
    // Issued while the transaction is open: must not ride along in it (and roll back with it).
    const plain = store.upsertSession({ ...session('ses_tx_bystander') });
    await new Promise((r) => setTimeout(r, 50));
    release();
    await expect(failing).rejects.toThrow('boom');
    await plain;
    expect(await store.getToolCall(sid, 'tc_0_0_0')).toBeNull();
    expect(await store.listEvents(sid, 0)).toEqual([]);
    expect(await store.getSession('ses_tx_bystander')).not.toBeNull();
  });

  it('two transactions of one session never interleave: read-then-write counts every increment', async () => {
    const sid = 'ses_tx_serial';
    await store.upsertSession(session(sid));
    await store.upsertToolCall(call(sid, 0));
    const bump = () =>
      store.transaction(sid, async (tx) => {
        const row = await tx.getToolCall(sid, 'tc_0_0_0');
        await new Promise((r) => setTimeout(r, 5));
        await tx.upsertToolCall(call(sid, (row?.attempts ?? 0) + 1));
      });
    await Promise.all(Array.from({ length: 8 }, bump));
    expect((await store.getToolCall(sid, 'tc_0_0_0'))?.attempts).toBe(8);
  });

  // SQLite has one connection per process (two in one process would block each other's event loop).
  it.skipIf(backend === 'sqlite')('two connections: their transactions of one session never interleave', async () => {
    const other = await t.db.open();
    const sid = 'ses_tx_two_conns';
    await store.upsertSession(session(sid));
    await store.upsertToolCall(call(sid, 0));
    const bump = (s: ProjectionStore) =>
      s.transaction(sid, async (tx) => {
        const row = await tx.getToolCall(sid, 'tc_0_0_0');
        await new Promise((r) => setTimeout(r, 5));
        await tx.upsertToolCall(call(sid, (row?.attempts ?? 0) + 1));
      });
    await Promise.all(Array.from({ length: 6 }, (_, i) => bump(i % 2 ? store : other)));
    expect((await store.getToolCall(sid, 'tc_0_0_0'))?.attempts).toBe(6);
  });
});
