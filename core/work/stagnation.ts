/**
 * The stagnant-loop guard (GP5, GP22, GL23): three consecutive successful
 * single-tool reads that see the same authoritative work state stop the
 * turn with `stagnant_tool_loop` (an active Goal records `no_progress`).
 * Pure: the workflow keeps one {@link StagnationState} per session (carried
 * across continue-as-new) and feeds it each model step's observation.
 */

/** What one model step did, as the guard sees it. */
export type StepObservation =
  /** The step's only call was a successful read of work state; `fingerprint` hashes only the authoritative state read (never free-text `intent`). */
  | { kind: 'read'; tool: string; fingerprint: string }
  /** Anything else resets the count: a write, several calls, a failure, block or interrupt, a continuation, a state change. */
  | { kind: 'reset' };

/** The guard's memory: the last read and how many identical ones in a row. */
export interface StagnationState {
  tool: string | null;
  fingerprint: string | null;
  count: number;
}

/** Identical reads in a row that stop the turn. */
export const STAGNANT_READS = 3;

/** The state before any observation. */
export const FRESH_STAGNATION: StagnationState = { tool: null, fingerprint: null, count: 0 };

/**
 * Folds one observation into the guard. `stagnant` is true when this read is
 * the {@link STAGNANT_READS}th identical one in a row: its result is already
 * stored and visible (GP22: the third result is persisted and projected
 * first), the turn then stops with `stagnant_tool_loop`, and the count starts over.
 */
export function observeStep(state: StagnationState, o: StepObservation): { state: StagnationState; stagnant: boolean } {
  if (o.kind === 'reset') return { state: FRESH_STAGNATION, stagnant: false };
  const same = state.tool === o.tool && state.fingerprint === o.fingerprint;
  const count = same ? state.count + 1 : 1;
  if (count >= STAGNANT_READS) return { state: FRESH_STAGNATION, stagnant: true };
  return { state: { tool: o.tool, fingerprint: o.fingerprint, count }, stagnant: false };
}
