import { describe, expect, it } from 'vitest';
import {
  afterFirstWait,
  afterTurn,
  pausedLife,
  resumeAsked,
  type SessionLife,
  startLife,
  turnStarted,
  wakeMove,
  type WakeView,
  waitsForResume,
} from '../../workflows/session-life.js';

/** The session machine's life and wake transitions (workflows/session-life.ts), without a server. */

const quiet: WakeView = {
  cancelled: false,
  doneWhenIdle: false,
  inboxRunnable: false,
  mayContinueAsNew: false,
  hasContinuation: false,
};

describe('SessionLife transitions', () => {
  it('a fresh or reopened run starts fresh and is open after its first wait; a continued run starts open', () => {
    expect(startLife(false, false)).toEqual({ kind: 'fresh' });
    expect(startLife(true, true)).toEqual({ kind: 'fresh' });
    expect(startLife(true, false)).toEqual({ kind: 'open' });
    expect(afterFirstWait({ kind: 'fresh' })).toEqual({ kind: 'open' });
    const paused: SessionLife = { kind: 'paused', inputIds: ['in_1'], resumeAsked: false };
    expect(afterFirstWait(paused)).toBe(paused);
  });

  it('pause → resume asked → resumed turn answers the carried inputs and opens the session', () => {
    const paused = pausedLife({ kind: 'open' }, ['in_1', 'in_2']);
    expect(paused).toEqual({ kind: 'paused', inputIds: ['in_1', 'in_2'], resumeAsked: false });
    expect(waitsForResume(paused)).toBe(true);
    const asked = resumeAsked(paused);
    expect(waitsForResume(asked)).toBe(false);
    expect(turnStarted(asked)).toEqual({ life: { kind: 'open' }, resumed: ['in_1', 'in_2'] });
    // An ordinary turn carries nothing over.
    expect(turnStarted({ kind: 'open' })).toEqual({ life: { kind: 'open' }, resumed: [] });
  });

  it('cancelled is final: a pause, a resume or a turn start leave it cancelled, and it ends the wait for resume', () => {
    const cancelled: SessionLife = { kind: 'cancelled' };
    expect(pausedLife(cancelled, ['in_1'])).toBe(cancelled);
    expect(resumeAsked(cancelled)).toBe(cancelled);
    expect(turnStarted(cancelled).life).toBe(cancelled);
    expect(waitsForResume(cancelled)).toBe(false);
    // resume asked of a session that is not paused changes nothing.
    expect(resumeAsked({ kind: 'open' })).toEqual({ kind: 'open' });
  });
});

describe('wakeMove (SE3, SE8, GL19)', () => {
  it('closes when cancelled before anything else, then when done', () => {
    expect(wakeMove({ ...quiet, cancelled: true, doneWhenIdle: true, inboxRunnable: true })).toBe('close_cancelled');
    expect(wakeMove({ ...quiet, doneWhenIdle: true, inboxRunnable: true, mayContinueAsNew: true })).toBe('close_idle');
  });

  it('continues as new when suggested, before a turn; else a runnable inbox drives a turn', () => {
    expect(wakeMove({ ...quiet, mayContinueAsNew: true, inboxRunnable: true, hasContinuation: true })).toBe(
      'continue_as_new',
    );
    expect(wakeMove({ ...quiet, inboxRunnable: true, hasContinuation: true })).toBe('turn');
  });

  it('a Goal continuation runs only when nothing else can; with nothing at all the session waits again', () => {
    expect(wakeMove({ ...quiet, hasContinuation: true })).toBe('continuation');
    expect(wakeMove(quiet)).toBe('between_turns');
  });
});

describe('afterTurn (SE4, PR3, GL4)', () => {
  const plain = { goalBound: false, resumablePause: true, exitWhenIdle: false };
  const goal = { ...plain, goalBound: true };

  it('an ordinary session stays open after an answer or an interrupt, waits out a pause, ends at a failure', () => {
    expect(afterTurn('completed', plain)).toEqual({ pauses: false, ends: false });
    expect(afterTurn('interrupted', plain)).toEqual({ pauses: false, ends: false });
    expect(afterTurn('paused', plain)).toEqual({ pauses: true, ends: false });
    expect(afterTurn('failed', plain)).toEqual({ pauses: false, ends: true });
    expect(afterTurn('blocked', plain)).toEqual({ pauses: false, ends: true });
    // `zuno run` (exit when idle) ends at an interrupt; a session recorded before resumable pauses ends at a pause.
    expect(afterTurn('interrupted', { ...plain, exitWhenIdle: true }).ends).toBe(true);
    expect(afterTurn('paused', { ...plain, resumablePause: false })).toEqual({ pauses: false, ends: true });
  });

  it("a Goal's session outlives failures and interrupts; it ends only blocked or at a pause it cannot wait out", () => {
    expect(afterTurn('failed', goal).ends).toBe(false);
    expect(afterTurn('interrupted', { ...goal, exitWhenIdle: true }).ends).toBe(false);
    expect(afterTurn('blocked', goal).ends).toBe(true);
    expect(afterTurn('paused', goal)).toEqual({ pauses: true, ends: false });
    expect(afterTurn('paused', { ...goal, resumablePause: false }).ends).toBe(true);
  });
});
