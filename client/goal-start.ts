import { randomBytes } from 'node:crypto';
import { type Client, type WorkflowHandle } from '@temporalio/client';
import { TypedSearchAttributes } from '@temporalio/common';
import type { GoalBudgets } from '../core/goal/budgets.js';
import { type GoalSnapshot, type GoalWorkflowInput, goalWorkflowId } from '../core/goal/contract.js';
import { ZunoGoalStatus, ZunoKind, ZunoSessionId } from '../core/search-attributes.js';
import type { AdmissionReceipt } from '../core/session/inbox.js';
import type { SessionMeta } from '../core/session/meta.js';
import type { SessionResult } from '../core/session/outcome.js';
import { markdownLiteral } from '../core/ui-text.js';
import { startSession, titleOf } from './session-start.js';

/** A new goal id: `goal_` + time (base36) + 8 random hex chars; sortable by creation time. */
export function newGoalId(): string {
  return `goal_${Date.now().toString(36)}${randomBytes(4).toString('hex')}`;
}

/** What a started Goal hands back. */
export interface StartedGoal {
  goalId: string;
  workflowId: string;
  /** The admission receipt of the objective, the session's first input (the user anchor, GL24). */
  receipt: AdmissionReceipt;
  goal: WorkflowHandle;
  /** The session's workflow result (a Goal's session closes once the Goal ended and it is idle). */
  sessionResult(): Promise<SessionResult>;
  /** The Goal's final snapshot (completed or cancelled). */
  result(): Promise<GoalSnapshot>;
}

/** What a person's command gives to start a Goal: its id, objective, criteria, budgets and the session's meta. */
export interface GoalWorkflowStart {
  goalId: string;
  objective: string;
  criteria: GoalWorkflowInput['criteria'];
  budgets: GoalBudgets;
  meta: SessionMeta;
}

/**
 * Starts a Goal (DESIGN.md §3): the `goal/<goalId>` workflow first — with
 * `ZunoKind=goal`, `ZunoGoalStatus=active`, `ZunoSessionId` — then its
 * session `session/<sessionId>`, bound to the Goal (`meta.goal`), whose first
 * input is the objective (update-with-start: admitted with a receipt). The
 * Goal is started first so the session's first report always finds it.
 * @throws WorkflowExecutionAlreadyStartedError for a goal id in use; what {@link startSession} throws (the Goal is then terminated).
 */
export async function startGoal(client: Client, taskQueue: string, goal: GoalWorkflowStart): Promise<StartedGoal> {
  const workflowId = goalWorkflowId(goal.goalId);
  const meta: SessionMeta = { ...goal.meta, goal: { goalId: goal.goalId } };
  const input: GoalWorkflowInput = {
    goalId: goal.goalId,
    objective: goal.objective,
    criteria: goal.criteria,
    budgets: goal.budgets,
    session: meta,
    createdAtMs: Date.now(),
  };
  const handle = await client.workflow.start('goalWorkflow', {
    workflowId,
    taskQueue,
    args: [input],
    staticSummary: `goal: ${markdownLiteral(titleOf(goal.objective))}`,
    staticDetails: markdownLiteral(`session ${meta.sessionId} · workspace ${meta.workspace}`),
    typedSearchAttributes: new TypedSearchAttributes([
      { key: ZunoKind, value: 'goal' },
      { key: ZunoSessionId, value: meta.sessionId },
      { key: ZunoGoalStatus, value: 'active' },
    ]),
  });
  let started: Awaited<ReturnType<typeof startSession>>;
  try {
    started = await startSession(client, taskQueue, meta, { text: goal.objective }, { exitWhenIdle: true });
  } catch (err) {
    await handle.terminate('its session could not start').catch(() => undefined);
    throw err;
  }
  return {
    goalId: goal.goalId,
    workflowId,
    receipt: started.receipt,
    goal: handle,
    sessionResult: started.result,
    result: () => handle.result() as Promise<GoalSnapshot>,
  };
}
