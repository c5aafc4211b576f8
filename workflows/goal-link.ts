import { getExternalWorkflowHandle, log } from '@temporalio/workflow';
import type { CarriedGoalLink } from '../core/goal/link.js';
import {
  GOAL_TURN_SIGNAL,
  type GoalDirective,
  type GoalTurnReport,
  type GoalTurnSource,
  goalWorkflowId,
} from '../core/goal/contract.js';
import type { GoalStatus } from '../core/goal/status.js';
import type { AdmittedInput } from '../core/session/inbox.js';

/** Statuses in which a background report waits in the inbox instead of waking a turn (GL28). */
const REPORTS_WAIT: ReadonlySet<GoalStatus> = new Set(['paused', 'blocked', 'budget_limited']);

/**
 * The session's side of its Goal (GL19–GL28): what the session knows of the
 * Goal (status, revision, from the Goal's `goalDirective` signals), the one
 * continuation the Goal asked for, and the `goalTurn` reports the session
 * sends back. Sessions without a Goal have no link and no new commands.
 * Deterministic.
 */
export class GoalLink {
  revision: number;
  status: GoalStatus;
  toolsDisabled: boolean;
  private continuation: CarriedGoalLink['continuation'];

  constructor(
    readonly goalId: string,
    carried?: CarriedGoalLink,
  ) {
    this.revision = carried?.revision ?? 1;
    this.status = carried?.status ?? 'active';
    this.toolsDisabled = carried?.toolsDisabled ?? false;
    this.continuation = carried?.continuation ?? null;
  }

  /** Signal handler of `goalDirective`: the Goal's newest status and revision; a continuation to run. */
  onDirective(d: GoalDirective): void {
    if (d.revision < this.revision) return; // an older directive delivered late changes nothing
    this.revision = d.revision;
    this.status = d.status;
    this.toolsDisabled = d.toolsDisabled === true;
    if (d.continueWith) this.continuation = { continuationId: d.continueWith.continuationId, revision: d.revision };
  }

  /** A continuation waits to run. */
  hasContinuation(): boolean {
    return this.continuation !== null;
  }

  /**
   * Takes the waiting continuation (GL19): valid only when the Goal is still
   * active at the revision it was prepared for; otherwise it is void — the
   * Goal is told, and nothing reaches the provider.
   */
  async takeContinuation(): Promise<{ continuationId: string; revision: number } | null> {
    const c = this.continuation;
    this.continuation = null;
    if (!c) return null;
    if (c.revision === this.revision && this.status === 'active') return c;
    const reason =
      c.revision !== this.revision
        ? `the goal's revision moved from ${c.revision} to ${this.revision} before the turn started`
        : `the goal is ${this.status}`;
    await this.report({ event: 'voided', continuationId: c.continuationId, revision: c.revision, reason });
    return null;
  }

  /** Whether queued background reports may wake a turn now (GL28: a paused or stopped Goal's reports wait). */
  reportsMayWake(): boolean {
    return !REPORTS_WAIT.has(this.status);
  }

  /** The Goal has ended: its session may close once idle. */
  ended(): boolean {
    return this.status === 'completed' || this.status === 'cancelled';
  }

  /** What drives a turn that takes `first` from the inbox (turn 0's input is the objective: the anchor). */
  sourceOf(turn: number, first: AdmittedInput[]): GoalTurnSource {
    if (first.length > 0 && first.every((i) => i.kind === 'report')) return { kind: 'report' };
    if (this.toolsDisabled) return { kind: 'discussion' };
    return turn === 0 ? { kind: 'anchor' } : { kind: 'user' };
  }

  /** Sends a `goalTurn` report to the Goal; a Goal that is gone (cancelled, terminated) is logged, not fatal. */
  async report(r: GoalTurnReport): Promise<void> {
    try {
      await getExternalWorkflowHandle(goalWorkflowId(this.goalId)).signal(GOAL_TURN_SIGNAL, r);
    } catch (err) {
      log.info('goal report not delivered (the goal has ended or is gone)', {
        goalId: this.goalId,
        event: r.event,
        error: String(err),
      });
    }
  }

  /** State for continue-as-new. */
  toCarried(): CarriedGoalLink {
    return {
      revision: this.revision,
      status: this.status,
      toolsDisabled: this.toolsDisabled,
      continuation: this.continuation,
    };
  }
}
