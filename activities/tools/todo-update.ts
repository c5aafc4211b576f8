/**
 * `todo_update` tool implementation (GP31): applies one batch to the
 * session's stored Todo list through the reducer (core/work/todo.ts),
 * atomically and once per tool call — the new list and the call's result
 * commit in one transaction, and a second run of the same call returns the
 * recorded result. A refusal (stale revision, two in progress, unfinished
 * dependency, cycle, …) is an `isError` result with the reducer's code and
 * changes nothing; a stored list this build cannot read is `todo_corrupt`
 * and nothing is written at all (fail closed).
 */
import { todoUpdateDeclaration, type TodoUpdateArgs } from '../../core/tools/todo-update.js';
import type { ToolResult } from '../../core/tools/types.js';
import { decodeTodo, encodeTodo } from '../../core/work/codec.js';
import { applyTodoUpdate, TodoCorruption, type TodoState } from '../../core/work/todo.js';
import { errorResult } from './common.js';
import type { ToolContext } from './context.js';
import type { ToolBody } from './tool-body.js';
import { noWorkState, todoView, type WorkDecision, type WorkStateColumns } from './work-state.js';
import { runTool } from './wrapper.js';

/** The list before its first batch. */
const NO_TODOS: TodoState = { revision: 0, items: [], nextItem: 1 };

/** What one `todo_update` call does to the committed columns. */
export function decideTodoUpdate(args: TodoUpdateArgs, current: WorkStateColumns): WorkDecision<ToolResult> {
  let todo: TodoState | null;
  try {
    todo = decodeTodo(current);
  } catch (err) {
    if (!(err instanceof TodoCorruption)) throw err;
    return { result: errorResult(err.code, `${err.message}. Nothing was changed.`), record: false };
  }
  const out = applyTodoUpdate(todo ?? NO_TODOS, args.expected_revision, args.changes);
  if ('refused' in out) {
    return { result: errorResult(out.refused.code, `${out.refused.message}. Nothing was changed.`), record: true };
  }
  const next = out.state;
  return {
    write: encodeTodo(next),
    record: true,
    result: {
      output: `todo_update: the Todo list is now at revision ${next.revision}.\n${todoView(next)}`,
      isError: false,
      data: { revision: next.revision, todos: next.items.length },
    },
  };
}

async function todoUpdate(args: TodoUpdateArgs, ctx: ToolContext): Promise<ToolResult> {
  const port = ctx.workState;
  if (!port) return noWorkState('todo_update');
  return port.updateOnce((current) => decideTodoUpdate(args, current));
}

/** `todo_update` body: updates the work state through `ctx.workState`, once per call. */
export const todoUpdateTool: ToolBody<TodoUpdateArgs> = {
  run: todoUpdate,
  needsWorkState: true,
};

/** Runs `todo_update` through the shared wrapper (validation, TD9 caps). */
export function runTodoUpdate(args: unknown, ctx: ToolContext): Promise<ToolResult> {
  return runTool(todoUpdateDeclaration, todoUpdateTool, args, ctx);
}
