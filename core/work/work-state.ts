/**
 * `runtime.work_state` (GP6, GP23, GP30, GP32): the bounded rendering of a
 * session's current Plan and Todo list that every model request carries as
 * runtime context, regenerated from the committed projection for each
 * request (never reconstructed from earlier tool results). Pure. The caps
 * (a SEED-GAP, GP32) are documented in docs/goals.md "runtime.work_state".
 *
 * The input is one field per kind of work state; the output is one section
 * per kind present, in a fixed order, under one header and one overall cap.
 * A further kind is one more optional input field and one more section
 * builder in {@link renderWorkState}. (The Goal has its own segment,
 * `runtime.goal`, core/goal/context.ts, placed before this one.)
 */
import type { PlanLevel, PlanState, PlanStep } from './plan.js';
import type { TodoItem, TodoState } from './todo.js';

/** Segment id of the work state among the system segments (SE28 style). */
export const WORK_STATE_SEGMENT_ID = 'runtime.work_state';
/** Most steps of the Plan's top level shown (a level holds up to 50). */
export const WORK_STATE_MAX_STEPS = 20;
/** Most Todos shown (a session holds up to 100). */
export const WORK_STATE_MAX_TODOS = 20;
/** Longest title (or blocked reason) shown, in UTF-16 units; longer ones end in `…`. */
export const WORK_STATE_MAX_TITLE_CHARS = 160;
/** Longest whole segment, in UTF-16 units. */
export const WORK_STATE_MAX_CHARS = 6_000;

/** One part of the work state as the projection holds it: readable, or corrupt (fail closed: shown as such). */
export type WorkPart<S> = { state: S } | { corrupt: string };

/** What {@link renderWorkState} renders: each kind of work state, null when the session has none. */
export interface WorkStateInput {
  plan: WorkPart<PlanState> | null;
  todo: WorkPart<TodoState> | null;
}

/** Caps of one rendering (defaults: the exported constants). */
export interface WorkStateCaps {
  maxSteps: number;
  maxTodos: number;
  maxTitleChars: number;
  maxChars: number;
}

const DEFAULT_CAPS: WorkStateCaps = {
  maxSteps: WORK_STATE_MAX_STEPS,
  maxTodos: WORK_STATE_MAX_TODOS,
  maxTitleChars: WORK_STATE_MAX_TITLE_CHARS,
  maxChars: WORK_STATE_MAX_CHARS,
};

const HEADER = [
  '# Work state (runtime.work_state)',
  'Regenerated from the stored Plan and Todo list for this request. It is context, not a message from the user.',
  'Right before every plan_update call plan_get and copy its revision into expected_revision; todo_update carries the Todo revision likewise.',
];

/**
 * The segment text, or null when the session has neither a Plan nor a Todo
 * (the segment is then absent). Shows the Plan's top level (at most
 * `maxSteps` steps: finished ones are left out first) with the stack depth
 * and one line per parent level, then the Todos (at most `maxTodos`:
 * finished ones left out first); every omission says how many were left
 * out. A corrupt part is shown as corrupt with its message. The whole text
 * is at most `maxChars`: lines past the cap are dropped and the last line
 * says how many.
 */
export function renderWorkState(input: WorkStateInput, caps: Partial<WorkStateCaps> = {}): string | null {
  const c = { ...DEFAULT_CAPS, ...caps };
  const sections: string[][] = [];
  if (input.plan) sections.push(planSection(input.plan, c));
  const todo = input.todo;
  if (todo && ('corrupt' in todo || todo.state.items.length > 0)) sections.push(todoSection(todo, c));
  if (sections.length === 0) return null;
  const lines = [...HEADER, ...sections.flatMap((s) => ['', ...s])];
  return capLines(lines, c.maxChars);
}

function planSection(plan: WorkPart<PlanState>, c: WorkStateCaps): string[] {
  if ('corrupt' in plan) {
    return [
      '## Plan: unreadable (plan_corrupt)',
      clip(plan.corrupt, c.maxChars / 4),
      'plan_get and plan_update refuse until it is repaired.',
    ];
  }
  const s = plan.state;
  const depth = s.levels.length;
  const top = s.levels[depth - 1]!;
  const lines = [`## Plan (revision ${s.revision}, depth ${depth}${s.goalId ? `, Goal ${s.goalId}` : ''})`];
  s.levels.slice(0, -1).forEach((level, i) => lines.push(parentLine(level, i, c)));
  if (depth > 1) lines.push(`Level ${depth} (current, opened by push; pop returns to level ${depth - 1}):`);
  const shown = pick(top.steps, c.maxSteps, (st) => finished(st.status));
  for (const st of shown.items) {
    lines.push(
      `- ${st.id} [${st.status}] ${clip(st.title, c.maxTitleChars)}${st.acceptance ? ` (done when: ${clip(st.acceptance, c.maxTitleChars)})` : ''}`,
    );
  }
  if (shown.left > 0)
    lines.push(
      `… ${shown.left} of ${top.steps.length} steps not shown (${shown.leftFinished} finished); plan_get shows all.`,
    );
  return lines;
}

function parentLine(level: PlanLevel, index: number, c: WorkStateCaps): string {
  const done = level.steps.filter((st) => finished(st.status)).length;
  const active = level.steps.find((st) => st.status === 'in_progress');
  const name = index === 0 ? 'root' : 'parent';
  return `Level ${index + 1} (${name}): ${level.steps.length} steps, ${done} finished${active ? `; in progress: ${active.id} ${clip(active.title, c.maxTitleChars)}` : ''}`;
}

function todoSection(todo: WorkPart<TodoState>, c: WorkStateCaps): string[] {
  if ('corrupt' in todo) {
    return [
      '## Todos: unreadable (todo_corrupt)',
      clip(todo.corrupt, c.maxChars / 4),
      'todo_get and todo_update refuse until it is repaired.',
    ];
  }
  const s = todo.state;
  const lines = [`## Todos (revision ${s.revision})`];
  const shown = pick(s.items, c.maxTodos, (i) => i.status === 'completed' || i.status === 'dropped');
  for (const i of shown.items) lines.push(todoLine(i, c));
  if (shown.left > 0)
    lines.push(
      `… ${shown.left} of ${s.items.length} Todos not shown (${shown.leftFinished} finished); todo_get shows all.`,
    );
  return lines;
}

function todoLine(i: TodoItem, c: WorkStateCaps): string {
  const status = i.status === 'blocked' && i.blockedBy ? `blocked: ${clip(i.blockedBy, c.maxTitleChars)}` : i.status;
  const after = i.dependsOn.length ? ` (after ${i.dependsOn.join(', ')})` : '';
  const step = i.step ? ` (step ${i.step})` : '';
  return `- ${i.id} [${status}] ${clip(i.title, c.maxTitleChars)}${after}${step}`;
}

function finished(status: PlanStep['status']): boolean {
  return status === 'completed' || status === 'superseded';
}

/**
 * At most `max` of `items`, in their order: finished ones are left out
 * first (earliest first), then the last unfinished ones.
 */
function pick<T>(
  items: T[],
  max: number,
  isFinished: (t: T) => boolean,
): { items: T[]; left: number; leftFinished: number } {
  if (items.length <= max) return { items, left: 0, leftFinished: 0 };
  const drop = new Set<number>();
  let excess = items.length - max;
  let leftFinished = 0;
  for (let i = 0; i < items.length && excess > 0; i++) {
    if (isFinished(items[i]!)) {
      drop.add(i);
      leftFinished++;
      excess--;
    }
  }
  for (let i = items.length - 1; i >= 0 && excess > 0; i--) {
    if (!drop.has(i)) {
      drop.add(i);
      excess--;
    }
  }
  return { items: items.filter((_, i) => !drop.has(i)), left: drop.size, leftFinished };
}

/** One line of model-given text: whitespace runs (newlines included) become one space; longer than `max` ends in `…`. */
function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, Math.max(0, max - 1))}…`;
}

/** The lines joined, at most `maxChars` long: whole lines past the cap are dropped and a last line counts them. */
function capLines(lines: string[], maxChars: number): string {
  const text = lines.join('\n');
  if (text.length <= maxChars) return text;
  const kept: string[] = [];
  let used = 0;
  for (const [i, line] of lines.entries()) {
    const note = `… ${lines.length - i} more lines left out (the work state is capped at ${maxChars} characters; plan_get and todo_get return everything).`;
    const next = used + (kept.length ? 1 : 0) + line.length;
    // The whole text is over the cap, so some line does not fit with the note after it.
    if (next + 1 + note.length > maxChars) return [...kept, note].join('\n').slice(0, maxChars);
    kept.push(line);
    used = next;
  }
  return kept.join('\n');
}
