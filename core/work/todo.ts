/**
 * Todos as durable work state (GP31; its schema, statuses and invariants are
 * a SEED-GAP decided in docs/goals.md "Todo"), one pure reducer:
 * `todo_update` batches applied atomically against `expected_revision`.
 */

/** Todo statuses: `completed` and `dropped` are terminal; `blocked` carries a reason. */
export const TODO_STATUSES = ['pending', 'in_progress', 'blocked', 'completed', 'dropped'] as const;
export type TodoStatus = (typeof TODO_STATUSES)[number];
const TERMINAL: ReadonlySet<TodoStatus> = new Set(['completed', 'dropped']);

/** One Todo. `id` is the host's (`td_<n>`). */
export interface TodoItem {
  id: string;
  title: string;
  status: TodoStatus;
  /** Why it is blocked (set exactly when `status` is `blocked`). */
  blockedBy?: string;
  /** Todos that must be completed before this one starts or completes. */
  dependsOn: string[];
  /** The Plan step it serves, if any. */
  step?: string;
}

/** A session's Todo list. */
export interface TodoState {
  revision: number;
  items: TodoItem[];
  nextItem: number;
}

/** Most Todos a session holds. */
export const MAX_TODOS = 100;

/** One change of a `todo_update` batch. */
export type TodoChange =
  | { op: 'add'; title: string; status?: 'pending' | 'in_progress'; dependsOn?: string[]; step?: string }
  | { op: 'set'; id: string; title?: string; status?: TodoStatus; blockedBy?: string; dependsOn?: string[] };

/** Why a batch was refused; nothing of it applies. */
export interface TodoRefusal {
  code:
    | 'stale_revision'
    | 'unknown_todo'
    | 'terminal_todo'
    | 'blocked_needs_reason'
    | 'dependency_unfinished'
    | 'dependency_cycle'
    | 'two_in_progress'
    | 'too_many_todos'
    | 'empty_batch';
  message: string;
}

/** Durable Todo state this build cannot trust (a missing or unknown status): fail closed, like the Plan (GP20). */
export class TodoCorruption extends Error {
  readonly code = 'todo_corrupt';
}

/**
 * Checks stored Todo state before anything reads it.
 * @throws TodoCorruption naming the first Todo whose status is missing or unknown.
 */
export function checkTodoState(state: TodoState): void {
  for (const i of state.items) {
    if (!(TODO_STATUSES as readonly string[]).includes(i.status as string)) {
      throw new TodoCorruption(
        `Todo ${i.id} has status ${JSON.stringify(i.status ?? null)}, which this build does not know: the stored Todo list is corrupt`,
      );
    }
  }
}

/**
 * Applies one `todo_update` batch (all changes or none). Every batch names
 * `expectedRevision` (0 for an empty list). Invariants after the batch: at
 * most one Todo `in_progress`; a `blocked` Todo has a reason and only a
 * blocked one has it; a Todo starts or completes only when every Todo it
 * depends on is completed; dependencies name existing Todos and form no
 * cycle; a terminal Todo keeps its status. `add` gets a host id (`td_<n>`),
 * and later changes of the same batch may refer to it.
 * @throws TodoCorruption when `state` holds a status this build does not know.
 */
export function applyTodoUpdate(
  state: TodoState,
  expectedRevision: number,
  changes: TodoChange[],
): { state: TodoState } | { refused: TodoRefusal } {
  checkTodoState(state);
  if (expectedRevision !== state.revision) {
    return refuse(
      'stale_revision',
      `the Todo list is at revision ${state.revision}, not ${expectedRevision}: call todo_get and try again`,
    );
  }
  if (changes.length === 0) return refuse('empty_batch', 'give at least one change');
  const items = state.items.map((i) => ({ ...i, dependsOn: [...i.dependsOn] }));
  let next = state.nextItem;
  for (const c of changes) {
    if (c.op === 'add') {
      items.push({
        id: `td_${next++}`,
        title: c.title,
        status: c.status ?? 'pending',
        dependsOn: c.dependsOn ?? [],
        ...(c.step !== undefined ? { step: c.step } : {}),
      });
      continue;
    }
    const item = items.find((i) => i.id === c.id);
    if (!item) return refuse('unknown_todo', `no Todo ${c.id}`);
    if (c.status !== undefined && c.status !== item.status && TERMINAL.has(item.status)) {
      return refuse('terminal_todo', `Todo ${c.id} is ${item.status}, which is final`);
    }
    if (c.title !== undefined) item.title = c.title;
    if (c.dependsOn !== undefined) item.dependsOn = c.dependsOn;
    if (c.status !== undefined) item.status = c.status;
    if (c.blockedBy !== undefined) item.blockedBy = c.blockedBy;
    if (item.status !== 'blocked') delete item.blockedBy;
  }
  if (items.length > MAX_TODOS) return refuse('too_many_todos', `at most ${MAX_TODOS} Todos`);
  const problem = checkTodos(items);
  if (problem) return { refused: problem };
  return { state: { revision: state.revision + 1, items, nextItem: next } };
}

/** The first broken invariant of a Todo list, or null. */
function checkTodos(items: TodoItem[]): TodoRefusal | null {
  const byId = new Map(items.map((i) => [i.id, i]));
  const running = items.filter((i) => i.status === 'in_progress');
  if (running.length > 1) {
    return {
      code: 'two_in_progress',
      message: `only one Todo may be in progress (${running.map((i) => i.id).join(', ')})`,
    };
  }
  for (const i of items) {
    if (i.status === 'blocked' && !i.blockedBy?.trim()) {
      return { code: 'blocked_needs_reason', message: `Todo ${i.id} is blocked: say by what (blockedBy)` };
    }
    for (const d of i.dependsOn) {
      const dep = byId.get(d);
      if (!dep) return { code: 'unknown_todo', message: `Todo ${i.id} depends on ${d}, which does not exist` };
      if ((i.status === 'in_progress' || i.status === 'completed') && dep.status !== 'completed') {
        return {
          code: 'dependency_unfinished',
          message: `Todo ${i.id} cannot be ${i.status} while ${d} is ${dep.status}`,
        };
      }
    }
  }
  // Dependencies form no cycle (depth-first search, three colours).
  const colour = new Map<string, 1 | 2>();
  const visit = (id: string): boolean => {
    if (colour.get(id) === 2) return false;
    if (colour.get(id) === 1) return true;
    colour.set(id, 1);
    for (const d of byId.get(id)?.dependsOn ?? []) if (visit(d)) return true;
    colour.set(id, 2);
    return false;
  };
  for (const i of items) {
    if (visit(i.id)) return { code: 'dependency_cycle', message: `the dependencies of Todo ${i.id} form a cycle` };
  }
  return null;
}

function refuse(code: TodoRefusal['code'], message: string): { refused: TodoRefusal } {
  return { refused: { code, message } };
}
