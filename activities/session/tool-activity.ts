import { ApplicationFailure, Context } from '@temporalio/activity';
import { ApplicationFailureCategory, CancelledFailure } from '@temporalio/common';
import { backgroundTaskId } from '../../core/ids.js';
import { INTERRUPT_COOPERATIVE_WINDOW_MS } from '../../core/session/interrupt.js';
import {
  MCP_TOOL_ACTIVITY,
  type ToolActivities,
  type ToolActivityInput,
  type ToolActivityResult,
  toolActivityName,
} from '../../core/session/tool-activity.js';
import { validateToolCall } from '../../core/tools/registry.js';
import type { ToolResult } from '../../core/tools/types.js';
import type { ProjectionStore, ToolCallRow } from '../projection/types.js';
import type { ToolContext, ToolImplementation } from '../tools/index.js';
import { progressDetails, type ToolProgress } from '../tools/progress.js';
import { sessionCredentials } from './credentials.js';
import { goalPort } from '../goal/goal-port.js';
import { questionPort } from './question-port.js';
import { recordCompleted, recordStarted, type ToolCallIdentity } from './tool-records.js';
import { workStatePort } from './work-state-port.js';
import { jobsPort } from './jobs-port.js';
import { localHere, type Serves } from './local-guard.js';
import { recordWorkspaceBlocked, workspacePause } from './workspace-check.js';
import { processHostId } from '../infra/host-id.js';
import { mcpPort } from '../mcp/port.js';
import { MCP_RETRY_FAILURE, mcpToolImplementation } from '../mcp/tool.js';
import type { McpHub } from '../mcp/types.js';

/** Interval between heartbeats while a tool runs, in ms (the heartbeat timeout is in temporal.yaml). */
const HEARTBEAT_EVERY_MS = 1_000;

/**
 * Builds one activity per tool, named `tool_<name>` so the Temporal UI shows
 * which tool ran (DESIGN.md §3). Each activity records the call running
 * (tool-records.ts: row + `tool.started`), runs the tool with the
 * activity's cancellation signal while heartbeating progress details
 * (`{outputBytes, elapsedMs, lastLine?}`, see tools/progress.ts), then
 * records its result — row, `tool_result` part and `tool.completed` in one
 * transaction — unless the workflow had already settled the call (then the
 * result is logged as late). An exception inside the tool becomes an
 * `error` result (`tool_failed`); only infrastructure failures (the
 * projection unreachable) fail the activity. What a tool needs or reports
 * beyond its result (read credentials, the work-state port, background
 * facts, outcome facts) is
 * declared on its body (activities/tools/tool-body.ts), never keyed on its name.
 *
 * Run as a local activity (issue 13, a short read: workflows/local-tools.ts)
 * it first checks that this worker serves `input.localOn` — `serves` says
 * which task queues' activities this process runs — and refuses with a
 * non-retryable `local_elsewhere` otherwise (the workspace may live on
 * another host); it records no separate start — one transaction writes
 * `tool.started` with the result — and sends no heartbeats. A local
 * attempt that was cut (its budget, a cancellation) records nothing
 * ({@link localCut}): the attempt that follows records the real result.
 *
 * MCP calls (issue 30) run as one more activity, `tool_mcp`: its
 * implementation is built per call from the call's facts
 * (activities/mcp/tool.ts) and reaches the session's servers through
 * `hub`; a body that declares `needsMcp` (an MCP call, `tool_search`) gets
 * `ctx.mcp` when the session has MCP servers. A Safe MCP call whose outcome
 * was lost throws a retryable failure out of the activity (Temporal runs it
 * again); every other throw of a body is a `tool_failed` result.
 *
 * Before any body runs the session's workspace must be a directory on this
 * host (issue 33, workspace-check.ts): when it is not, the call is recorded
 * `blocked` (`workspace_unavailable`, naming the directory and the host) and
 * the result's `pause` asks the workflow to end the turn paused.
 *
 * The result is small: outcome, error code, output size, `status` (`failed`
 * for an error/uncertain outcome or a tool-declared failure such as a shell
 * exit ≠ 0) and the tool's `facts` (exit code, verdict, conflict kind).
 */
export function createToolActivities(
  tools: Record<string, ToolImplementation>,
  store: ProjectionStore,
  serves: Serves,
  hub?: McpHub,
): ToolActivities {
  const activities: ToolActivities = {};
  const deps: ActivityDeps = { store, serves, ...(hub ? { hub } : {}) };
  // `tools` holds activity tools only: a delegating tool (task, council_run) has no implementation (DC14).
  for (const [name, tool] of Object.entries(tools)) {
    activities[toolActivityName(name)] = (input) => runToolActivity(tool, deps, input);
  }
  activities[MCP_TOOL_ACTIVITY] = (input) => {
    const facts = input.call.mcp;
    if (!facts) throw ApplicationFailure.nonRetryable(`${input.call.name} is not an MCP call`, 'unavailable');
    return runToolActivity(mcpToolImplementation(input.call.name, facts), deps, input);
  };
  return activities;
}

/** What every tool activity of a worker shares. */
interface ActivityDeps {
  store: ProjectionStore;
  serves: Serves;
  /** The worker's MCP hub (absent: no MCP servers are reachable). */
  hub?: McpHub;
}

async function runToolActivity(
  tool: ToolImplementation,
  deps: ActivityDeps,
  input: ToolActivityInput,
): Promise<ToolActivityResult> {
  const { store, serves } = deps;
  const ctx = Context.current();
  const { call } = input;
  const local = localHere(serves, input.localOn);
  const attempt = ctx.info.attempt;
  const startedAtMs = Date.now();
  const { row, args } = await callArgs(tool, store, input);
  const identity: ToolCallIdentity = {
    id: call.rowId,
    sessionId: input.sessionId,
    turn: input.turn,
    step: input.step,
    position: call.position,
    callId: call.callId,
    tool: tool.name,
    // Written only if the row is missing; an existing row keeps the model's own argument bytes.
    argsJson: row?.argsJson ?? JSON.stringify(call.args ?? {}),
  };
  const summary = call.summary ?? tool.declaration.summarize(args as never);
  // Issue 33: no body runs where the session's workspace is not; the turn pauses for a person.
  const pause = workspacePause(input, input.workspace, input.host);
  if (pause) return recordWorkspaceBlocked(store, identity, { attempt, startedAtMs }, pause);
  // A local attempt is short: its start is written with its result, in one transaction.
  if (!local) await recordStarted(store, identity, attempt, startedAtMs, summary);
  const { result, endedAtMs } = await runBody(tool, deps, input, args, { local, startedAtMs });
  const outcome = result.isError ? 'error' : result.uncertain ? 'uncertain' : 'ok';
  // Stopped by the worker shutting down (or the server losing track of the attempt), not by a
  // cancel request: nobody asked for this outcome, so none is recorded. Temporal retries a Safe
  // call elsewhere; a Never call is settled uncertain by the workflow. A local attempt that was
  // cut in any way records nothing either (see localCut).
  const stopped = abandonedBy(ctx) ?? (local ? localCut(ctx) : undefined);
  const facts = tool.body.activityFacts?.(result) ?? {};
  const recorded = await recordCompleted(
    store,
    identity,
    {
      outcome,
      output: result.output,
      errorCode: result.errorCode ?? null,
      data: result.data ?? null,
      attempt,
      startedAtMs,
      endedAtMs,
      facts,
    },
    { abandon: stopped !== undefined, ...(local ? { started: { summary } } : {}) },
  );
  if (recorded.kind === 'late') return { outcome: recorded.stands, outputBytes: 0, late: true };
  if (recorded.kind === 'abandoned') throw abandonedFailure(ctx, tool.name, local, stopped);
  const bg = result.isError ? undefined : tool.body.backgroundFacts?.(result);
  const stands = recorded.outcome;
  return {
    outcome: stands,
    outputBytes: recorded.outputBytes,
    status: stands === 'error' || stands === 'uncertain' || facts.failed ? 'failed' : 'ok',
    ...(result.errorCode ? { errorCode: result.errorCode } : {}),
    ...(Object.keys(facts).length ? { facts } : {}),
    ...(bg ? { background: bg } : {}),
  };
}

/** The call's arguments: as sent, or — large ones travel by reference — re-read and re-validated from the stored row. */
async function callArgs(
  tool: ToolImplementation,
  store: ProjectionStore,
  { call, sessionId }: ToolActivityInput,
): Promise<{ row: ToolCallRow | null; args: unknown }> {
  const row = call.argsInProjection ? await store.getToolCall(sessionId, call.rowId) : null;
  if (!call.argsInProjection) return { row, args: call.args };
  // An MCP tool's arguments are the server's to validate (modelStep did, TD8): here only JSON.
  const verdict = !row ? null : call.mcp ? parseJsonArgs(row.argsJson) : validateToolCall(tool.name, row.argsJson);
  if (!verdict?.ok) throw new Error(`tool call ${call.rowId}: stored arguments are missing or invalid`);
  return { row, args: verdict.args };
}

/** Stored arguments of an MCP call: any JSON object (the wrapper checks the shape). */
function parseJsonArgs(json: string): { ok: true; args: unknown } | { ok: false } {
  try {
    return { ok: true, args: JSON.parse(json) as unknown };
  } catch {
    return { ok: false };
  }
}

/**
 * Runs the tool's body with heartbeats of its progress (none for a local
 * attempt); a throw is a `tool_failed` result, and a result a cancellation
 * reached is labelled by when it settled (TD10).
 */
async function runBody(
  tool: ToolImplementation,
  deps: ActivityDeps,
  input: ToolActivityInput,
  args: unknown,
  at: { local: boolean; startedAtMs: number },
): Promise<{ result: ToolResult; endedAtMs: number }> {
  const ctx = Context.current();
  // TD10: the cooperative window counts from the moment the cancellation reaches this call.
  let cancelledAtMs: number | undefined;
  ctx.cancellationSignal.addEventListener('abort', () => (cancelledAtMs = Date.now()), { once: true });
  let progress: ToolProgress = { outputBytes: 0 };
  const beat = at.local
    ? undefined
    : setInterval(() => ctx.heartbeat(progressDetails(progress, at.startedAtMs, Date.now())), HEARTBEAT_EVERY_MS);
  let result: ToolResult;
  try {
    result = await tool.run(args, await toolContext(tool, deps, input, (p) => (progress = p)));
  } catch (err) {
    // A retryable failure a body asks for (a Safe MCP call whose outcome was lost): Temporal retries.
    if (err instanceof ApplicationFailure && err.type === MCP_RETRY_FAILURE) throw err;
    result = { output: `Tool ${tool.name} failed: ${(err as Error).message}`, isError: true, errorCode: 'tool_failed' };
  } finally {
    clearInterval(beat);
  }
  const endedAtMs = Date.now();
  if (cancelledAtMs !== undefined) result = labelCancellation(result, cancelledAtMs, endedAtMs);
  return { result, endedAtMs };
}

/** The call's {@link ToolContext}: the ports its body declares it needs (credentials, Goal, questions, work state, jobs, MCP). */
async function toolContext(
  tool: ToolImplementation,
  deps: ActivityDeps,
  input: ToolActivityInput,
  onProgress: (p: ToolProgress) => void,
): Promise<ToolContext> {
  const { store, hub } = deps;
  const ctx = Context.current();
  const { call, sessionId, turn, step } = input;
  const name = tool.name;
  const at = { sessionId, rowId: call.rowId, callId: call.callId };
  return {
    workspace: input.workspace,
    host: input.host ?? processHostId(),
    signal: ctx.cancellationSignal,
    ...at,
    backgroundTaskID: backgroundTaskId(turn, step, call.index ?? call.position),
    onProgress,
    ...(input.sandbox ? { sandbox: input.sandbox } : {}),
    ...(input.network ? { network: input.network } : {}),
    ...(input.permission ? { permission: input.permission } : {}),
    ...(tool.body.needsReadCredentials ? { credentials: await sessionCredentials(store, sessionId) } : {}),
    ...(tool.body.needsGoal && input.goalId
      ? { goal: goalPort(store, ctx.client, { ...at, goalId: input.goalId, turn, workspace: input.workspace }) }
      : {}),
    ...(tool.body.needsQuestions ? { questions: questionPort(ctx.client, { ...at, tool: name, turn, step }) } : {}),
    ...(tool.body.needsWorkState ? { workState: workStatePort(store, { ...at, tool: name }) } : {}),
    ...(tool.body.needsJobs ? { jobs: jobsPort(store, sessionId) } : {}),
    ...(tool.body.needsMcp && input.mcp && hub
      ? {
          mcp: mcpPort(hub, { sessionId, workspace: input.workspace, config: input.mcp }, store, {
            ...at,
            tool: name,
            signal: ctx.cancellationSignal,
            ...(input.permission ? { policy: input.permission } : {}),
          }),
        }
      : {}),
  };
}

/** The failure of an attempt whose result was not recorded (`stopped`: why it stopped). */
function abandonedFailure(ctx: Context, name: string, local: boolean, stopped: string | undefined): Error {
  // A cancel request answered as one: the workflow (or the evicted run) sees a cancellation.
  if (local && ctx.cancellationDetails?.cancelRequested) return new CancelledFailure(`${name}: ${stopped}`);
  return ApplicationFailure.create({
    message: `${name} was stopped because ${stopped}; its partial result was not recorded`,
    type: 'worker_shutdown',
    // A local attempt past its short timeout is expected: the regular activity runs the call.
    ...(local ? { category: ApplicationFailureCategory.BENIGN } : {}),
  });
}

/**
 * TD10/TD15 verdict of a call that a cancellation reached at
 * `reachedAtMs` and that settled at `settledAtMs` (ms, wall clock): inside
 * the 2 s cooperative window it is a `cooperative` cancellation with the
 * tool's own report; past it the window ran out — `forced` — and a result
 * that claimed success becomes `uncertain` with the "inspect authoritative
 * state" sentence. The verdict goes into `data.cancellation`.
 */
export function labelCancellation(result: ToolResult, reachedAtMs: number, settledAtMs: number): ToolResult {
  const kind = settledAtMs - reachedAtMs <= INTERRUPT_COOPERATIVE_WINDOW_MS ? 'cooperative' : 'forced';
  const cancellation = { kind, reachedAtMs, settledAtMs, windowMs: INTERRUPT_COOPERATIVE_WINDOW_MS };
  const labelled = { ...result, data: { ...(result.data ?? {}), cancellation } };
  if (kind === 'cooperative' || result.isError || result.uncertain) return labelled;
  return {
    ...labelled,
    uncertain: true,
    output:
      `${result.output}\n\nOutcome uncertain: the call did not settle within ${INTERRUPT_COOPERATIVE_WINDOW_MS / 1000} s ` +
      'of the interrupt. Inspect the authoritative state before doing anything that depends on it.',
  };
}

/**
 * Why a local attempt (issue 13) was cut, or undefined when its
 * cancellation signal did not fire. A local attempt is only a first try of
 * a Safe, ReadOnly call: whatever cut it — its 0.5 s budget, or a cancel
 * request, which is also how the worker stops the local activities of a
 * run it evicts — the call is not over. A record of the cut (`cancelled`)
 * would stand against the attempt that follows (the regular activity, or
 * the replayed run's new local attempt: a completed record stands), so a
 * cut local attempt records nothing; after a TD10 interrupt the workflow
 * settles the call itself (not run).
 */
export function localCut(ctx: Context): string | undefined {
  if (!ctx.cancellationSignal.aborted) return undefined;
  return ctx.cancellationDetails?.timedOut ? 'its local attempt ran out of time' : 'its local attempt was cancelled';
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
