/**
 * The stored form of the work state (docs/goals.md "Storage"): each part's
 * revision in a column of its own, the rest of its reducer state as JSON
 * text. Decoding fails closed (GP20, GL30): a value this build cannot read
 * exactly — bad JSON, a missing or unknown field, an unknown status — is
 * corruption, never repaired or guessed.
 */
import { z } from 'zod';
import { checkPlanState, PlanCorruption, type PlanState } from './plan.js';
import { checkTodoState, TodoCorruption, type TodoState } from './todo.js';

// Statuses are strings here: checkPlanState / checkTodoState name an unknown one.
const planBody = z.strictObject({
  levels: z
    .array(
      z.strictObject({
        steps: z.array(
          z.strictObject({
            id: z.string(),
            title: z.string(),
            status: z.string(),
            acceptance: z.string().optional(),
          }),
        ),
      }),
    )
    .min(1),
  nextStep: z.number().int().min(1),
  goalId: z.string().optional(),
});

const todoBody = z.strictObject({
  items: z.array(
    z.strictObject({
      id: z.string(),
      title: z.string(),
      status: z.string(),
      blockedBy: z.string().optional(),
      dependsOn: z.array(z.string()),
      step: z.string().optional(),
    }),
  ),
  nextItem: z.number().int().min(1),
});

/** The Plan columns of a work-state row. */
export interface StoredPlan {
  planRevision: number | null;
  planJson: string | null;
}

/** The Todo columns of a work-state row. */
export interface StoredTodo {
  todoRevision: number;
  todoJson: string | null;
}

/** The columns that store `state` (null: no Plan). */
export function encodePlan(state: PlanState | null): StoredPlan {
  if (state === null) return { planRevision: null, planJson: null };
  const { revision, ...body } = state;
  return { planRevision: revision, planJson: JSON.stringify(body) };
}

/**
 * The Plan stored in these columns, or null when none exists.
 * @throws PlanCorruption (`plan_corrupt`) when only one of the two columns is
 *   set, the JSON does not parse, its shape is not exactly a Plan's, or a step
 *   status is missing or unknown.
 */
export function decodePlan(row: StoredPlan): PlanState | null {
  if (row.planRevision === null && row.planJson === null) return null;
  if (row.planRevision === null || row.planJson === null) {
    throw new PlanCorruption('the stored Plan has a revision without steps or steps without a revision: it is corrupt');
  }
  const body = parseBody(row.planJson, planBody, (m) => new PlanCorruption(`the stored Plan is corrupt: ${m}`));
  const state = { ...body, revision: row.planRevision } as PlanState;
  checkPlanState(state);
  return state;
}

/** The columns that store `state`. */
export function encodeTodo(state: TodoState): StoredTodo {
  const { revision, ...body } = state;
  return { todoRevision: revision, todoJson: JSON.stringify(body) };
}

/**
 * The Todo list stored in these columns, or null before its first batch.
 * @throws TodoCorruption (`todo_corrupt`) when the JSON does not parse, its
 *   shape is not exactly a Todo list's, or a status is missing or unknown.
 */
export function decodeTodo(row: StoredTodo): TodoState | null {
  if (row.todoJson === null) return null;
  const body = parseBody(row.todoJson, todoBody, (m) => new TodoCorruption(`the stored Todo list is corrupt: ${m}`));
  const state = { ...body, revision: row.todoRevision } as TodoState;
  checkTodoState(state);
  return state;
}

function parseBody<T>(json: string, schema: z.ZodType<T>, corrupt: (message: string) => Error): T {
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch {
    throw corrupt('its JSON does not parse');
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const first = parsed.error.issues[0]!;
    throw corrupt(`${first.path.join('.') || '(root)'}: ${first.message}`);
  }
  return parsed.data;
}
