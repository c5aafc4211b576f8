/**
 * Deterministic identifiers (PR9, DESIGN.md §3). Every projection row is keyed
 * by one of these so an activity that runs twice upserts the same row.
 */

/** Kinds of message parts in the part ledger. */
export type PartKind = 'text' | 'reasoning' | 'tool_call' | 'tool_result';

/** Workflow id of a session: `session/<sessionId>`. */
export function sessionWorkflowId(sessionId: string): string {
  return `session/${sessionId}`;
}

/** Part id `prt_{turn}_{step}_{position}_{kind}` (PR9). turn/step/position are 0-based integers. */
export function partId(turn: number, step: number, position: number, kind: PartKind): string {
  return `prt_${turn}_${step}_${position}_${kind}`;
}

/** Tool call row id, unique per session: `tc_{turn}_{step}_{position}`. */
export function toolCallRowId(turn: number, step: number, position: number): string {
  return `tc_${turn}_${step}_${position}`;
}

/** Assistant message id of a model step: `msg_{turn}_{step}_assistant`. */
export function assistantMessageId(turn: number, step: number): string {
  return `msg_${turn}_${step}_assistant`;
}

/** User message id for an admitted input: `msg_in_{inputId}`. */
export function userMessageId(inputId: string): string {
  return `msg_in_${inputId}`;
}

/**
 * Task id of a background shell call (BG1): `bg_{turn}_{step}_{index}`,
 * `index` being the call's place among the step's tool calls (0-based), so
 * a retried start gives the same id and ids are short enough to type.
 */
export function backgroundTaskId(turn: number, step: number, index: number): string {
  return `bg_${turn}_${step}_${index}`;
}
