/**
 * Declaration of `todo_get` (GP31, GP22): reads the session's Todo list and
 * the revision the next `todo_update` must carry. Deterministic: zod + pure
 * code only. The implementation is activities/tools/todo-get.ts.
 */
import { z } from 'zod';
import type { ToolDeclaration } from './types.js';

/** Arguments of `todo_get`: none. */
export const todoGetArgs = z.strictObject({});

/** Parsed arguments of `todo_get`. */
export type TodoGetArgs = z.infer<typeof todoGetArgs>;

/** `todo_get` declaration: ReadOnly, replay Safe (a read of durable state, TD3), ParallelSafe. */
export const todoGetDeclaration: ToolDeclaration<TodoGetArgs> = {
  name: 'todo_get',
  effect: 'ReadOnly',
  replay: 'Safe',
  concurrency: 'ParallelSafe',
  args: todoGetArgs,
  summarize: () => 'todo_get',
};
