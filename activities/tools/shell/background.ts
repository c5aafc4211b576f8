/**
 * The `shell` result of a call with `background: true` (BG1, BG5, SH9): the
 * call is checked as a foreground call would be (arguments, workdir), then
 * answered at once with the task id; the session then runs the command to
 * its end with `runBackground` (activities/tools/bg/) in its own activity.
 */
import { performance } from 'node:perf_hooks';
import { BG_TASK_ID_PATTERN } from '../../../core/tools/bg.js';
import type { ShellArgs } from '../../../core/tools/shell.js';
import type { ToolResult } from '../../../core/tools/types.js';
import { errorResult } from '../common.js';
import { prepareRun, type PrepareContext } from './prepare.js';
import type { ShellOutcome } from './types.js';

/** True when a call asks to run in the background. */
export function isBackgroundCall(args: unknown): boolean {
  return !!args && typeof args === 'object' && (args as Partial<ShellArgs>).background === true;
}

/**
 * Answers a background `shell` call.
 *
 * @param taskID the task id the session derived for this call (`bg_<turn>_<step>_<position>`).
 * @param notRun maps an outcome where nothing ran (bad arguments or workdir) to the tool result.
 * @returns a normal result `Started background task <taskID> …` with
 *   `data.taskID`, `data.background: true`, `data.timeoutMs` and
 *   `data.backgroundPurpose` (when set); or an error result: whatever
 *   `prepareRun` refuses (nothing will run), `background_unavailable` when
 *   no valid task id was provided.
 */
export async function backgroundStart(
  rawArgs: unknown,
  ctx: PrepareContext,
  taskID: string | undefined,
  notRun: (o: ShellOutcome) => ToolResult,
): Promise<ToolResult> {
  const prepared = await prepareRun(rawArgs, ctx, performance.now());
  if (!prepared.ok) return notRun(prepared.outcome);
  if (taskID === undefined || !BG_TASK_ID_PATTERN.test(taskID))
    return errorResult(
      'background_unavailable',
      'Background commands are not available for this call; nothing ran. Run the command in the foreground (omit background).',
    );
  const { args, timeoutMs } = prepared.prep;
  const first = (args.command.split('\n', 1)[0] ?? '').trim();
  const purpose = args.backgroundPurpose;
  const lines = [
    `Started background task ${taskID}: ${first.length > 200 ? `${first.slice(0, 199)}…` : first}`,
    `It runs on its own (time limit ${timeoutMs} ms); its completion report arrives later as a message. Meanwhile: bg {"action": "output", "taskID": "${taskID}"} shows the newest output, bg {"action": "wait", "taskID": "${taskID}"} waits up to 60 s, bg {"action": "cancel", "taskID": "${taskID}"} stops it.`,
  ];
  if (purpose === 'remoteObserver')
    lines.push(
      'Marked remoteObserver: its local exit will not be the remote state; query the remote system for the authoritative state.',
    );
  return {
    output: lines.join('\n'),
    isError: false,
    data: { taskID, background: true, timeoutMs, ...(purpose ? { backgroundPurpose: purpose } : {}) },
  };
}
