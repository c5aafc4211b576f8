/**
 * The Plan as durable work state (GP3, GP15–GP21, GL30), one pure reducer:
 * `plan_update` actions applied to the stored state, each checked against
 * `expected_revision`, with host-generated step ids and terminal statuses
 * that never move. Storage (projection) and the tools come later; this is
 * the rule set they share. SEED-GAP decisions: docs/goals.md "Plan".
 */

/** Step statuses (GP20; `pending` decided): `completed` and `superseded` are terminal. */
export const STEP_STATUSES = ['pending', 'in_progress', 'completed', 'superseded'] as const;
export type StepStatus = (typeof STEP_STATUSES)[number];
const TERMINAL: ReadonlySet<StepStatus> = new Set(['completed', 'superseded']);

/** One step. `id` is the host's (`st_<n>`), never the model's. */
export interface PlanStep {
  id: string;
  title: string;
  status: StepStatus;
  /** What shows the step is done (optional). */
  acceptance?: string;
}

/** One Plan level; a `push` opens a child level on top, `pop` returns to the one below. */
export interface PlanLevel {
  steps: PlanStep[];
}

/** The stored Plan state of a session: the level stack (root first), its revision, the next step number. */
export interface PlanState {
  revision: number;
  levels: PlanLevel[];
  nextStep: number;
  /** The Goal the root Plan is bound to, if any (GL24). */
  goalId?: string;
}

/** Most nested levels (root included) a `push` may open. */
export const MAX_PLAN_DEPTH = 4;
/** Most steps one level holds. */
export const MAX_PLAN_STEPS = 50;

/** A new step as the model gives it. */
export interface NewStep {
  title: string;
  status?: 'pending' | 'in_progress';
  acceptance?: string;
}

/** A `plan_update` call, validated for shape (its schema is action-tagged, GP21). */
export type PlanUpdate =
  | { action: 'create'; expected_revision?: number; steps: NewStep[] }
  | {
      action: 'patch';
      expected_revision: number;
      steps: { id: string; title?: string; status?: StepStatus; acceptance?: string }[];
    }
  | { action: 'append'; expected_revision: number; steps: NewStep[] }
  | { action: 'push'; expected_revision: number; steps: NewStep[] }
  | { action: 'pop'; expected_revision: number };

/** Why a `plan_update` was refused (a blocked result the model sees, TD8); nothing changes. */
export type PlanRefusal = {
  code:
    | 'revision_required'
    | 'stale_revision'
    | 'plan_exists'
    | 'no_plan'
    | 'one_step_plan'
    | 'unknown_step'
    | 'terminal_step'
    | 'too_many_steps'
    | 'stack_too_deep'
    | 'nothing_to_pop';
  message: string;
};

/** Durable Plan state this build cannot trust (GP20: a missing, unknown or legacy `cancelled` status): fail closed. */
export class PlanCorruption extends Error {
  readonly code = 'plan_corrupt';
}

/**
 * Applies one `plan_update` to `state` (null: no Plan yet). Returns the new
 * state (revision + 1) or a refusal; never changes `state`.
 * - Every action but the first `create` needs `expected_revision` equal to the
 *   current revision (GP18); replacing an existing Plan with `create` needs it too.
 * - A Plan has at least two steps at creation (GP17: never a one-step Plan).
 * - `patch` touches only the named steps; a terminal step keeps its status.
 * - `append` and `push` get host ids; `push` opens a child level (≤ {@link MAX_PLAN_DEPTH});
 *   `pop` returns to exactly the parent level.
 * @throws PlanCorruption when `state` holds a status this build does not know.
 */
export function applyPlanUpdate(
  state: PlanState | null,
  u: PlanUpdate,
): { state: PlanState } | { refused: PlanRefusal } {
  if (state) checkPlanState(state);
  if (u.action === 'create' && state === null) {
    if (u.expected_revision !== undefined && u.expected_revision !== 0) return stale(0, u.expected_revision);
    return withSteps(
      { revision: 0, levels: [], nextStep: 1 },
      u.steps,
      (s, steps) => ({ ...s, levels: [{ steps }] }),
      2,
    );
  }
  if (state === null) return refuse('no_plan', 'there is no Plan yet: plan_update action=create makes one');
  if (u.expected_revision === undefined) {
    return refuse('revision_required', `call plan_get and pass its revision (${state.revision}) as expected_revision`);
  }
  if (u.expected_revision !== state.revision) return stale(state.revision, u.expected_revision);
  switch (u.action) {
    case 'create':
      return withSteps({ ...state, levels: [] }, u.steps, (s, steps) => ({ ...s, levels: [{ steps }] }), 2);
    case 'append':
      return withSteps(state, u.steps, (s, steps) => replaceTop(s, [...top(s).steps, ...steps]), 1);
    case 'push':
      if (state.levels.length >= MAX_PLAN_DEPTH) {
        return refuse('stack_too_deep', `at most ${MAX_PLAN_DEPTH} nested Plan levels; pop one first`);
      }
      return withSteps(state, u.steps, (s, steps) => ({ ...s, levels: [...s.levels, { steps }] }), 1);
    case 'pop':
      if (state.levels.length < 2) return refuse('nothing_to_pop', 'the root Plan has no parent to return to');
      return { state: { ...state, revision: state.revision + 1, levels: state.levels.slice(0, -1) } };
    case 'patch': {
      const steps = top(state).steps.map((s) => ({ ...s }));
      for (const p of u.steps) {
        const step = steps.find((s) => s.id === p.id);
        if (!step) return refuse('unknown_step', `no step ${p.id} in the current Plan level`);
        if (p.status !== undefined && p.status !== step.status && TERMINAL.has(step.status)) {
          return refuse('terminal_step', `step ${p.id} is ${step.status}, which is final`);
        }
        if (p.title !== undefined) step.title = p.title;
        if (p.status !== undefined) step.status = p.status;
        if (p.acceptance !== undefined) step.acceptance = p.acceptance;
      }
      return { state: { ...replaceTop(state, steps), revision: state.revision + 1 } };
    }
  }
}

/**
 * Checks stored Plan state before anything reads it (GP20, GL30).
 * @throws PlanCorruption naming the first step whose status is missing or unknown.
 */
export function checkPlanState(state: PlanState): void {
  for (const level of state.levels) {
    for (const s of level.steps) {
      if (!(STEP_STATUSES as readonly string[]).includes(s.status as string)) {
        throw new PlanCorruption(
          `step ${s.id} has status ${JSON.stringify(s.status ?? null)}, which this build does not know: the stored Plan is corrupt`,
        );
      }
    }
  }
}

/** true when every step of every level is terminal (the audit's view of a finished Plan, GL30). */
export function planFinished(state: PlanState): boolean {
  checkPlanState(state);
  return state.levels.every((l) => l.steps.every((s) => TERMINAL.has(s.status)));
}

function withSteps(
  state: PlanState,
  fresh: NewStep[],
  place: (s: PlanState, steps: PlanStep[]) => PlanState,
  atLeast: number,
): { state: PlanState } | { refused: PlanRefusal } {
  if (fresh.length < atLeast) {
    return refuse(
      'one_step_plan',
      atLeast === 2 ? 'a Plan has at least two steps; do a one-step task directly' : 'give at least one step',
    );
  }
  if (fresh.length > MAX_PLAN_STEPS) return refuse('too_many_steps', `at most ${MAX_PLAN_STEPS} steps per Plan level`);
  let next = state.nextStep;
  const steps: PlanStep[] = fresh.map((s) => ({
    id: `st_${next++}`,
    title: s.title,
    status: s.status ?? 'pending',
    ...(s.acceptance !== undefined ? { acceptance: s.acceptance } : {}),
  }));
  const placed = place({ ...state, nextStep: next }, steps);
  if (top(placed).steps.length > MAX_PLAN_STEPS)
    return refuse('too_many_steps', `at most ${MAX_PLAN_STEPS} steps per Plan level`);
  return { state: { ...placed, revision: state.revision + 1 } };
}

function top(s: PlanState): PlanLevel {
  return s.levels[s.levels.length - 1]!;
}

function replaceTop(s: PlanState, steps: PlanStep[]): PlanState {
  return { ...s, levels: [...s.levels.slice(0, -1), { steps }] };
}

function stale(current: number, given: number): { refused: PlanRefusal } {
  return refuse('stale_revision', `the Plan is at revision ${current}, not ${given}: call plan_get and try again`);
}

function refuse(code: PlanRefusal['code'], message: string): { refused: PlanRefusal } {
  return { refused: { code, message } };
}
