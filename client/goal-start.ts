import { randomBytes } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { type Client, type WorkflowHandle, WorkflowNotFoundError } from '@temporalio/client';
import { ZunoError } from '../core/errors.js';
import { TypedSearchAttributes } from '@temporalio/common';
import type { GoalBudgets } from '../core/goal/budgets.js';
import { type GoalSnapshot, type GoalWorkflowInput, goalWorkflowId } from '../core/goal/contract.js';
import { ZunoGoalStatus, ZunoKind, ZunoSessionId } from '../core/search-attributes.js';
import type { AdmissionReceipt } from '../core/session/inbox.js';
import type { SessionMeta } from '../core/session/meta.js';
import type { SessionResult } from '../core/session/outcome.js';
import { markdownLiteral } from '../core/ui-text.js';
import { sessionResultOf, startSession, titleOf } from './session-start.js';
import type { GoalWatchSpec } from '../core/goal/watch.js';
import { sessionWorkflowId } from '../core/ids.js';

/** Gap between two looks for a watched Goal's session, in ms (a follower's, not a wait of the Goal's). */
const SESSION_LOOK_MS = 1_000;

/**
 * The result of a Goal's session, waiting first for its workflow to exist
 * (a watched Goal's session starts when its watch reports; any other Goal's
 * exists from its start). @throws what {@link sessionResultOf} throws; ZunoError `goal_ended`.
 */
export async function goalSessionResult(
  client: Client,
  goalId: string,
  sessionId: string,
  signal?: AbortSignal,
): Promise<SessionResult> {
  const goal = client.workflow.getHandle(goalWorkflowId(goalId));
  const session = client.workflow.getHandle(sessionWorkflowId(sessionId));
  return sessionResultOf(await sessionOnceStarted(sessionId, goal, session, signal));
}

/**
 * The session of a watched Goal once its workflow exists (the Goal starts it
 * when its watch reports). `signal` ends the looking (the follower stopped):
 * nothing is asked of Temporal after it.
 * @throws ZunoError `goal_ended` when the Goal closed without starting it;
 *   `interrupted` once `signal` aborted.
 */
async function sessionOnceStarted(
  sessionId: string,
  goal: WorkflowHandle,
  session: WorkflowHandle,
  signal?: AbortSignal,
): Promise<WorkflowHandle> {
  const stopped = () => new ZunoError('interrupted', `stopped looking for session ${sessionId}`);
  for (;;) {
    if (signal?.aborted) throw stopped();
    const found = await session.describe().then(
      () => true,
      (err: unknown) => {
        if (signal?.aborted) throw stopped();
        if (err instanceof WorkflowNotFoundError) return false;
        throw err;
      },
    );
    if (found) return session;
    const g = await goal.describe().catch((err: unknown) => {
      throw signal?.aborted ? stopped() : err;
    });
    if (g.status.name !== 'RUNNING')
      throw new ZunoError('goal_ended', `goal ${g.workflowId} ended before its session ${sessionId} started`);
    await delay(SESSION_LOOK_MS, undefined, signal ? { signal } : {}).catch(() => undefined);
  }
}

/** A new goal id: `goal_` + time (base36) + 8 random hex chars; sortable by creation time. */
export function newGoalId(): string {
  return `goal_${Date.now().toString(36)}${randomBytes(4).toString('hex')}`;
}

/** What a started Goal hands back. */
export interface StartedGoal {
  goalId: string;
  workflowId: string;
  /** The admission receipt of the objective, the session's first input (the user anchor, GL24); null for a watched Goal (its session starts when the watch reports). */
  receipt: AdmissionReceipt | null;
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
  /** A release watch (issue 31): the Goal waits on it and starts its session itself when it reports. */
  watch?: GoalWatchSpec;
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
    ...(goal.watch ? { watch: goal.watch } : {}),
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
      { key: ZunoGoalStatus, value: goal.watch ? 'waiting_watch' : 'active' },
    ]),
  });
  if (goal.watch) {
    const session = client.workflow.getHandle(sessionWorkflowId(meta.sessionId));
    return {
      goalId: goal.goalId,
      workflowId,
      receipt: null,
      goal: handle,
      sessionResult: async () => sessionResultOf(await sessionOnceStarted(meta.sessionId, handle, session)),
      result: () => handle.result() as Promise<GoalSnapshot>,
    };
  }
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
