import { ApplicationFailure, Context } from '@temporalio/activity';
import { abandonedBy } from './tool-activity.js';
import { processHostId } from '../infra/host-id.js';
import { backgroundCallArgs, recordBackgroundCompletion } from './bg-completed.js';
import type { BgCommandInput, BgCommandResult } from '../../core/session/activities.js';
import type { ProjectionStore } from '../projection/types.js';
import { runBackground } from '../tools/bg/index.js';
import { progressDetails, type ToolProgress } from '../tools/progress.js';

/** Interval between heartbeats while a background command runs, in ms. */
const HEARTBEAT_EVERY_MS = 1_000;

/**
 * Builds the `bgCommand` activity (BG2, BG6): runs one `shell` call with
 * `background: true` to its end in this worker, heartbeating progress
 * details (`{outputBytes, elapsedMs, lastLine?}`, tools/progress.ts) while it runs,
 * every output byte going to `<workspace>/.zuno/bg/…` and the newest 2 MiB
 * kept in this process for `bg` reads. Cancellation (a `bg cancel`, or the
 * session ending) reaches it through the heartbeat and stops the command's
 * process group with the SH5 window; the settled report is still returned.
 * Appends `bg.completed` to the session's events and returns the small
 * completion the workflow admits to its inbox. Never retried (shell is
 * replay `Never`).
 */
export function createBgCommand(store: ProjectionStore) {
  return async function bgCommand(input: BgCommandInput): Promise<BgCommandResult> {
    const ctx = Context.current();
    const { call, sessionId, taskID } = input;
    const args = await backgroundCallArgs(store, input);
    const startedAtMs = Date.now();
    let progress: ToolProgress = { outputBytes: 0 };
    const beat = setInterval(
      () => ctx.heartbeat(progressDetails(progress, startedAtMs, Date.now())),
      HEARTBEAT_EVERY_MS,
    );
    try {
      const done = await runBackground(args, {
        workspace: input.workspace,
        sessionId,
        rowId: call.rowId,
        callId: call.callId,
        taskID,
        ...(input.sandbox ? { sandbox: input.sandbox } : {}),
        hostId: input.host ?? processHostId(),
        signal: ctx.cancellationSignal,
        onProgress: (totalWritten, lastLine) => {
          progress = { outputBytes: totalWritten, ...(lastLine !== undefined ? { lastLine } : {}) };
          ctx.heartbeat(progressDetails(progress, startedAtMs, Date.now()));
        },
      });
      const stopped = abandonedBy(ctx);
      if (stopped) {
        // Not a bg cancel: the workflow reports the task as lost (uncertain), never as "cancelled".
        throw ApplicationFailure.retryable(
          `background task ${taskID} was stopped because ${stopped}`,
          'worker_shutdown',
        );
      }
      return await recordBackgroundCompletion(store, { sessionId, rowId: call.rowId }, done);
    } finally {
      clearInterval(beat);
    }
  };
}
