import { EV } from '../../core/events.js';
import type { BgCommandInput, BgCommandResult } from '../../core/session/activities.js';
import { validateToolCall } from '../../core/tools/registry.js';
import type { ProjectionStore } from '../projection/types.js';
import type { BgCompletion } from '../tools/bg/index.js';

/**
 * The arguments of a background call: inline in the planned call, or read
 * back from its tool-call row when they were too long for history.
 * @throws Error when the stored arguments are missing or no longer valid.
 */
export async function backgroundCallArgs(store: ProjectionStore, input: BgCommandInput): Promise<unknown> {
  const { call, sessionId } = input;
  if (!call.argsInProjection) return call.args;
  const row = await store.getToolCall(sessionId, call.rowId);
  const verdict = row ? validateToolCall(call.name, row.argsJson) : null;
  if (!verdict?.ok) throw new Error(`tool call ${call.rowId}: stored arguments are missing or invalid`);
  return verdict.args;
}

/** What recording a settled task needs of its completion. */
export type SettledTask = Pick<
  BgCompletion,
  'taskID' | 'state' | 'outcome' | 'exitCode' | 'totalWritten' | 'durationMs' | 'report'
>;

/**
 * Records a settled background task (BG6): appends `bg.completed` (id
 * `<taskID>:completed`, so a second writer — a retried poll — adds nothing)
 * and returns the small completion the workflow admits to its inbox.
 */
export async function recordBackgroundCompletion(
  store: ProjectionStore,
  where: { sessionId: string; rowId: string },
  done: SettledTask,
): Promise<BgCommandResult> {
  await store.appendEvent({
    id: `${done.taskID}:completed`,
    sessionId: where.sessionId,
    type: EV.bgCompleted,
    data: {
      taskID: done.taskID,
      rowId: where.rowId,
      state: done.state,
      outcome: done.outcome,
      exitCode: done.exitCode ?? null,
      totalWritten: done.totalWritten,
      durationMs: done.durationMs,
    },
    atMs: Date.now(),
  });
  return {
    taskID: done.taskID,
    state: done.state,
    outcome: done.outcome,
    ...(done.exitCode !== undefined ? { exitCode: done.exitCode } : {}),
    report: done.report,
  };
}
