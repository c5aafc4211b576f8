/**
 * What the work-state tools (`plan_get`, `plan_update`, `todo_get`,
 * `todo_update`) share: the port to the session's stored work state they
 * receive in `ctx.workState`, the GP22 fingerprint of that state, and the
 * JSON views the model reads. Not model-facing itself.
 */
import { createHash } from 'node:crypto';
import type { PlanState } from '../../core/work/plan.js';
import type { TodoState } from '../../core/work/todo.js';
import type { ToolActivityFacts, ToolResult } from '../../core/tools/types.js';
import type { WorkStateColumns } from '../projection/work-state.js';
import { errorResult } from './common.js';

export type { WorkDecision, WorkStateColumns } from '../projection/work-state.js';

/** Hex digits of a work-state fingerprint. */
const FINGERPRINT_HEX = 16;

/**
 * GP22 fingerprint of the authoritative work state: SHA-256 over exactly the
 * stored Plan and Todo columns (revisions and JSON), first 16 hex digits.
 * Any committed change — every successful update adds 1 to a revision —
 * changes it; nothing else (arguments, time, the call) enters it.
 */
export function workStateFingerprint(s: WorkStateColumns): string {
  const material = JSON.stringify([s.planRevision, s.planJson, s.todoRevision, s.todoJson]);
  return createHash('sha256').update(material, 'utf8').digest('hex').slice(0, FINGERPRINT_HEX);
}

/** The activity facts of a work-state read: its fingerprint when it succeeded (GP22). */
export function readFacts(result: ToolResult): ToolActivityFacts {
  const fp = result.data?.fingerprint;
  return !result.isError && typeof fp === 'string' ? { workState: fp } : {};
}

/** The result of a call made where no port was provided (a wiring bug, not a model error). */
export function noWorkState(tool: string): ToolResult {
  return errorResult('work_state_unavailable', `${tool}: the session's work state is not available here`);
}

/** The Plan as the model reads it: revision, stack depth and every level (root first). */
export function planView(plan: PlanState | null): string {
  if (plan === null) {
    return [
      'No Plan exists (plan: null). The first plan_update action=create may leave expected_revision out.',
      JSON.stringify({ plan: null }),
    ].join('\n');
  }
  const view = {
    revision: plan.revision,
    depth: plan.levels.length,
    ...(plan.goalId ? { goalId: plan.goalId } : {}),
    levels: plan.levels,
  };
  return [
    `Plan at revision ${plan.revision}, ${plan.levels.length} level${plan.levels.length === 1 ? '' : 's'} (the last is the current one). Copy the revision into expected_revision of the next plan_update.`,
    JSON.stringify(view, null, 2),
  ].join('\n');
}

/** The Todo list as the model reads it: revision and every Todo. */
export function todoView(todo: TodoState | null): string {
  const revision = todo?.revision ?? 0;
  const items = todo?.items ?? [];
  const head =
    items.length === 0
      ? `No Todo yet (revision ${revision}). A todo_update with expected_revision ${revision} adds the first ones.`
      : `Todo list at revision ${revision}, ${items.length} Todo${items.length === 1 ? '' : 's'}. Copy the revision into expected_revision of the next todo_update.`;
  return [head, JSON.stringify({ revision, items }, null, 2)].join('\n');
}
