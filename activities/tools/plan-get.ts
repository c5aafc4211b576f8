/**
 * `plan_get` tool implementation (GP3, GP18, GP22): the session's Plan from
 * the projection, with the revision the next `plan_update` must carry and
 * the fingerprint of the work state it saw (an activity fact: three
 * identical reads in a row stop the turn, workflows/stagnation-guard.ts).
 * A stored Plan this build cannot read is `plan_corrupt` (fail closed).
 */
import { planGetDeclaration, type PlanGetArgs } from '../../core/tools/plan-get.js';
import type { ToolResult } from '../../core/tools/types.js';
import { decodePlan } from '../../core/work/codec.js';
import { PlanCorruption } from '../../core/work/plan.js';
import { errorResult } from './common.js';
import type { ToolContext } from './context.js';
import type { ToolBody } from './tool-body.js';
import { planView, noWorkState, readFacts, workStateFingerprint } from './work-state.js';
import { runTool } from './wrapper.js';

async function planGet(_args: PlanGetArgs, ctx: ToolContext): Promise<ToolResult> {
  const port = ctx.workState;
  if (!port) return noWorkState('plan_get');
  const row = await port.read();
  let plan;
  try {
    plan = decodePlan(row);
  } catch (err) {
    if (err instanceof PlanCorruption)
      return errorResult(err.code, `${err.message}. Nothing can read or change it until it is repaired.`);
    throw err;
  }
  return {
    output: planView(plan),
    isError: false,
    data: { revision: plan?.revision ?? null, depth: plan?.levels.length ?? 0, fingerprint: workStateFingerprint(row) },
  };
}

/** `plan_get` body: reads the work state through `ctx.workState`; its fingerprint is an activity fact. */
export const planGetTool: ToolBody<PlanGetArgs> = {
  run: planGet,
  needsWorkState: true,
  activityFacts: readFacts,
};

/** Runs `plan_get` through the shared wrapper (validation, TD9 caps). */
export function runPlanGet(args: unknown, ctx: ToolContext): Promise<ToolResult> {
  return runTool(planGetDeclaration, planGetTool, args, ctx);
}
