/**
 * The `bg` tool (BG1–BG5): list, output, wait, cancel, artifact. Reads
 * never re-run anything and never re-apply the output cap (BG4); a wait that
 * times out is not an error and names the same task (BG5). For output, wait
 * and cancel, `data.taskID` and `data.terminal` (the reply observed the final
 * state) are always set; a terminal reply also carries `data.completion`.
 */
import { stat } from 'node:fs/promises';
import {
  bgDeclaration,
  bgWireArgs,
  BG_WAIT_DEFAULT_MS,
  type BgArgs,
  type BgArtifactArgs,
  type BgCancelArgs,
  type BgOutputArgs,
  type BgWaitArgs,
} from '../../../core/tools/bg.js';
import { summaryLine } from '../../../core/tools/summary.js';
import type { ToolResult } from '../../../core/tools/types.js';
import { cancelledResult, errorResult } from '../common.js';
import type { ToolContext } from '../context.js';
import type { ToolBody } from '../tool-body.js';
import { runTool } from '../wrapper.js';
import { openArtifact } from './artifact.js';
import { stateWords, taskLine, windowBody, windowData, windowLines } from './render.js';
import { isValidTaskId, listStatuses } from './store.js';
import type { BgWindow } from './types.js';
import { viewTask, type TaskView } from './view.js';
import { readWindow, type CursorOutOfRange, type WindowAnchor, type WindowRequest } from './window.js';

/** How long `bg cancel` waits for the task to settle, in milliseconds. */
export const BG_CANCEL_WAIT_MS = 5_000;
/** Poll period of `bg wait` and `bg cancel`, in milliseconds. */
export const BG_POLL_MS = 100;

function sleep(ms: number, signal?: AbortSignal, done?: Promise<unknown>): Promise<void> {
  return new Promise((resolve) => {
    const finish = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', finish);
      resolve();
    };
    const timer = setTimeout(finish, ms);
    signal?.addEventListener('abort', finish, { once: true });
    void done?.then(finish, finish);
  });
}

function unknownTask(taskID: string): ToolResult {
  return errorResult(
    'unknown_task',
    `No background task ${taskID} in this session. bg {"action": "list"} shows this session's tasks.`,
    { taskID, terminal: false },
  );
}

function outOfRange(view: TaskView, r: CursorOutOfRange): ToolResult {
  return errorResult(
    'cursor_out_of_range',
    `cursor ${r.cursor} is past the end of ${view.taskID}'s output: ${r.totalWritten} bytes ${
      view.terminal ? 'in total' : 'written so far'
    } (valid cursors are 0–${r.totalWritten}). Omit cursor for the newest window, or pass a reply's nextCursor.`,
    { taskID: view.taskID, terminal: view.terminal, state: view.state, totalWritten: r.totalWritten, cursor: r.cursor },
  );
}

/** A window request from a call's optional cursor and limit. */
function windowRequest(anchor: WindowAnchor, args: { cursor?: number; limit?: number }): WindowRequest {
  return {
    anchor,
    ...(args.cursor !== undefined ? { cursor: args.cursor } : {}),
    ...(args.limit !== undefined ? { limit: args.limit } : {}),
  };
}

async function taskWindow(view: TaskView, args: { cursor?: number; limit?: number }) {
  const req = windowRequest('tail', args);
  const live = view.live && !view.completion ? view.live : undefined;
  if (live) {
    await live.catchUp();
    return readWindow({ totalWritten: live.ring.end, file: view.outputPath, ring: live.ring }, req);
  }
  const size = await stat(view.outputPath).then(
    (s) => s.size,
    () => 0,
  );
  return readWindow({ totalWritten: size, file: view.outputPath }, req);
}

function taskFacts(view: TaskView): Record<string, unknown> {
  const c = view.completion;
  const data: Record<string, unknown> = { taskID: view.taskID, terminal: view.terminal, state: view.state };
  const purpose = view.status?.backgroundPurpose;
  if (purpose) data.backgroundPurpose = purpose;
  if (c) {
    data.outcome = c.outcome;
    data.uncertain = c.outcome === 'uncertain';
    if (c.exitCode !== undefined) data.exitCode = c.exitCode;
    if (c.signal) data.signal = c.signal;
    data.receipt = c.receipt;
    data.completion = c;
  }
  return data;
}

function taskHeader(view: TaskView): string[] {
  const lines = [taskLine(view.taskID, view.state, view.status?.command ?? '', view.completion)];
  if (view.completion) lines.push(...view.completion.report.split('\n').slice(1, 3));
  return lines;
}

function windowReply(
  view: TaskView,
  w: BgWindow,
  lead: string[] = [],
  extra: Record<string, unknown> = {},
): ToolResult {
  const text = [...lead, ...taskHeader(view), ...windowLines(w, !view.terminal), '', windowBody(w)].join('\n');
  return { output: text, isError: false, data: { ...taskFacts(view), ...windowData(w), ...extra } };
}

/** How long a read waits for a just-started task to appear, in ms: the workflow starts its activity right after the shell call returns the id. */
export const BG_START_GRACE_MS = 3_000;

/** {@link viewTask}, waiting up to {@link BG_START_GRACE_MS} for a task that is only being started. */
async function viewStartingTask(ctx: ToolContext, taskID: string): Promise<TaskView | null> {
  const deadline = Date.now() + BG_START_GRACE_MS;
  for (;;) {
    const view = await viewTask(ctx.workspace, ctx.sessionId, taskID);
    if (view || Date.now() >= deadline || ctx.signal?.aborted) return view;
    await sleep(BG_POLL_MS, ctx.signal);
  }
}

async function output(args: BgOutputArgs, ctx: ToolContext): Promise<ToolResult> {
  const view = await viewStartingTask(ctx, args.taskID);
  if (!view) return unknownTask(args.taskID);
  const w = await taskWindow(view, args);
  return 'code' in w ? outOfRange(view, w) : windowReply(view, w);
}

async function wait(args: BgWaitArgs, ctx: ToolContext): Promise<ToolResult> {
  const waitMs = args.timeoutMs ?? BG_WAIT_DEFAULT_MS;
  const deadline = Date.now() + waitMs;
  for (;;) {
    const view = await viewStartingTask(ctx, args.taskID);
    if (!view) return unknownTask(args.taskID);
    const remaining = deadline - Date.now();
    if (view.terminal || remaining <= 0) {
      const w = await taskWindow(view, args);
      if ('code' in w) return outOfRange(view, w);
      const lead = view.terminal
        ? []
        : [
            `Still running after waiting ${waitMs} ms. That is not a failure: the task keeps running. Wait again on ${view.taskID}, or do other work and read it later.`,
          ];
      return windowReply(view, w, lead, { timedOut: !view.terminal });
    }
    if (ctx.signal?.aborted) {
      const r = cancelledResult('bg wait');
      return { ...r, data: { ...r.data, taskID: view.taskID, terminal: false, state: view.state } };
    }
    await sleep(Math.min(BG_POLL_MS, remaining), ctx.signal, view.live?.done);
  }
}

async function cancel(args: BgCancelArgs, ctx: ToolContext): Promise<ToolResult> {
  let view = await viewStartingTask(ctx, args.taskID);
  if (!view) return unknownTask(args.taskID);
  if (view.terminal) {
    const text = [`${view.taskID} had already ended; nothing to cancel.`, view.completion!.report].join('\n');
    return { output: text, isError: false, data: { ...taskFacts(view), alreadyEnded: true } };
  }
  const live = view.live;
  live?.cancel();
  const deadline = Date.now() + BG_CANCEL_WAIT_MS;
  while (!view.terminal && Date.now() < deadline && !ctx.signal?.aborted) {
    await sleep(Math.min(BG_POLL_MS, deadline - Date.now()), ctx.signal, live?.done);
    view = (await viewTask(ctx.workspace, ctx.sessionId, args.taskID)) ?? view;
  }
  const data = { ...taskFacts(view), cancelRequested: live !== undefined };
  if (view.terminal) return { output: view.completion!.report, isError: false, data };
  const owner = view.status?.workerPid;
  const text = live
    ? `Cancel requested for ${view.taskID}; it had not settled after ${BG_CANCEL_WAIT_MS} ms. Check again with bg wait.`
    : `${view.taskID} is run by another process (pid ${owner ?? 'unknown'}); this call cannot signal it and only observed it: still running after ${BG_CANCEL_WAIT_MS} ms. Check again with bg wait.`;
  return { output: `${taskLine(view.taskID, view.state, view.status?.command ?? '')}\n${text}`, isError: false, data };
}

async function artifact(args: BgArtifactArgs, ctx: ToolContext): Promise<ToolResult> {
  const opened = await openArtifact(ctx.workspace, args.outputPath, ctx.sessionId);
  if (!opened.ok) return opened.result;
  const { handle, size, path } = opened.artifact;
  try {
    const w = await readWindow({ totalWritten: size, file: handle }, windowRequest('head', args));
    if ('code' in w)
      return errorResult(
        'cursor_out_of_range',
        `cursor ${w.cursor} is past the end of the artifact: ${size} bytes (valid cursors are 0–${size}). Start at 0 and follow nextCursor.`,
        { outputPath: path, totalWritten: size, cursor: w.cursor },
      );
    const text = [`Artifact ${path} (${size} bytes).`, ...windowLines(w, false), '', windowBody(w)].join('\n');
    return { output: text, isError: false, data: { outputPath: path, ...windowData(w) } };
  } finally {
    await handle.close().catch(() => {});
  }
}

async function list(ctx: ToolContext): Promise<ToolResult> {
  const statuses = await listStatuses(ctx.workspace, ctx.sessionId);
  const tasks: Record<string, unknown>[] = [];
  const lines: string[] = [];
  for (const s of statuses) {
    const view = await viewTask(ctx.workspace, ctx.sessionId, s.taskID);
    if (!view) continue;
    const totalWritten =
      view.completion?.totalWritten ??
      (await stat(view.outputPath).then(
        (st) => st.size,
        () => 0,
      ));
    const command = summaryLine((s.command.split('\n', 1)[0] ?? '').trim(), 100);
    const c = view.completion;
    tasks.push({
      taskID: s.taskID,
      state: view.state,
      command,
      totalWritten,
      startedAtMs: s.startedAtMs,
      ...(c?.exitCode !== undefined ? { exitCode: c.exitCode } : {}),
      ...(c?.signal ? { signal: c.signal } : {}),
      ...(c ? { outcome: c.outcome, durationMs: c.durationMs } : {}),
      ...(s.backgroundPurpose ? { backgroundPurpose: s.backgroundPurpose } : {}),
    });
    const purpose = s.backgroundPurpose ? ` [${s.backgroundPurpose}]` : '';
    lines.push(`${s.taskID}  ${stateWords(view.state, c)}  ${totalWritten} bytes${purpose}  ${command}`);
  }
  const text =
    lines.length === 0
      ? 'No background tasks in this session.'
      : [`Background tasks of this session (${lines.length}):`, ...lines].join('\n');
  return { output: text, isError: false, data: { tasks } };
}

/**
 * Runs one `bg` call (BG1–BG5).
 *
 * @param rawArgs `bg` arguments (re-validated against `bgArgs`).
 * @param ctx the tool context; `ctx.sessionId` scopes the task ids.
 * @returns a `ToolResult`. Typed errors: `invalid_arguments`,
 *   `unknown_task` (no such task in this session), `cursor_out_of_range`
 *   (`cursor` > bytes written; the text names the end), `cancelled` (the
 *   call's signal fired during a wait), and for artifact
 *   `artifact_path_refused`, `not_found`, `not_a_file`, `cannot_read`. A
 *   wait that times out is a normal result with `data.timedOut: true`. Never
 *   throws for a task's or file's state.
 */
async function bg(args: BgArgs, ctx: ToolContext): Promise<ToolResult> {
  if ('taskID' in args && !isValidTaskId(args.taskID)) return unknownTask(args.taskID);
  try {
    switch (args.action) {
      case 'list':
        return await list(ctx);
      case 'output':
        return await output(args, ctx);
      case 'wait':
        return await wait(args, ctx);
      case 'cancel':
        return await cancel(args, ctx);
      case 'artifact':
        return await artifact(args, ctx);
    }
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return errorResult(
      'cannot_read',
      `bg ${args.action} could not read the task's files (${code ?? (err instanceof Error ? err.message : String(err))}).`,
      'taskID' in args ? { taskID: args.taskID, terminal: false } : undefined,
    );
  }
}

/**
 * The `bg` body: its replies are read-back windows, never re-capped (BG4);
 * providers get the plain-object wire schema; a read that observed a task's
 * final state reports it (BG6: consumes the completion report).
 */
export const bgTool: ToolBody<BgArgs> = {
  run: bg,
  wire: bgWireArgs,
  output: 'read_back',
  backgroundFacts: (r) =>
    r.data?.terminal === true && typeof r.data.taskID === 'string'
      ? { taskID: r.data.taskID, terminal: true }
      : undefined,
};

/** Runs one `bg` call through the shared wrapper (validation against the declaration). */
export function runBg(rawArgs: unknown, ctx: ToolContext): Promise<ToolResult> {
  return runTool(bgDeclaration, bgTool, rawArgs, ctx);
}
