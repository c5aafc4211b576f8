/**
 * What a session holds of the Goal that drives it (DESIGN.md §3): the
 * binding in its meta and the link it carries across continue-as-new. Apart
 * from core/goal/contract.ts so the session's meta can name it without
 * importing the Goal contract, which itself names the session's meta.
 */
import type { GoalState } from './status.js';

/** What a Goal-bound session knows of its Goal (in {@link SessionMeta.goal}). */
export interface SessionGoalBinding {
  goalId: string;
}

/** What a Goal-bound session carries across continue-as-new about its Goal (workflows/goal-link.ts). */
export interface CarriedGoalLink {
  revision: number;
  status: GoalState['status'];
  toolsDisabled: boolean;
  continuation: { continuationId: string; revision: number } | null;
}
