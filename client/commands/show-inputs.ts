/**
 * The person's inputs in `zuno session show`, in plain words: who spoke
 * (`you`, or `you (steering the running turn)` for an input a running turn
 * took at its next step) and the inputs no turn has taken (yet), numbered
 * from 1 in the order they arrived (`input 2, queued: …`). No input ids or
 * admission codes. Pure.
 */
import type { InputRow, MessageRow, Transcript } from '../../activities/projection/index.js';
import { LIMITS, proseLines, type ShowView } from './show-text.js';

/** The label of a user message's text: `you`, or `you (steering the running turn)`. */
export function speakerLabel(message: MessageRow | undefined, inputs: ReadonlyMap<string, InputRow>): string {
  const input = message?.inputId ? inputs.get(message.inputId) : undefined;
  return input?.admission === 'steered' ? 'you (steering the running turn)' : 'you';
}

/** 1-based number of an input in arrival order (from its `in_<seq>` id; else its place in the list). */
function inputNumber(input: InputRow, index: number): number {
  const m = /^in_(\d+)$/.exec(input.id);
  return m ? Number(m[1]) + 1 : index + 1;
}

/** Where an input no turn has shown stands, in words. */
function standing(i: InputRow): string {
  if (i.state === 'admitted') return i.admission === 'steered' ? 'waiting to steer the running turn' : 'queued';
  if (i.state === 'applied') return 'taken by a turn';
  if (i.state === 'completed') return 'done';
  return i.state;
}

/**
 * Lines for the inputs that have no message in the transcript (queued,
 * cancelled, failed before a turn took them): a blank line, then
 * `input 2, queued: text` each. Empty when every input was taken.
 */
export function untakenInputLines(t: Transcript, view: ShowView): string[] {
  const taken = new Set(t.messages.map((m) => m.inputId));
  const lines = t.inputs.flatMap((i, index) =>
    taken.has(i.id) ? [] : proseLines(`input ${inputNumber(i, index)}, ${standing(i)}`, i.text, view, LIMITS.prose),
  );
  return lines.length ? ['', ...lines] : [];
}
