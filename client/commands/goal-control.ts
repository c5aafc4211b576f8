import { ZunoError } from '../../core/errors.js';
import type { GoalControlResult, GoalSnapshot } from '../../core/goal/contract.js';
import { goalWorkflowId } from '../../core/goal/contract.js';
import { sessionWorkflowId } from '../../core/ids.js';
import { resolvePaths, type TemporalContext, type ZunoPaths } from '../context.js';
import { type GoalControlAsk, queryGoal, sendGoalControl } from '../goal-client.js';
import { parseBudgetFlags, type GoalBudgetFlags } from '../goal-input.js';
import { type GoalServing, serveRecordedRoute } from '../goal-serve.js';
import { waitUntilQuiet } from '../goal-quiet.js';
import { processSink } from '../render.js';
import type { Sink } from '../sink.js';
import { budgetLines } from './goal-show-view.js';
import { connectGoal, type GoalTarget, openGoalTarget } from './goal-target.js';

/** A Goal a control command talks to: found, connected, and served for the command's length. */
export interface ServedGoal extends GoalTarget {
  paths: ZunoPaths;
  temporal: TemporalContext;
  baseQueue: string;
  serving: GoalServing;
}

/**
 * Runs `fn` on a Goal that is open in Temporal and served while `fn` runs
 * (goal-serve.ts `serveRecordedRoute`: a Goal whose driving command ended
 * is served by this process), then stops serving and closes everything.
 * @throws what {@link openGoalTarget} and {@link connectGoal} throw, and what `fn` throws.
 */
export async function withServedGoal<T>(
  goalId: string,
  command: string,
  fn: (g: ServedGoal) => Promise<T>,
): Promise<T> {
  const paths = resolvePaths();
  const target = await openGoalTarget(goalId, paths);
  const cleanups: (() => Promise<unknown>)[] = [() => target.store.close()];
  try {
    const { temporal, baseQueue } = await connectGoal(paths, goalId, null);
    cleanups.unshift(() => temporal.connection.close());
    const serving = await serveRecordedRoute({
      paths,
      temporal,
      store: target.store,
      baseQueue,
      session: target.session,
      command,
    });
    cleanups.unshift(async () => {
      // This worker finishes what the Goal and its session do after the control before it stops.
      if (serving.servedHere)
        await waitUntilQuiet(temporal.client, [goalWorkflowId(goalId), sessionWorkflowId(target.row.sessionId)]);
      await serving.stop();
    });
    return await fn({ ...target, paths, temporal, baseQueue, serving });
  } finally {
    for (const c of cleanups) await c().catch(() => undefined);
  }
}

/** How long a control command waits for what the Goal records (and, for cancel, for its workflows to close), in ms. */
const SETTLE_WAIT_MS = 15_000;

/**
 * Sends one control bound to the revision just queried (`ask(snapshot)`
 * builds it, or throws a refusal of its own) and waits until the Goal's
 * projection row shows the result's revision — so `goal list`/`show` agree
 * at once; a record that takes longer is said, not waited for.
 */
export async function controlGoal(
  g: ServedGoal,
  ask: (s: GoalSnapshot) => GoalControlAsk,
  sink: Sink,
): Promise<GoalControlResult> {
  const snap = await queryGoal(g.temporal.client, g.row.id);
  const result = await sendGoalControl(g.temporal.client, g.row.id, ask(snap));
  const recorded = await until(async () => {
    const row = await g.store.getGoal(g.row.id);
    return row !== null && row.snapshot.revision >= result.revision;
  });
  if (!recorded && result.revision !== snap.revision)
    sink.err(
      `(goal ${g.row.id}'s record is not updated yet: it is written on its session's route, served by ${g.serving.by})\n`,
    );
  return result;
}

async function until(check: () => Promise<boolean>, ms = SETTLE_WAIT_MS): Promise<boolean> {
  const end = Date.now() + ms;
  for (;;) {
    if (await check()) return true;
    if (Date.now() >= end) return false;
    await new Promise((r) => setTimeout(r, 150));
  }
}

/** The result of a control, printed: one line in plain words, or its JSON. */
function printResult(r: GoalControlResult, json: boolean, sink: Sink): void {
  sink.out(json ? `${JSON.stringify(r)}\n` : `goal ${r.goalId}: ${r.message} (revision ${r.revision})\n`);
}

/**
 * `zuno goal pause <id>`: the Goal stops auto-continuing (`goalControl`
 * pause; a running turn ends normally, its next turn does not start).
 * Exit 0.
 * @throws ZunoError `goal_not_found`, `goal_closed`, `goal_not_active` (already paused), `no_worker`, …
 */
export async function goalPauseCommand(goalId: string, opts: { json?: boolean }, sink: Sink = processSink) {
  return withServedGoal(goalId, 'zuno goal pause', async (g) => {
    const r = await controlGoal(g, (s) => ({ action: 'pause', expectedRevision: s.revision }), sink);
    printResult(r, opts.json === true, sink);
    return 0;
  });
}

/**
 * `zuno goal cancel <id>`: the Goal ends `cancelled` (a running turn ends
 * normally; nothing more starts). Waits until its workflow has closed and,
 * when this process serves it, its session too. Exit 0.
 * @throws ZunoError `goal_not_found`, `goal_closed`, `no_worker`, …
 */
export async function goalCancelCommand(goalId: string, opts: { json?: boolean }, sink: Sink = processSink) {
  return withServedGoal(goalId, 'zuno goal cancel', async (g) => {
    const r = await controlGoal(g, (s) => ({ action: 'cancel', expectedRevision: s.revision }), sink);
    const client = g.temporal.client;
    const closed = (id: string) =>
      until(async () => (await client.workflow.getHandle(id).describe()).status.name !== 'RUNNING');
    const goalClosed = await closed(goalWorkflowId(goalId));
    // A session served by this process is seen to its end: nothing of it is left waiting on a route nobody serves.
    if (goalClosed && g.serving.servedHere) await closed(sessionWorkflowId(g.row.sessionId));
    printResult(r, opts.json === true, sink);
    return 0;
  });
}

/**
 * `zuno goal budgets <id> [--token-budget N] [--turn-budget N]
 * [--tool-call-budget N] [--time-budget D]`: sets the named budgets (the
 * others stay as they are); a Goal stopped by its budget can then be
 * resumed. Exit 0.
 * @throws ZunoError `usage_error` (no budget named), `input_invalid` (every bad value named), `goal_*`, …
 */
export async function goalBudgetsCommand(
  goalId: string,
  opts: GoalBudgetFlags & { json?: boolean },
  sink: Sink = processSink,
) {
  const given = [opts.tokenBudget, opts.turnBudget, opts.toolCallBudget, opts.timeBudget].some((v) => v !== undefined);
  if (!given)
    throw new ZunoError(
      'usage_error',
      'name at least one budget: --token-budget N, --turn-budget N, --tool-call-budget N or --time-budget DURATION',
    );
  const parsed = parseBudgetFlags(opts);
  if (!parsed.ok) throw new ZunoError('input_invalid', parsed.problems.join('; '));
  return withServedGoal(goalId, 'zuno goal budgets', async (g) => {
    let next: GoalSnapshot | undefined;
    const r = await controlGoal(
      g,
      (s) => {
        next = { ...s, budgets: { ...s.budgets, ...parsed.budgets } };
        return { action: 'budgets', expectedRevision: s.revision, budgets: next.budgets };
      },
      sink,
    );
    printResult(r, opts.json === true, sink);
    if (!opts.json && next)
      sink.out(
        `${budgetLines(next.budgets, next, Date.now())
          .map((l) => `  ${l}`)
          .join('\n')}\n`,
      );
    if (!opts.json && r.status === 'budget_limited') sink.out(`  resume it: zuno goal resume ${goalId}\n`);
    return 0;
  });
}
