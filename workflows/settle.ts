import { ActivityFailure, ApplicationFailure, CancelledFailure, TimeoutFailure } from '@temporalio/workflow';
import type { PlannedToolCall, SettledOutcome } from '../core/session/tool-calls.js';
import type { ToolDeclaration } from '../core/tools/types.js';

/**
 * Decides the persisted outcome of a tool call whose activity failed (TD3,
 * TD4, GP9). A replay-`Never` call that timed out or whose worker vanished has
 * an unknown outcome: `uncertain` with cause `lost_outcome` (or `interrupted`
 * when cancelled) — it is never re-run. A `Safe` call that exhausted its
 * retries is an ordinary `error`. Pure; `nowMs` comes from the workflow clock.
 */
export function settleLostCall(
  call: PlannedToolCall,
  decl: Pick<ToolDeclaration, 'replay' | 'affectedPaths'>,
  failure: ActivityFailure,
  nowMs: number,
): SettledOutcome {
  const cause = failure.cause;
  const failureType =
    cause instanceof ApplicationFailure ? (cause.type ?? 'ApplicationFailure') : (cause?.constructor.name ?? 'unknown');
  const base = {
    rowId: call.rowId,
    callId: call.callId,
    tool: call.name,
    failureType,
    message: (cause?.message ?? failure.message).slice(0, 500),
    observedAtMs: nowMs,
    paths: decl.affectedPaths && !call.argsInProjection ? decl.affectedPaths(call.args as never) : [],
  };
  // Cancelled before any worker started it (a started tool activity answers a cancel with its own
  // report, never with a cancelled failure): nothing ran (TD10).
  if (cause instanceof CancelledFailure) return settleNotRun(call, nowMs);
  if (decl.replay === 'Never') return { ...base, outcome: 'uncertain', cause: 'lost_outcome' };
  return { ...base, outcome: 'error', cause: cause instanceof TimeoutFailure ? 'lost_outcome' : 'failed' };
}

/**
 * TD10 forced interrupt: the call's activity did not settle within
 * `forceAfterMs` of a hard interrupt, so the workflow stops
 * waiting and records it `uncertain` with cause `interrupted` — whatever its
 * replay policy, nobody knows how far it got. Pure.
 */
export function settleForcedInterrupt(
  call: PlannedToolCall,
  decl: Pick<ToolDeclaration, 'affectedPaths'>,
  nowMs: number,
  forceAfterMs: number,
): SettledOutcome {
  return {
    rowId: call.rowId,
    callId: call.callId,
    tool: call.name,
    outcome: 'uncertain',
    cause: 'interrupted',
    failureType: 'forced_interrupt',
    message: `a hard interrupt did not get the call's own report within ${forceAfterMs} ms; it was abandoned`,
    observedAtMs: nowMs,
    paths: decl.affectedPaths && !call.argsInProjection ? decl.affectedPaths(call.args as never) : [],
  };
}

/** TD10: a planned call the interrupted turn never scheduled — nothing ran. Pure. */
export function settleNotRun(call: PlannedToolCall, nowMs: number): SettledOutcome {
  return {
    rowId: call.rowId,
    callId: call.callId,
    tool: call.name,
    outcome: 'error',
    cause: 'not_run',
    failureType: 'not_run',
    message: 'the turn was interrupted before this call started; nothing ran',
    observedAtMs: nowMs,
    paths: [],
  };
}

/** TD8, PM6: a call the permission gate refused (a `deny` rule or a person's denial) — nothing ran; `message` is what the model sees. Pure. */
export function settleDenied(call: PlannedToolCall, message: string, nowMs: number): SettledOutcome {
  return {
    rowId: call.rowId,
    callId: call.callId,
    tool: call.name,
    outcome: 'blocked',
    cause: 'denied',
    failureType: 'denied',
    message,
    observedAtMs: nowMs,
    paths: [],
  };
}
