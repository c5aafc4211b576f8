import type { SessionResult } from '../core/session/outcome.js';

/**
 * The session's life beside its phase (SE1–SE8, issue 9, issue 12): the
 * sub-state the session machine's run loop switches on, and the pure
 * transitions between its states. Deterministic; no Temporal API.
 *
 * - `fresh`: a run that did not continue from another (or a reopened one),
 *   before its first wait — its first input is on its way, so it does not
 *   show itself idle first;
 * - `open`: waiting for input or running turns;
 * - `paused`: a turn paused (PR3) and the workflow waits for `resume`; the
 *   inputs the paused turn carried are answered by the resumed turn;
 * - `cancelled`: the workflow was asked to cancel (a parent cancelling its
 *   child, a Council's deadline): it closes as interrupted at its next wait.
 *   Nothing leaves `cancelled`.
 */
export type SessionLife =
  | { kind: 'fresh' }
  | { kind: 'open' }
  | { kind: 'paused'; inputIds: string[]; resumeAsked: boolean }
  | { kind: 'cancelled' };

/** The life a run starts in: `fresh` unless it continued from another run (continue-as-new) that was not reopened. */
export function startLife(continued: boolean, reopened: boolean): SessionLife {
  return !continued || reopened ? { kind: 'fresh' } : { kind: 'open' };
}

/** The run waited for the first time: a `fresh` run is `open` from here on. */
export function afterFirstWait(life: SessionLife): SessionLife {
  return life.kind === 'fresh' ? { kind: 'open' } : life;
}

/** A turn paused and the session waits for `resume` (a cancelled session stays cancelled: it closes instead). */
export function pausedLife(life: SessionLife, inputIds: string[]): SessionLife {
  return life.kind === 'cancelled' ? life : { kind: 'paused', inputIds, resumeAsked: false };
}

/** A `resume` Update (or a Goal resumed with its session) was accepted: a paused session runs its turn again. */
export function resumeAsked(life: SessionLife): SessionLife {
  return life.kind === 'paused' ? { ...life, resumeAsked: true } : life;
}

/** true while a paused session waits for nothing but `resume` (or a cancel). */
export function waitsForResume(life: SessionLife): boolean {
  return life.kind === 'paused' && !life.resumeAsked;
}

/** A turn starts: a resumed one answers the input ids its paused turn carried; the session is `open` again. */
export function turnStarted(life: SessionLife): { life: SessionLife; resumed: string[] } {
  if (life.kind !== 'paused') return { life, resumed: [] };
  return { life: { kind: 'open' }, resumed: life.inputIds };
}

/** What the open session's loop sees when it wakes. */
export interface WakeView {
  cancelled: boolean;
  /** `zuno run`'s end: a turn ran, nothing is queued, no background task can still report. */
  doneWhenIdle: boolean;
  /** Something in the inbox can drive a turn now. */
  inboxRunnable: boolean;
  /** Temporal suggests continue-as-new and no background task pins the run. */
  mayContinueAsNew: boolean;
  /** The session's Goal asked for a continuation turn (GL19). */
  hasContinuation: boolean;
}

/** What an open session does when it wakes. */
export type WakeMove = 'close_cancelled' | 'close_idle' | 'continuation' | 'between_turns' | 'continue_as_new' | 'turn';

/**
 * The open session's next move after a wake (SE3): close when cancelled or
 * done; a Goal continuation when nothing else can run; back to waiting when
 * nothing can run (background work ended without a report); continue-as-new
 * when Temporal suggests it; else a turn from the inbox. Pure.
 */
export function wakeMove(v: WakeView): WakeMove {
  if (v.cancelled) return 'close_cancelled';
  if (v.doneWhenIdle) return 'close_idle';
  if (v.mayContinueAsNew) return 'continue_as_new';
  if (v.inboxRunnable) return 'turn';
  return v.hasContinuation ? 'continuation' : 'between_turns';
}

/**
 * What a turn that ended with session status `status` does to the session:
 * `pauses` — it waits for `resume` (sessions under RESUME_PATCH); `ends` —
 * the session closes with it. A Goal's session outlives its turns' failures
 * and interrupts (the Goal decides what follows, GL4) and ends only blocked
 * or at a pause it cannot wait out; an ordinary one ends at anything but an
 * answer, an interrupt of a session that stays open, or a pause it waits
 * out. Pure.
 */
export function afterTurn(
  status: SessionResult['status'],
  o: { goalBound: boolean; resumablePause: boolean; exitWhenIdle: boolean },
): { pauses: boolean; ends: boolean } {
  const pauses = status === 'paused' && o.resumablePause;
  const ends = o.goalBound
    ? status === 'blocked' || (status === 'paused' && !pauses)
    : !(status === 'completed' || (status === 'interrupted' && !o.exitWhenIdle) || pauses);
  return { pauses, ends };
}
