import { CancellationScope, proxyActivities, uuid4 } from '@temporalio/workflow';
import { PROJECTION_RECORD_OPTIONS } from '../core/activity-policy.js';
import {
  type ChildEnd,
  childMeta,
  childSessionIdOf,
  depthOf,
  jobIdOf,
  MAX_DELEGATION_DEPTH,
  type DelegationActivities,
  type SettleDelegationResult,
  taskPrompt,
} from '../core/delegation/contract.js';
import type { DelegationLink } from '../core/delegation/link.js';
import type { PlannedToolCall, SettledOutcome } from '../core/session/tool-calls.js';
import type { SessionMeta } from '../core/session/meta.js';
import type { ToolActivityResult } from '../core/session/tool-activity.js';
import { inertLine } from '../core/terminal-text.js';
import { declaredTools } from '../core/tools/registry.js';
import type { TaskArgs } from '../core/tools/task.js';
import type { BackgroundTasks } from './background.js';
import { childEndOfFailure, childEndOfResult, startChildSession } from './child-session.js';
import { onRoute, type RouteHost } from './route.js';
import { settleDenied } from './settle.js';

/** What a delegation needs from the session that makes it. */
export interface DelegationHost extends RouteHost {
  readonly background: BackgroundTasks;
}

/** How a delegated call ended for the turn: a result to record as the call's, or a settlement. */
export type DelegatedCall = { kind: 'done'; value: ToolActivityResult } | { kind: 'settled'; settled: SettledOutcome };

const ALL_TOOLS = Object.keys(declaredTools);

function records(host: RouteHost): Pick<DelegationActivities, 'openDelegation' | 'settleDelegation'> {
  return {
    openDelegation: (i) =>
      onRoute(host, (o) =>
        proxyActivities<DelegationActivities>({ ...PROJECTION_RECORD_OPTIONS, ...o }).openDelegation(i),
      ),
    settleDelegation: (i) =>
      onRoute(host, (o) =>
        proxyActivities<DelegationActivities>({ ...PROJECTION_RECORD_OPTIONS, ...o }).settleDelegation(i),
      ),
  };
}

/**
 * A `task` call (DC1–DC4, DC9, DC11, DC16; issue 12 item 2–3), run by the
 * session workflow itself:
 * - `openDelegation` writes the child's session row and the delegation row;
 * - the child `session/<id>` workflow starts with the parent's meta narrowed
 *   by the role (`childMeta`: nothing widens, no user-facing tools);
 * - foreground (default): the call waits for the child in the turn's scope
 *   (an interrupt cancels the child and waits until it closed), then
 *   `settleDelegation` — outside the cancelled scope — records the report
 *   as the call's result;
 * - background: the call's result is the job id (written by
 *   `openDelegation`); the child runs as a job of {@link BackgroundTasks}
 *   and its settled report reaches the inbox once (`reportDelivery: nextStep`).
 * Never throws for a child's failure: that is the child's status in the report.
 */
export async function runTask(
  host: DelegationHost,
  call: PlannedToolCall,
  at: { turn: number; step: number },
): Promise<DelegatedCall> {
  const { meta } = host;
  const depth = depthOf(meta);
  const args = call.args as TaskArgs;
  const background = args.background === true;
  const jobId = background ? jobIdOf(at.turn, at.step, call.index ?? call.position) : undefined;
  const childSessionId = childSessionIdOf(uuid4());
  const link: DelegationLink = {
    parentSessionId: meta.sessionId,
    rootSessionId: meta.delegation?.rootSessionId ?? meta.sessionId,
    depth: depth + 1,
    rowId: call.rowId,
    ...(jobId ? { jobId } : {}),
  };
  const title = inertLine(`${args.agent}: ${args.objective}`, 120);
  const child = childMeta(meta, { sessionId: childSessionId, agent: args.agent, title, link }, ALL_TOOLS);
  const startedAtMs = Date.now();
  const acts = records(host);
  const opened = await acts.openDelegation({
    parentSessionId: meta.sessionId,
    rootSessionId: link.rootSessionId,
    turn: at.turn,
    step: at.step,
    rowId: call.rowId,
    callId: call.callId,
    ...(jobId ? { jobId } : {}),
    childSessionId,
    agent: args.agent,
    depth: link.depth,
    objective: args.objective,
    child: { workspace: child.workspace, provider: child.provider, model: child.model, title, route: child.route },
    startedAtMs,
  });
  const summary = `task ${args.agent}${jobId ? ` (${jobId})` : ''}: ${args.objective}`.slice(0, 200);
  const runChild = async (): Promise<ChildEnd> => {
    const handle = await startChildSession({ meta: child, prompt: taskPrompt(args), summary });
    try {
      return childEndOfResult(await handle.result());
    } catch (err) {
      return childEndOfFailure(err);
    }
  };
  const settle = (end: ChildEnd): Promise<SettleDelegationResult> =>
    // The child has ended: record it even when the turn (or the job) was cancelled meanwhile.
    CancellationScope.nonCancellable(() =>
      acts.settleDelegation({
        parentSessionId: meta.sessionId,
        turn: at.turn,
        step: at.step,
        rowId: call.rowId,
        callId: call.callId,
        ...(jobId ? { jobId } : {}),
        childSessionId,
        agent: args.agent,
        end,
        settledAtMs: Date.now(),
      }),
    );
  if (jobId) {
    host.background.startJob(jobId, `task ${args.agent} · ${args.objective.slice(0, 80)}`, async () => {
      const end = await runChild().catch((err: unknown) => childEndOfFailure(err));
      return (await settle(end)).report;
    });
    return { kind: 'done', value: opened ?? { outcome: 'ok', outputBytes: 0 } };
  }
  const end = await runChild().catch((err: unknown) => childEndOfFailure(err));
  return { kind: 'done', value: (await settle(end)).call };
}

/**
 * Why a delegated call (`task`, `council_run`) starts nothing, or undefined
 * when it may start: its arguments were too large to travel in the
 * workflow's history (> 64 KiB, `argsInProjection`), or the session is at
 * the depth limit (DC22). Blocked, as a settlement the next step persists.
 */
export function delegationRefusal(meta: SessionMeta, call: PlannedToolCall): SettledOutcome | undefined {
  const refuse = (message: string, failureType: string): SettledOutcome => ({
    ...settleDenied(call, message, Date.now()),
    failureType,
  });
  if (call.args === undefined)
    return refuse(
      `the ${call.name} arguments are larger than 64 KiB; keep the brief short and put long material in a file the child can read`,
      'arguments_too_large',
    );
  const depth = depthOf(meta);
  if (depth >= MAX_DELEGATION_DEPTH)
    return refuse(
      `delegation depth limit: this session is at depth ${depth} of at most ${MAX_DELEGATION_DEPTH}; it cannot start a child session or a Council. Do the work yourself or report back.`,
      'delegation_depth',
    );
  return undefined;
}
