/**
 * The transcript rows of a range of steps, grouped by step (turn, step) in
 * order: compaction chooses its boundary between steps, never inside one,
 * so a tool call and its result (the call's row) always stay together (CP5,
 * CP14).
 */
import type { StepKey } from '../../../core/compaction/contract.js';
import type { TranscriptRows } from '../../projection/types.js';

/** One step's rows. */
export interface StepRows {
  key: StepKey;
  rows: TranscriptRows;
}

/** a before b (turn, then step). */
export const stepBefore = (a: StepKey, b: StepKey): boolean =>
  a.turn < b.turn || (a.turn === b.turn && a.step < b.step);

/** The steps of `rows` in (turn, step) order, each with its messages, parts (by position) and tool calls (by position). */
export function groupSteps(rows: TranscriptRows): StepRows[] {
  const byKey = new Map<string, StepRows>();
  const of = (k: StepKey): StepRows => {
    const id = `${k.turn}/${k.step}`;
    let s = byKey.get(id);
    if (!s)
      byKey.set(id, (s = { key: { turn: k.turn, step: k.step }, rows: { messages: [], parts: [], toolCalls: [] } }));
    return s;
  };
  for (const m of rows.messages) of(m).rows.messages.push(m);
  for (const p of rows.parts) of(p).rows.parts.push(p);
  for (const c of rows.toolCalls) of(c).rows.toolCalls.push(c);
  const steps = [...byKey.values()].sort((a, b) => (stepBefore(a.key, b.key) ? -1 : stepBefore(b.key, a.key) ? 1 : 0));
  for (const s of steps) {
    s.rows.parts.sort((a, b) => a.position - b.position);
    s.rows.toolCalls.sort((a, b) => a.position - b.position);
  }
  return steps;
}

/** The rows of several steps joined into one {@link TranscriptRows}. */
export function joinSteps(steps: readonly StepRows[]): TranscriptRows {
  return {
    messages: steps.flatMap((s) => s.rows.messages),
    parts: steps.flatMap((s) => s.rows.parts),
    toolCalls: steps.flatMap((s) => s.rows.toolCalls),
  };
}
