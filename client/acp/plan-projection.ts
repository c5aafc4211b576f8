/**
 * The session's Plan as an ACP `plan` update (GP29): a session-level
 * projector of the durable work state (the projection's work-state row,
 * decoded by core/work/codec.ts), never a reading of tool names. Each
 * change of the Plan's revision sends the whole plan again, as ACP asks.
 */
import type { PlanEntry, SessionUpdate } from '@agentclientprotocol/sdk';
import type { ProjectionStore } from '../../activities/projection/index.js';
import { decodePlan } from '../../core/work/codec.js';
import type { PlanState, StepStatus } from '../../core/work/plan.js';

const STATUS: Record<StepStatus, PlanEntry['status'] | null> = {
  pending: 'pending',
  in_progress: 'in_progress',
  completed: 'completed',
  // A superseded step is no longer work: left out of the client's plan.
  superseded: null,
};

/**
 * The ACP plan entries of a Plan: every level's steps, root first; a step
 * of a nested level (a `push`) is prefixed with `↳ ` per level. Pure.
 */
export function planEntries(plan: PlanState): PlanEntry[] {
  return plan.levels.flatMap((level, depth) =>
    level.steps.flatMap((s) => {
      const status = STATUS[s.status];
      return status ? [{ content: `${'↳ '.repeat(depth)}${s.title}`, priority: 'medium' as const, status }] : [];
    }),
  );
}

/** Sends a `plan` update each time the stored Plan's revision changes. */
export class PlanProjector {
  private revision: number | null | undefined = undefined;

  constructor(
    private readonly store: Pick<ProjectionStore, 'getWorkState'>,
    private readonly sessionId: string,
  ) {}

  /**
   * The `plan` update when the stored Plan changed since the last call
   * (the first call sends the current Plan, if any), else null. A Plan this
   * build cannot decode is skipped (null), never guessed.
   * @throws what the store throws.
   */
  async next(): Promise<SessionUpdate | null> {
    const row = await this.store.getWorkState(this.sessionId);
    const revision = row?.planRevision ?? null;
    if (revision === this.revision) return null;
    const first = this.revision === undefined;
    this.revision = revision;
    if (!row || revision === null) return first ? null : { sessionUpdate: 'plan', entries: [] };
    let plan: PlanState | null;
    try {
      plan = decodePlan(row);
    } catch {
      return null;
    }
    return plan ? { sessionUpdate: 'plan', entries: planEntries(plan) } : null;
  }
}
