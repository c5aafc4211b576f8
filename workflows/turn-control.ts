import { CancellationScope, condition, sleep } from '@temporalio/workflow';

/** Cancellation state of one turn (TD10). */
export interface TurnControl {
  /** Every activity of the turn runs in this scope; an interrupt cancels it. */
  scope: CancellationScope;
  /** Workflow time of the interrupt, or null. */
  interruptedAtMs: number | null;
  /** Who asked for the interrupt (`cli:ctrl-c`, …), when given. */
  interruptSource?: string;
  /** Resolves `forceAfterMs` after an interrupt; never otherwise. */
  forced: Promise<'forced'>;
  /** Set when the turn ended, releasing the `forced` watcher. */
  over: boolean;
  /** The force deadline this turn uses, in ms (TD10). */
  forceAfterMs: number;
  /** Set once the force deadline passed. */
  forceFired: boolean;
  /** What {@link awaitOrForced} waits with: called in order once the force deadline passes. */
  forceWaiters: Set<() => void>;
}

/**
 * A new turn's control block. The force watcher runs outside the turn's
 * scope and starts its timer only once an interrupt arrives.
 * @param forceAfterMs how long after an interrupt the workflow stops waiting for a running call (TD10).
 */
export function newTurnControl(forceAfterMs: number): TurnControl {
  const ctl: TurnControl = {
    scope: new CancellationScope(),
    interruptedAtMs: null,
    forced: new Promise<'forced'>(() => undefined),
    over: false,
    forceAfterMs,
    forceFired: false,
    forceWaiters: new Set(),
  };
  ctl.forced = CancellationScope.nonCancellable(async () => {
    await condition(() => ctl.interruptedAtMs !== null || ctl.over);
    if (ctl.over) return new Promise<'forced'>(() => undefined);
    await sleep(forceAfterMs);
    ctl.forceFired = true;
    for (const wake of ctl.forceWaiters) wake();
    return 'forced' as const;
  });
  return ctl;
}

/** How an activity of an interruptible turn ended. */
export type Raced<T> = { kind: 'done'; value: T } | { kind: 'failed'; error: unknown } | { kind: 'forced' };

/**
 * Waits for an activity, or — after a hard interrupt — at most until the
 * turn's force deadline (TD10). Never rejects.
 */
export function raceForced<T>(ctl: TurnControl, running: Promise<T>): Promise<Raced<T>> {
  return Promise.race([
    running.then(
      (value): Raced<T> => ({ kind: 'done', value }),
      (error: unknown): Raced<T> => ({ kind: 'failed', error }),
    ),
    ctl.forced.then((): Raced<T> => ({ kind: 'forced' })),
  ]);
}

/**
 * {@link raceForced} of a fast turn (issue 13, `FAST_TURN_PATCH` in
 * session-machine.ts): the same outcome with one promise and one reaction
 * instead of a race of three — the SDK records a stack for every promise a
 * workflow creates. Forced wins once the deadline passed. Never rejects.
 */
export function awaitOrForced<T>(ctl: TurnControl, running: Promise<T>): Promise<Raced<T>> {
  return new Promise<Raced<T>>((resolve) => {
    const forced = () => resolve({ kind: 'forced' });
    if (ctl.forceFired) forced();
    else ctl.forceWaiters.add(forced);
    running.then(
      (value) => {
        ctl.forceWaiters.delete(forced);
        resolve({ kind: 'done', value });
      },
      (error: unknown) => {
        ctl.forceWaiters.delete(forced);
        resolve({ kind: 'failed', error });
      },
    );
  });
}
