import {
  ApplicationFailure,
  CancellationScope,
  ChildWorkflowFailure,
  proxyActivities,
  uuid4,
} from '@temporalio/workflow';
import { PROJECTION_RECORD_OPTIONS } from '../core/activity-policy.js';
import {
  type CouncilActivities,
  type CouncilResult,
  type CouncilWorkflowInput,
  councilSummary,
  type SettleCouncilCallInput,
} from '../core/council/contract.js';
import { type DelegationActivities, depthOf } from '../core/delegation/contract.js';
import type { PlannedToolCall } from '../core/session/tool-calls.js';
import type { CouncilRunArgs } from '../core/tools/council-run.js';
import { startCouncilChild } from './council-start.js';
import type { DelegatedCall, DelegationHost } from './delegation.js';
import { onRoute, type RouteOptions } from './route.js';

/** The activities a `council_run` call records itself with (the worker serves them: worker/worker.ts). */
type CouncilCallActivities = Pick<DelegationActivities, 'recordCallStarted'> &
  Pick<CouncilActivities, 'settleCouncilCall'>;

/**
 * A `council_run` call (DC5, DC23–DC27; issue 12 item 5), run by the
 * session workflow: a `council/<runId>` child workflow with the frozen
 * `balanced-review` preset, started with this session's meta as the seats'
 * base (they are its children's peers: depth + 1, narrowed to reviewer
 * roles) and waited for in the foreground (DC27 SEED-GAP "how a Council's
 * result is delivered": foreground). Its result or typed failure becomes the
 * call's result (`settleCouncilCall`), recorded outside the turn's scope
 * even when an interrupt cancelled the Council. (Refusals — too large, the
 * depth limit — are decided before, `delegationRefusal`.)
 */
export async function runCouncilCall(
  host: DelegationHost,
  call: PlannedToolCall,
  at: { turn: number; step: number },
): Promise<DelegatedCall> {
  const { meta } = host;
  const depth = depthOf(meta);
  const args = call.args as CouncilRunArgs;
  // The CLI's format (`cr_<time36><hex8>`), from workflow time and the workflow's uuid4.
  const runId = `cr_${Date.now().toString(36)}${uuid4().replace(/-/g, '').slice(0, 8)}`;
  const input: CouncilWorkflowInput = {
    runId,
    question: args.question,
    ...(args.diff ? { diffRange: args.diff } : {}),
    preset: 'balanced-review',
    base: meta,
    parent: { sessionId: meta.sessionId, rootSessionId: meta.delegation?.rootSessionId ?? meta.sessionId, depth },
  };
  const acts = (o: RouteOptions) => proxyActivities<CouncilCallActivities>({ ...PROJECTION_RECORD_OPTIONS, ...o });
  await onRoute(host, (o) => acts(o).recordCallStarted({ sessionId: meta.sessionId, rowId: call.rowId }));
  let result: CouncilResult | undefined;
  let failure: { code: string; message: string } | undefined;
  try {
    const handle = await startCouncilChild(input, councilSummary(input));
    result = await handle.result();
  } catch (err) {
    const end = councilEndOf(err);
    result = end.result;
    failure = end.failure;
  }
  const settle: SettleCouncilCallInput = {
    sessionId: meta.sessionId,
    turn: at.turn,
    step: at.step,
    rowId: call.rowId,
    callId: call.callId,
    runId,
    ...(result ? { result } : {}),
    ...(failure ? { failure } : {}),
  };
  const value = await CancellationScope.nonCancellable(() => onRoute(host, (o) => acts(o).settleCouncilCall(settle)));
  return { kind: 'done', value };
}

/**
 * What a Council's failure says: a typed Council failure carries its
 * CouncilResult (every seat) as `details[0]`; anything else (cancelled,
 * terminated, timed out) is a failure with Temporal's type and message.
 */
export function councilEndOf(err: unknown): { result?: CouncilResult; failure?: { code: string; message: string } } {
  const cause = err instanceof ChildWorkflowFailure ? err.cause : err;
  if (cause instanceof ApplicationFailure) {
    const d = cause.details?.[0] as Partial<CouncilResult> | undefined;
    if (d && typeof d.runId === 'string' && Array.isArray(d.seats)) return { result: d as CouncilResult };
    return { failure: { code: cause.type ?? 'council_failed', message: cause.message } };
  }
  const e = cause as Error | undefined;
  return { failure: { code: e?.name ?? 'council_failed', message: e?.message ?? String(cause) } };
}
