/**
 * `todo_get` tool implementation (GP31, GP22): the session's Todo list from
 * the projection, with the revision the next `todo_update` must carry and
 * the fingerprint of the work state it saw (an activity fact for the
 * stagnant-read guard). A stored list this build cannot read is
 * `todo_corrupt` (fail closed).
 */
import { todoGetDeclaration, type TodoGetArgs } from '../../core/tools/todo-get.js';
import type { ToolResult } from '../../core/tools/types.js';
import { decodeTodo } from '../../core/work/codec.js';
import { TodoCorruption } from '../../core/work/todo.js';
import { errorResult } from './common.js';
import type { ToolContext } from './context.js';
import type { ToolBody } from './tool-body.js';
import { noWorkState, readFacts, todoView, workStateFingerprint } from './work-state.js';
import { runTool } from './wrapper.js';

async function todoGet(_args: TodoGetArgs, ctx: ToolContext): Promise<ToolResult> {
  const port = ctx.workState;
  if (!port) return noWorkState('todo_get');
  const row = await port.read();
  let todo;
  try {
    todo = decodeTodo(row);
  } catch (err) {
    if (err instanceof TodoCorruption)
      return errorResult(err.code, `${err.message}. Nothing can read or change it until it is repaired.`);
    throw err;
  }
  return {
    output: todoView(todo),
    isError: false,
    data: { revision: todo?.revision ?? 0, todos: todo?.items.length ?? 0, fingerprint: workStateFingerprint(row) },
  };
}

/** `todo_get` body: reads the work state through `ctx.workState`; its fingerprint is an activity fact. */
export const todoGetTool: ToolBody<TodoGetArgs> = {
  run: todoGet,
  needsWorkState: true,
  activityFacts: readFacts,
};

/** Runs `todo_get` through the shared wrapper (validation, TD9 caps). */
export function runTodoGet(args: unknown, ctx: ToolContext): Promise<ToolResult> {
  return runTool(todoGetDeclaration, todoGetTool, args, ctx);
}
