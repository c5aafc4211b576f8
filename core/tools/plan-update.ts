/**
 * Declaration of `plan_update` (GP3, GP17–GP21): one action-tagged object
 * schema — `action` is the only required field, every other field is
 * nullable and optional, and each action's own fields are checked here
 * (GP21), so a call without an action, or with a field its action does not
 * take, is a blocked `invalid_arguments` call before anything runs (TD8).
 * Refusals that depend on the stored Plan (stale revision, one-step Plan,
 * terminal step, …) come from the reducer (core/work/plan.ts). The
 * implementation is activities/tools/plan-update.ts.
 */
import { z } from 'zod';
import { MAX_PLAN_STEPS, STEP_STATUSES, type NewStep, type PlanUpdate, type StepStatus } from '../work/plan.js';
import { summaryLine } from './summary.js';
import type { ToolDeclaration } from './types.js';
import { workIssue, workNote, workRevision, workTitle } from './work-args.js';

/** The `plan_update` actions (GP19). */
export const PLAN_ACTIONS = ['create', 'patch', 'append', 'push', 'pop'] as const;

// One step shape for every action: the actions differ only in which of its
// fields they require or forbid (GP21: then the nullable form and a
// description per action, not anyOf).
const step = z.strictObject({
  id: z
    .string()
    .nullish()
    .describe(
      'patch: the id of the step to change, as plan_get shows it (st_<n>). create/append/push: leave it out — the host gives ids.',
    ),
  title: workTitle
    .nullish()
    .describe('create/append/push: required, what the step does. patch: a new title, or leave it out.'),
  status: z
    .enum(STEP_STATUSES)
    .nullish()
    .describe(
      'create/append/push: pending (default) or in_progress. patch: the new status; completed and superseded are final and never change again.',
    ),
  acceptance: workNote.nullish().describe('What shows the step is done (optional, every action but pop).'),
});

/** The object the model sends (and the JSON Schema providers see). */
const planUpdateObject = z.strictObject({
  action: z
    .enum(PLAN_ACTIONS)
    .describe(
      'create: the first Plan, or a new Plan replacing the current one (at least two steps). patch: change the named steps of the current level. append: add steps to the current level. push: open a focused child Plan on top. pop: close the child Plan and return to exactly its parent.',
    ),
  expected_revision: workRevision
    .nullish()
    .describe(
      'The revision plan_get returned just before, copied verbatim. Required for every action except the first create after plan_get returned no Plan.',
    ),
  steps: z
    .array(step)
    .max(MAX_PLAN_STEPS)
    .nullish()
    .describe(
      'create/append/push: the new steps, in order. patch: the changes, one per named step id. pop: leave it out.',
    ),
});

type PlanUpdateObject = z.infer<typeof planUpdateObject>;
type StepObject = z.infer<typeof step>;

/** The per-action field checks (GP21). */
function checkAction(v: PlanUpdateObject, ctx: z.RefinementCtx): void {
  if (v.action !== 'create' && v.expected_revision == null) {
    workIssue(
      ctx,
      ['expected_revision'],
      `action=${v.action} needs expected_revision: call plan_get and copy its revision`,
    );
  }
  if (v.action === 'pop') {
    if (v.steps != null)
      workIssue(ctx, ['steps'], 'action=pop takes no steps: it returns to the parent Plan as it was');
    return;
  }
  if (v.steps == null || v.steps.length === 0) {
    workIssue(ctx, ['steps'], `action=${v.action} needs steps`);
    return;
  }
  v.steps.forEach((s, i) => {
    if (v.action === 'patch') {
      if (s.id == null) workIssue(ctx, ['steps', i, 'id'], 'action=patch names the id of each step it changes');
      else if (s.title == null && s.status == null && s.acceptance == null) {
        workIssue(ctx, ['steps', i], 'a patch changes at least one of title, status, acceptance');
      }
      return;
    }
    if (s.id != null)
      workIssue(ctx, ['steps', i, 'id'], `action=${v.action} makes new steps: the host gives ids, leave id out`);
    if (s.title == null) workIssue(ctx, ['steps', i, 'title'], `action=${v.action} needs a title for every step`);
    if (s.status != null && s.status !== 'pending' && s.status !== 'in_progress') {
      workIssue(ctx, ['steps', i, 'status'], 'a new step starts pending or in_progress');
    }
  });
}

function newStep(s: StepObject): NewStep {
  return {
    title: s.title!,
    ...(s.status != null ? { status: s.status as 'pending' | 'in_progress' } : {}),
    ...(s.acceptance != null ? { acceptance: s.acceptance } : {}),
  };
}

function toUpdate(v: PlanUpdateObject): PlanUpdate {
  const revision = v.expected_revision ?? undefined;
  switch (v.action) {
    case 'create':
      return {
        action: 'create',
        ...(revision !== undefined ? { expected_revision: revision } : {}),
        steps: v.steps!.map(newStep),
      };
    case 'pop':
      return { action: 'pop', expected_revision: revision! };
    case 'patch':
      return {
        action: 'patch',
        expected_revision: revision!,
        steps: v.steps!.map((s) => ({
          id: s.id!,
          ...(s.title != null ? { title: s.title } : {}),
          ...(s.status != null ? { status: s.status as StepStatus } : {}),
          ...(s.acceptance != null ? { acceptance: s.acceptance } : {}),
        })),
      };
    default:
      return { action: v.action, expected_revision: revision!, steps: v.steps!.map(newStep) };
  }
}

/** Arguments of `plan_update`: the action-tagged object, checked per action, parsed into a {@link PlanUpdate}. */
export const planUpdateArgs = planUpdateObject.superRefine(checkAction).transform(toUpdate);

/** Parsed arguments of `plan_update`. */
export type PlanUpdateArgs = PlanUpdate;

/**
 * `plan_update` declaration: SideEffecting (it changes durable state, not
 * the workspace), Exclusive (updates apply in model order), replay Safe —
 * not because the update is harmless to repeat, but because it is made
 * idempotent by its tool call: the activity applies it and records the
 * result in one transaction, and a second run of the same call returns the
 * recorded result (docs/goals.md "Replay"). A lost outcome is therefore
 * settled by running the call again, never left uncertain.
 */
export const planUpdateDeclaration: ToolDeclaration<PlanUpdateArgs> = {
  name: 'plan_update',
  effect: 'SideEffecting',
  replay: 'Safe',
  concurrency: 'Exclusive',
  args: planUpdateArgs,
  summarize(args) {
    if (args.action === 'pop') return 'plan_update: pop';
    if (args.action === 'patch') return summaryLine(`plan_update: patch ${args.steps.map((s) => s.id).join(', ')}`);
    return summaryLine(`plan_update: ${args.action} ${args.steps.length} step${args.steps.length === 1 ? '' : 's'}`);
  },
};
