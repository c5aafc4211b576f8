/**
 * Declaration of `plan_get` (GP3, GP18, GP22): reads the session's Plan —
 * every level of its stack and the revision the next `plan_update` must
 * carry. Deterministic: zod + pure code only. The implementation is
 * activities/tools/plan-get.ts.
 */
import { z } from 'zod';
import type { ToolDeclaration } from './types.js';

/** Arguments of `plan_get`: none. */
export const planGetArgs = z.strictObject({});

/** Parsed arguments of `plan_get`. */
export type PlanGetArgs = z.infer<typeof planGetArgs>;

/** `plan_get` declaration: ReadOnly, replay Safe (a read of durable state, TD3), ParallelSafe. */
export const planGetDeclaration: ToolDeclaration<PlanGetArgs> = {
  name: 'plan_get',
  effect: 'ReadOnly',
  replay: 'Safe',
  concurrency: 'ParallelSafe',
  args: planGetArgs,
  summarize: () => 'plan_get',
};
