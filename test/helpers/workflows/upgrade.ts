// Two builds of one workflow for the rolling-upgrade test (test/worker/rolling-upgrade.test.ts):
// build N and build N+1, whose steps differ by a command guarded by patched(). Each build's
// bundle entry (`build-n.ts`, `build-n1.ts`) exports one of them as `upgradeWorkflow`.
// Deterministic workflow code: bundled by the Temporal worker.
import {
  condition,
  defineQuery,
  defineSignal,
  patched,
  proxyActivities,
  setHandler,
  sleep,
} from '@temporalio/workflow';
import type { GoalActivities } from '../../../core/goal/activities.js';

/** Asks for one more step; its argument is the activity task queue of the host that runs the step's activity. */
export const stepSignal = defineSignal<[string]>('step');
/** Ends the workflow once the steps asked before it ran. */
export const finishSignal = defineSignal('finish');
/** How many steps ran so far. */
export const stepsQuery = defineQuery<number>('steps');

/** The patch id build N+1 adds: a 1 ms timer after each step's activity. */
export const UPGRADE_PATCH = 'upgrade-step-timer';

/** Per step, which shape of the command sequence it took: `n` (activity only) or `n1` (activity, marker, timer). */
export interface UpgradeResult {
  steps: ('n' | 'n1')[];
}

/** Build N: each step runs one `watchProbe` activity on the step's host queue. */
export async function upgradeWorkflowN(): Promise<UpgradeResult> {
  return upgradeRun(false);
}

/** Build N+1: each step also sleeps 1 ms after the activity, guarded by `patched(UPGRADE_PATCH)`. */
export async function upgradeWorkflowN1(): Promise<UpgradeResult> {
  return upgradeRun(true);
}

async function upgradeRun(nextBuild: boolean): Promise<UpgradeResult> {
  const asked: string[] = [];
  const steps: UpgradeResult['steps'] = [];
  let finish = false;
  setHandler(stepSignal, (hostQueue) => void asked.push(hostQueue));
  setHandler(finishSignal, () => void (finish = true));
  setHandler(stepsQuery, () => steps.length);
  for (;;) {
    await condition(() => asked.length > 0 || finish);
    const hostQueue = asked.shift();
    if (hostQueue === undefined) return { steps };
    const { watchProbe } = proxyActivities<GoalActivities>({
      taskQueue: hostQueue,
      startToCloseTimeout: '1 minute',
      retry: { maximumAttempts: 1 },
    });
    // A refused private address: the activity answers at once, with no network I/O.
    await watchProbe({
      goalId: 'upgrade',
      url: 'http://127.0.0.1:9/',
      until: { kind: 'status', status: 200 },
      attempt: 1,
      allowPrivate: [],
    });
    if (nextBuild && patched(UPGRADE_PATCH)) {
      await sleep(1);
      steps.push('n1');
    } else steps.push('n');
  }
}
