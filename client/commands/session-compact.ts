import { WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import { ZunoError } from '../../core/errors.js';
import { asErrorCode } from '../../core/error-codes.js';
import { sessionWorkflowId } from '../../core/ids.js';
import { COMPACT_UPDATE, type CompactReceipt, type CompactRequest } from '../../core/session/updates.js';
import { connectTemporal, resolvePaths } from '../context.js';
import { kTokens, processSink } from '../render.js';
import type { Sink } from '../sink.js';
import { checkSessionId, describeSessionRun } from '../session-start.js';
import { endedWords } from '../session-reconcile.js';
import { openGoalTarget } from './goal-target.js';

/**
 * `zuno session compact <id> [--json]` (issue 28 item 4, CP7): asks the
 * live session to compact its conversation now, whatever `compaction.auto`
 * says. The session's workflow runs it between turns (a running turn ends
 * first) on the host that serves it; this command waits for the summary and
 * prints the token counts before and after. Ctrl-C leaves the request with
 * the session: it still runs.
 * @throws ZunoError `session_id_invalid`, `session_not_found`,
 *   `session_not_running` (the session's workflow ended: nothing is live to
 *   compact), `compaction_failed` (nothing to compact, or the summary was
 *   refused), `temporal_unreachable`.
 */
export async function sessionCompactCommand(
  sessionId: string,
  opts: { json?: boolean },
  sink: Sink = processSink,
): Promise<number> {
  checkSessionId(sessionId);
  const say = opts.json ? null : (line: string) => sink.err(`${line}\n`);
  const temporal = await connectTemporal(resolvePaths(), say);
  try {
    const described = await describeSessionRun(temporal.client, sessionId);
    if (!described) throw new ZunoError('session_not_found', `no session ${sessionId} in Temporal`);
    if (described.status !== 'RUNNING') {
      throw new ZunoError(
        'session_not_running',
        `session ${sessionId} is not running: it ${endedWords(described.status, described.zunoStatus)}; a compaction runs inside a live session (its next run compacts by itself when it needs to)`,
      );
    }
    if (described.zunoStatus === 'running') say?.(`session ${sessionId} is running a turn: compacting once it ends…`);
    else say?.(`compacting session ${sessionId}…`);
    const receipt = await askCompaction(temporal.client, sessionId);
    sink.out(opts.json ? `${JSON.stringify(receipt)}\n` : describeCompaction(receipt));
    return 0;
  } finally {
    await temporal.connection.close();
  }
}

/**
 * `zuno goal compact <goal> [--json]`: {@link sessionCompactCommand} on the
 * Goal's session.
 * @throws ZunoError `goal_not_found`, `goal_closed`, and the session command's errors.
 */
export async function goalCompactCommand(goalId: string, opts: { json?: boolean }, sink: Sink = processSink) {
  const target = await openGoalTarget(goalId, resolvePaths());
  await target.store.close();
  return sessionCompactCommand(target.row.sessionId, opts, sink);
}

/** Sends the `compact` Update and waits for its receipt; a refusal becomes a typed ZunoError. */
async function askCompaction(client: Parameters<typeof describeSessionRun>[0], sessionId: string) {
  const handle = client.workflow.getHandle(sessionWorkflowId(sessionId));
  try {
    return await handle.executeUpdate<CompactReceipt, [CompactRequest]>(COMPACT_UPDATE, {
      args: [{ requestedBy: 'zuno session compact' }],
    });
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) {
      throw new ZunoError('session_not_running', `session ${sessionId} ended before the compaction could run`);
    }
    if (err instanceof WorkflowUpdateFailedError) {
      const cause = (err.cause ?? {}) as {
        type?: string;
        message?: string;
        cause?: { type?: string; message?: string };
      };
      const inner = cause.cause ?? cause;
      throw new ZunoError(asErrorCode(inner.type) ?? 'compaction_failed', inner.message ?? err.message);
    }
    throw err;
  }
}

/** The human line for a compaction receipt (turns counted from 1). Pure. */
export function describeCompaction(r: CompactReceipt): string {
  return (
    `session ${r.sessionId} compacted (${r.compactionId}): the earlier conversation took ≈${kTokens(r.beforeTokens)} ` +
    `tokens, now ≈${kTokens(r.afterTokens)} (${r.estimator}); the summary stands for everything through turn ` +
    `${r.boundary.turn + 1} step ${r.boundary.step + 1}, summary ${r.summaryHash}\n`
  );
}
