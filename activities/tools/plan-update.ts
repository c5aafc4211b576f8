/**
 * `plan_update` tool implementation (GP3, GP17–GP21): applies one action to
 * the session's stored Plan through the reducer (core/work/plan.ts), once
 * per tool call — the new Plan and the call's result commit in one
 * transaction, and a second run of the same call returns the recorded
 * result (docs/goals.md "Replay"). A refusal (stale revision, one-step
 * Plan, terminal step, …) is an `isError` result with the reducer's code
 * and changes nothing; a stored Plan this build cannot read is
 * `plan_corrupt` and nothing is written at all (fail closed).
 */
import { planUpdateDeclaration, type PlanUpdateArgs } from '../../core/tools/plan-update.js';
import type { ToolResult } from '../../core/tools/types.js';
import { decodePlan, encodePlan } from '../../core/work/codec.js';
import { applyPlanUpdate, PlanCorruption, type PlanState } from '../../core/work/plan.js';
import { errorResult } from './common.js';
import type { ToolContext } from './context.js';
import type { ToolBody } from './tool-body.js';
import { noWorkState, planView, type WorkDecision, type WorkStateColumns } from './work-state.js';
import { runTool } from './wrapper.js';

/** What one `plan_update` call does to the committed columns. */
export function decidePlanUpdate(args: PlanUpdateArgs, current: WorkStateColumns): WorkDecision<ToolResult> {
  let plan: PlanState | null;
  try {
    plan = decodePlan(current);
  } catch (err) {
    if (!(err instanceof PlanCorruption)) throw err;
    return { result: errorResult(err.code, `${err.message}. Nothing was changed.`), record: false };
  }
  const out = applyPlanUpdate(plan, args);
  if ('refused' in out) {
    return { result: errorResult(out.refused.code, `${out.refused.message}. Nothing was changed.`), record: true };
  }
  const next = out.state;
  return {
    write: encodePlan(next),
    record: true,
    result: {
      output: `plan_update ${args.action}: the Plan is now at revision ${next.revision}.\n${planView(next)}`,
      isError: false,
      data: { revision: next.revision, depth: next.levels.length },
    },
  };
}

async function planUpdate(args: PlanUpdateArgs, ctx: ToolContext): Promise<ToolResult> {
  const port = ctx.workState;
  if (!port) return noWorkState('plan_update');
  return port.updateOnce((current) => decidePlanUpdate(args, current));
}

/** `plan_update` body: updates the work state through `ctx.workState`, once per call. */
export const planUpdateTool: ToolBody<PlanUpdateArgs> = {
  run: planUpdate,
  needsWorkState: true,
};

/** Runs `plan_update` through the shared wrapper (validation, TD9 caps). */
export function runPlanUpdate(args: unknown, ctx: ToolContext): Promise<ToolResult> {
  return runTool(planUpdateDeclaration, planUpdateTool, args, ctx);
}
