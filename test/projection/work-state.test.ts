/**
 * The work-state store functions (docs/goals.md "Storage") on both backends:
 * one update per call, decided on committed state, its write and its
 * ledger record in one transaction.
 */
import { describe, expect, it } from 'vitest';
import {
  applyWorkUpdateOnce,
  EMPTY_WORK_STATE,
  readWorkState,
  type WorkStateColumns,
} from '../../activities/projection/work-state.js';
import { BACKENDS, useTestStore } from './harness.js';

const T0 = 1_700_000_000_000;

/** A decision that bumps the Todo revision by one and says which revision it saw. */
const bump = (c: WorkStateColumns) => ({
  write: { todoRevision: c.todoRevision + 1, todoJson: `{"n":${c.todoRevision + 1}}` },
  result: { saw: c.todoRevision },
  record: true,
});

describe.each(BACKENDS)('work-state store (%s)', (backend) => {
  const t = useTestStore(backend);

  it('a session without updates reads as empty; an update writes the row and records its result', async () => {
    const sid = 'ses_ws_write';
    expect(await readWorkState(t.store, sid)).toEqual(EMPTY_WORK_STATE);
    const first = await applyWorkUpdateOnce(
      t.store,
      { sessionId: sid, id: 'tc_0_0_0/c1', tool: 'todo_update' },
      bump,
      T0,
    );
    expect(first).toEqual({ result: { saw: 0 }, replayed: false });
    expect(await t.store.getWorkState(sid)).toEqual({
      sessionId: sid,
      planRevision: null,
      planJson: null,
      todoRevision: 1,
      todoJson: '{"n":1}',
      updatedAtMs: T0,
    });
    expect(await t.store.getWorkUpdate(sid, 'tc_0_0_0/c1')).toEqual({
      sessionId: sid,
      id: 'tc_0_0_0/c1',
      tool: 'todo_update',
      result: { saw: 0 },
      atMs: T0,
    });
  });

  it('a second run of the same call returns the recorded result and applies nothing; another call applies', async () => {
    const sid = 'ses_ws_once';
    const key = { sessionId: sid, id: 'tc_0_0_0/c1', tool: 'todo_update' };
    await applyWorkUpdateOnce(t.store, key, bump, T0);
    let called = false;
    const again = await applyWorkUpdateOnce(
      t.store,
      key,
      (c) => {
        called = true;
        return bump(c);
      },
      T0 + 5,
    );
    expect(again).toEqual({ result: { saw: 0 }, replayed: true });
    expect(called).toBe(false);
    expect((await readWorkState(t.store, sid)).todoRevision).toBe(1);
    const other = await applyWorkUpdateOnce(t.store, { ...key, id: 'tc_0_1_0/c2' }, bump, T0 + 9);
    expect(other).toEqual({ result: { saw: 1 }, replayed: false });
    expect((await readWorkState(t.store, sid)).todoRevision).toBe(2);
  });

  it('a decision without a record writes nothing at all; a throwing decision rolls back and rethrows', async () => {
    const sid = 'ses_ws_closed';
    const key = { sessionId: sid, id: 'tc_0_0_0/c1', tool: 'plan_update' };
    const quiet = await applyWorkUpdateOnce(t.store, key, () => ({ result: { refused: true }, record: false }), T0);
    expect(quiet).toEqual({ result: { refused: true }, replayed: false });
    expect(await t.store.getWorkState(sid)).toBeNull();
    expect(await t.store.getWorkUpdate(sid, key.id)).toBeNull();
    await expect(
      applyWorkUpdateOnce(
        t.store,
        key,
        () => {
          throw new Error('boom');
        },
        T0,
      ),
    ).rejects.toThrow('boom');
    expect(await t.store.getWorkState(sid)).toBeNull();
    expect(await t.store.getWorkUpdate(sid, key.id)).toBeNull();
  });

  it('concurrent updates of one session decide one after the other on committed state', async () => {
    const sid = 'ses_ws_serial';
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        applyWorkUpdateOnce(t.store, { sessionId: sid, id: `tc_0_${i}_0/c`, tool: 'todo_update' }, bump, T0 + i),
      ),
    );
    expect(results.map((r) => (r.result as { saw: number }).saw).sort()).toEqual([0, 1, 2, 3, 4, 5]);
    expect((await readWorkState(t.store, sid)).todoRevision).toBe(6);
  });
});
