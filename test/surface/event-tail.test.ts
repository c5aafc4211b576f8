/**
 * The home stream's hold at a hole in `seq` (client/surface/event-tail.ts):
 * a late-committing event is waited for while the hole is young, and an old
 * hole (a rolled-back insert, a deleted row) is passed.
 */
import { describe, expect, it } from 'vitest';
import type { EventRow } from '../../activities/projection/index.js';
import { beforeYoungHole, GAP_HOLD_MS } from '../../client/surface/index.js';

const ev = (seq: number, atMs: number): EventRow => ({
  seq,
  id: `e${seq}`,
  sessionId: 'ses_a',
  type: 'notice',
  data: {},
  atMs,
});

describe('beforeYoungHole', () => {
  it('yields a run without holes whole', () => {
    const rows = [ev(4, 0), ev(5, 0), ev(6, 0)];
    expect(beforeYoungHole(rows, 3, 10).map((r) => r.seq)).toEqual([4, 5, 6]);
  });

  it('stops before a hole whose next event is younger than the hold, and passes it once it is older', () => {
    const rows = [ev(4, 1_000), ev(6, 1_000), ev(7, 1_000)];
    expect(beforeYoungHole(rows, 3, 1_000 + GAP_HOLD_MS - 1).map((r) => r.seq)).toEqual([4]);
    expect(beforeYoungHole(rows, 3, 1_000 + GAP_HOLD_MS).map((r) => r.seq)).toEqual([4, 6, 7]);
  });

  it('a hole right after the resume point counts too', () => {
    expect(beforeYoungHole([ev(9, 500)], 7, 600)).toEqual([]);
    expect(beforeYoungHole([ev(8, 500)], 7, 600).map((r) => r.seq)).toEqual([8]);
  });
});
