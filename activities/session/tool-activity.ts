import { ApplicationFailure, Context } from '@temporalio/activity';
import { backgroundTaskId, partId } from '../../core/ids.js';
import type { ToolActivityInput, ToolActivityResult } from '../../core/session-contract.js';
import { toolActivityName } from '../../core/session-contract.js';
import { toolDeclarations, validateToolCall } from '../../core/tools/registry.js';
import type { ReadCredential } from '../../core/tools/read.js';
import type { ToolResult } from '../../core/tools/types.js';
import { sessionCredentials, TOOLS_NEEDING_CREDENTIALS } from './credentials.js';
import type { ProjectionStore } from '../projection/types.js';

/** What a tool implementation looks like to the activity layer. */
export interface RunnableTool {
  run(
    args: never,
    ctx: {
      workspace: string;
      signal?: AbortSignal;
      sessionId: string;
      callId: string;
      backgroundTaskID?: string;
      credentials?: (relPath: string) => ReadCredential | undefined;
    },
  ): Promise<ToolResult>;
}

/** Interval between heartbeats while a tool runs, in ms (the heartbeat timeout is in temporal.yaml). */
const HEARTBEAT_EVERY_MS = 1_000;

/**
 * Builds one activity per tool, named `tool_<name>` so the Temporal UI shows
 * which tool ran (DESIGN.md §3). Each activity marks its tool-call row
 * running (recording the attempt), emits `tool.started`, runs the tool with
 * the activity's cancellation signal while heartbeating, then writes the
 * outcome, output and data onto the row, the `tool_result` part, and
 * `tool.completed` — all idempotent upserts, so a retried attempt (TD3 `Safe`)
 * leaves each row once. An exception inside the tool becomes an `error`
 * result (`tool_failed`); only infrastructure failures (the projection
 * unreachable) fail the activity.
 */
export function createToolActivities(
  tools: Record<string, RunnableTool>,
  store: ProjectionStore,
): Record<string, (input: ToolActivityInput) => Promise<ToolActivityResult>> {
  const activities: Record<string, (input: ToolActivityInput) => Promise<ToolActivityResult>> = {};
  for (const [name, tool] of Object.entries(tools)) {
    activities[toolActivityName(name)] = async (input) => {
      const ctx = Context.current();
      const { call, sessionId, turn, step } = input;
      const attempt = ctx.info.attempt;
      const startedAtMs = Date.now();
      const row = await store.getToolCall(sessionId, call.rowId);
      // Large arguments travel by reference: re-read and re-validate them from the stored row.
      let args = call.args;
      if (call.argsInProjection) {
        const verdict = row ? validateToolCall(name, row.argsJson) : null;
        if (!verdict?.ok) throw new Error(`tool call ${call.rowId}: stored arguments are missing or invalid`);
        args = verdict.args;
      }
      const base = {
        id: call.rowId,
        sessionId,
        turn,
        step,
        position: call.position,
        callId: call.callId,
        tool: name,
        argsJson: row?.argsJson ?? JSON.stringify(call.args ?? {}),
      };
      await store.upsertToolCall({ ...base, status: 'running', attempts: attempt, startedAtMs });
      await store.appendEvent({
        id: `${call.rowId}:started:${attempt}`,
        sessionId,
        type: 'tool.started',
        data: { rowId: call.rowId, callId: call.callId, tool: name, attempt, summary: summarize(name, args) },
        atMs: startedAtMs,
      });
      const beat = setInterval(() => ctx.heartbeat(), HEARTBEAT_EVERY_MS);
      let result: ToolResult;
      try {
        result = await tool.run(args as never, {
          workspace: input.workspace,
          signal: ctx.cancellationSignal,
          sessionId,
          callId: call.callId,
          backgroundTaskID: backgroundTaskId(turn, step, call.index ?? call.position),
          ...(TOOLS_NEEDING_CREDENTIALS.has(name) ? { credentials: await sessionCredentials(store, sessionId) } : {}),
        });
      } catch (err) {
        result = { output: `Tool ${name} failed: ${(err as Error).message}`, isError: true, errorCode: 'tool_failed' };
      } finally {
        clearInterval(beat);
      }
      const endedAtMs = Date.now();
      const outcome = result.isError ? 'error' : result.uncertain ? 'uncertain' : 'ok';
      // TD10: a call that settled after a hard interrupt reached it is a cooperative cancellation.
      const data = ctx.cancellationSignal.aborted
        ? { ...(result.data ?? {}), cancellation: { kind: 'cooperative', settledAtMs: endedAtMs } }
        : (result.data ?? null);
      // The workflow may already have recorded this call (forced interrupt): its record stands.
      const now = await store.getToolCall(sessionId, call.rowId);
      if (now?.status === 'completed') {
        await store.appendEvent({
          id: `${call.rowId}:late:${attempt}`,
          sessionId,
          type: 'tool.late_result',
          data: { rowId: call.rowId, callId: call.callId, tool: name, outcome, attempt },
          atMs: endedAtMs,
        });
        return { outcome: now.outcome ?? outcome, outputBytes: 0, late: true };
      }
      // Stopped by the worker shutting down (or the server losing track of the attempt), not by a
      // cancel request: nobody asked for this outcome, so none is recorded. Temporal retries a Safe
      // call elsewhere; a Never call is settled uncertain by the workflow.
      const stopped = abandonedBy(ctx);
      if (stopped) {
        throw ApplicationFailure.retryable(
          `${name} was stopped because ${stopped}; its partial result was not recorded`,
          'worker_shutdown',
        );
      }
      await store.upsertToolCall({
        ...base,
        status: 'completed',
        outcome,
        output: result.output,
        errorCode: result.errorCode ?? null,
        result: data,
        attempts: attempt,
        startedAtMs,
        endedAtMs,
      });
      await store.upsertPart({
        id: partId(turn, step, call.position, 'tool_result'),
        sessionId,
        messageId: `msg_${turn}_${step}_assistant`,
        turn,
        step,
        position: call.position,
        kind: 'tool_result',
        text: result.output,
        toolCallId: call.rowId,
        createdAtMs: endedAtMs,
      });
      const outputBytes = Buffer.byteLength(result.output);
      await store.appendEvent({
        id: `${call.rowId}:completed`,
        sessionId,
        type: 'tool.completed',
        data: {
          rowId: call.rowId,
          callId: call.callId,
          tool: name,
          outcome,
          errorCode: result.errorCode ?? null,
          outputBytes,
          durationMs: endedAtMs - startedAtMs,
          attempt,
        },
        atMs: endedAtMs,
      });
      const bg = backgroundFacts(name, result);
      return {
        outcome,
        outputBytes,
        ...(result.errorCode ? { errorCode: result.errorCode } : {}),
        ...(bg ? { background: bg } : {}),
      };
    };
  }
  return activities;
}

/**
 * Why an activity's cancellation signal fired without a cancel request, or
 * undefined when it did not fire or the workflow asked (TD10 interrupt, bg
 * cancel): worker shutdown, a lost attempt, a timeout.
 */
export function abandonedBy(ctx: Context): string | undefined {
  if (!ctx.cancellationSignal.aborted) return undefined;
  const d = ctx.cancellationDetails;
  if (d?.cancelRequested) return undefined;
  if (d?.workerShutdown) return 'the worker shut down';
  if (d?.notFound) return 'the server no longer knows this attempt';
  if (d?.timedOut) return 'the attempt timed out';
  return 'the attempt was abandoned';
}

/**
 * BG6 facts the workflow acts on, read from a result's data: a background
 * `shell` start hands out `data.taskID` with `data.background`; a `bg` read
 * that saw the final state sets `data.terminal`.
 */
function backgroundFacts(name: string, result: ToolResult): ToolActivityResult['background'] {
  const d = result.data;
  if (!d || typeof d.taskID !== 'string' || result.isError) return undefined;
  if (name === 'shell' && d.background === true) return { taskID: d.taskID, started: true };
  if (name === 'bg' && d.terminal === true) return { taskID: d.taskID, terminal: true };
  return undefined;
}

/** The one-line summary of a call (`grep: TODO in src/`), or the tool name when it has no declaration. */
function summarize(name: string, args: unknown): string {
  const decl = toolDeclarations[name];
  return decl ? decl.summarize(args as never) : name;
}
