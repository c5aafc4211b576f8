/**
 * The turn's stagnant-read guard (GP5, GP22): the workflow side of
 * core/work/stagnation.ts. The turn loop records each tool call's activity
 * result and, after each model step's calls ran, folds that step into the
 * guard; the third identical successful single-tool work-state read in a
 * row ends the turn `stagnant_tool_loop`. Its result is already persisted
 * (the tool activity wrote it before returning), so the model's last read
 * is in the transcript. Deterministic and command-free: it only reads
 * activity results the turn already has, so histories without work-state
 * reads replay unchanged. Knows no tool by name: a read is a call whose
 * result carries the `workState` fingerprint fact.
 */
import type { PlannedToolCall } from '../core/session/tool-calls.js';
import type { ToolActivityResult } from '../core/session/tool-activity.js';
import type { TurnEnd } from '../core/session/outcome.js';
import {
  FRESH_STAGNATION,
  observeStep,
  STAGNANT_READS,
  type StagnationState,
  type StepObservation,
} from '../core/work/stagnation.js';

/** One turn's guard: create one per turn (a new turn, a continuation, starts fresh). */
export class StagnationGuard {
  private state: StagnationState = FRESH_STAGNATION;
  private readonly results = new Map<string, ToolActivityResult>();

  /** Records the activity result of one call of the current step. */
  record(call: PlannedToolCall, result: ToolActivityResult): void {
    this.results.set(call.rowId, result);
  }

  /**
   * Folds the step whose calls were `calls` (blocked ones included) into the
   * guard and forgets its results; an `interrupted` step resets it. Returns
   * how the turn ends when this step was the {@link STAGNANT_READS}th
   * identical read in a row, else undefined.
   */
  afterStep(calls: readonly PlannedToolCall[], interrupted: boolean): Extract<TurnEnd, { kind: 'limit' }> | undefined {
    const o: StepObservation = interrupted ? { kind: 'reset' } : observation(calls, this.results);
    this.results.clear();
    const next = observeStep(this.state, o);
    this.state = next.state;
    if (!next.stagnant || o.kind !== 'read') return undefined;
    return {
      kind: 'limit',
      limit: 'stagnant_tool_loop',
      message: `the model called ${o.tool} ${STAGNANT_READS} times in a row and read the same unchanged work state each time; the turn stops instead of repeating the read`,
    };
  }

  /** New input reached the model between steps (steering): the reads before it no longer count. */
  reset(): void {
    this.state = FRESH_STAGNATION;
  }
}

/** What the step did, as the guard sees it: a read only when its one call succeeded with a fingerprint. */
function observation(
  calls: readonly PlannedToolCall[],
  results: ReadonlyMap<string, ToolActivityResult>,
): StepObservation {
  const call = calls.length === 1 ? calls[0]! : undefined;
  const r = call && !call.blocked ? results.get(call.rowId) : undefined;
  const fingerprint = r?.facts?.workState;
  if (!call || !r || r.late || r.outcome !== 'ok' || r.status === 'failed' || fingerprint === undefined) {
    return { kind: 'reset' };
  }
  return { kind: 'read', tool: call.name, fingerprint };
}
