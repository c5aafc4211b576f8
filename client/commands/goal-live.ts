import { goalWorkflowId } from '../../core/goal/contract.js';
import type { ZunoPaths } from '../context.js';
import { LOOKUP_TIMEOUT_MS, lookupTarget } from './show-route.js';

/** What Temporal says of a Goal's workflow right now (`goal show`). */
export interface GoalLive {
  /** The newest run's execution status (`RUNNING`, `COMPLETED`, …); null when Temporal could not be asked. */
  execution: string | null;
  /** The workflow's current details line (answered by a worker), or null. */
  currentDetails: string | null;
  /** Why something is missing, in plain words. */
  note?: string;
}

/**
 * Asks Temporal about a Goal's workflow without starting anything (the
 * configured server, or this home's dev server when it runs; at most about
 * a second per call): its execution status, and its current details through
 * the built-in `__temporal_workflow_metadata` query — which a worker
 * answers, so with no Zuno worker running the details stay unknown and the
 * note says why.
 */
export async function liveGoalDetails(paths: ZunoPaths, goalId: string): Promise<GoalLive> {
  const target = await lookupTarget(paths).catch(() => null);
  if (!target) return { execution: null, currentDetails: null, note: 'no Temporal server is running for this home' };
  let conn: Awaited<ReturnType<typeof target.connect>>;
  try {
    conn = await target.connect();
  } catch {
    return { execution: null, currentDetails: null, note: `Temporal at ${target.address} did not answer` };
  }
  try {
    const handle = conn.client.workflow.getHandle(goalWorkflowId(goalId));
    const execution = await conn.connection
      .withDeadline(Date.now() + LOOKUP_TIMEOUT_MS, () => handle.describe())
      .then(
        (d) => d.status.name as string,
        () => null,
      );
    if (execution === null)
      return { execution, currentDetails: null, note: "Temporal does not know this goal's workflow" };
    const md = await conn.connection
      .withDeadline(Date.now() + LOOKUP_TIMEOUT_MS, () =>
        handle.query<{ currentDetails?: string }>('__temporal_workflow_metadata'),
      )
      .catch(() => null);
    if (!md)
      return {
        execution,
        currentDetails: null,
        note: "no worker answered (current details come from a worker: none runs the goal's workflow now)",
      };
    return { execution, currentDetails: md.currentDetails || null };
  } finally {
    await conn.connection.close().catch(() => undefined);
  }
}
