/**
 * Declaration of `todo_update` (GP31; its schema is a SEED-GAP decided in
 * docs/goals.md "Todo"): one batch of changes applied atomically against
 * `expected_revision`. Each change is op-tagged (`add` | `set`): one object
 * shape whose `op` is its only required field, each op's own fields checked
 * here (GP21 style), so a malformed change blocks the call before anything
 * runs (TD8). Invariant refusals (two in progress, unfinished dependency,
 * cycle, …) come from the reducer (core/work/todo.ts). The implementation
 * is activities/tools/todo-update.ts.
 */
import { z } from 'zod';
import { MAX_TODOS, TODO_STATUSES, type TodoChange } from '../work/todo.js';
import { summaryLine } from './summary.js';
import type { ToolDeclaration } from './types.js';
import { workIssue, workNote, workRevision, workTitle } from './work-args.js';

/** Shape of a Todo id (`td_<n>`, host-given). */
const todoId = z.string().regex(/^td_\d+$/, 'a Todo id looks like td_3 (as todo_get shows it)');

const change = z.strictObject({
  op: z.enum(['add', 'set']).describe('add: a new Todo (the host gives its id). set: change the Todo named by id.'),
  id: todoId.nullish().describe('set: the Todo to change (td_<n>). add: leave it out.'),
  title: workTitle.nullish().describe('add: required, what to do. set: a new title, or leave it out.'),
  status: z
    .enum(TODO_STATUSES)
    .nullish()
    .describe(
      'add: pending (default) or in_progress. set: the new status. At most one Todo is in_progress; blocked needs blockedBy; completed and dropped are final.',
    ),
  blockedBy: workNote.nullish().describe('set with status blocked: what it waits for.'),
  dependsOn: z
    .array(todoId)
    .max(MAX_TODOS)
    .nullish()
    .describe(
      'Todo ids that must be completed before this one starts or completes (ids added earlier in the same batch count). set: replaces the list.',
    ),
  step: z.string().nullish().describe('add: the Plan step id this Todo serves (st_<n>), optional.'),
});

/** The object the model sends (and the JSON Schema providers see). */
const todoUpdateObject = z.strictObject({
  expected_revision: workRevision.describe(
    'The Todo revision todo_get returned, copied verbatim (0 while the list is empty).',
  ),
  changes: z
    .array(change)
    .min(1)
    .max(MAX_TODOS)
    .describe('The changes, applied in order as one batch: all of them or none.'),
});

type TodoUpdateObject = z.infer<typeof todoUpdateObject>;

/** The per-op field checks. */
function checkOps(v: TodoUpdateObject, ctx: z.RefinementCtx): void {
  v.changes.forEach((c, i) => {
    const at = (field: string) => ['changes', i, field];
    if (c.op === 'add') {
      if (c.id != null) workIssue(ctx, at('id'), 'op=add makes a new Todo: the host gives its id, leave id out');
      if (c.title == null) workIssue(ctx, at('title'), 'op=add needs a title');
      if (c.status != null && c.status !== 'pending' && c.status !== 'in_progress') {
        workIssue(ctx, at('status'), 'a new Todo starts pending or in_progress');
      }
      if (c.blockedBy != null)
        workIssue(ctx, at('blockedBy'), 'a new Todo is not blocked: add it, then set it blocked');
      return;
    }
    if (c.id == null) workIssue(ctx, at('id'), 'op=set names the Todo it changes');
    if (c.step != null) workIssue(ctx, at('step'), 'op=set cannot move a Todo to another Plan step');
    if (c.blockedBy != null && c.status != null && c.status !== 'blocked') {
      workIssue(ctx, at('blockedBy'), 'blockedBy goes with status blocked');
    }
  });
}

function toChange(c: TodoUpdateObject['changes'][number]): TodoChange {
  const common = {
    ...(c.title != null ? { title: c.title } : {}),
    ...(c.dependsOn != null ? { dependsOn: c.dependsOn } : {}),
  };
  if (c.op === 'add') {
    return {
      op: 'add',
      title: c.title!,
      ...common,
      ...(c.status != null ? { status: c.status as 'pending' | 'in_progress' } : {}),
      ...(c.step != null ? { step: c.step } : {}),
    };
  }
  return {
    op: 'set',
    id: c.id!,
    ...common,
    ...(c.status != null ? { status: c.status } : {}),
    ...(c.blockedBy != null ? { blockedBy: c.blockedBy } : {}),
  };
}

/** Parsed arguments of `todo_update`. */
export interface TodoUpdateArgs {
  expected_revision: number;
  changes: TodoChange[];
}

/** Arguments of `todo_update`: the batch, checked per op, parsed into reducer changes. */
export const todoUpdateArgs = todoUpdateObject
  .superRefine(checkOps)
  .transform((v): TodoUpdateArgs => ({ expected_revision: v.expected_revision, changes: v.changes.map(toChange) }));

/**
 * `todo_update` declaration: SideEffecting, Exclusive, replay Safe because
 * it is idempotent by its tool call, like `plan_update` (docs/goals.md "Replay").
 */
export const todoUpdateDeclaration: ToolDeclaration<TodoUpdateArgs> = {
  name: 'todo_update',
  effect: 'SideEffecting',
  replay: 'Safe',
  concurrency: 'Exclusive',
  args: todoUpdateArgs,
  summarize(args) {
    const adds = args.changes.filter((c) => c.op === 'add').length;
    const sets = args.changes.filter((c) => c.op === 'set').map((c) => (c.op === 'set' ? c.id : ''));
    const parts = [...(adds ? [`add ${adds}`] : []), ...(sets.length ? [`set ${sets.join(', ')}`] : [])];
    return summaryLine(`todo_update: ${parts.join('; ')}`);
  },
};
