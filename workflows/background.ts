import { ActivityFailure, CancellationScope, condition, proxyActivities } from '@temporalio/workflow';
import { backgroundCommandOptions } from '../core/activity-policy.js';
import type { BgCommandInput, BgCommandResult, SessionActivities } from '../core/session/activities.js';
import type { PlannedToolCall } from '../core/session/tool-calls.js';
import { toolDeclarations } from '../core/tools/registry.js';
import type { SessionGeneration } from './generation.js';
import { observeRemoteTask } from './observer.js';
import { onRoute, type RouteHost } from './route.js';

/** What the background-task table needs from the session workflow. */
export interface BackgroundDeps {
  /** The session (its current meta and route: a resumed session may be served elsewhere). */
  host: RouteHost;
  /** The workflow's root cancellation scope: background tasks outlive turns and their interrupts. */
  root: CancellationScope;
  /** The session run's generation: whether the workflow holds a remote observer's wait. */
  generation: Pick<SessionGeneration, 'workflowHeldObserver'>;
  /** Admits a completion report to the session inbox (BG6). */
  admitReport(taskID: string, text: string): void;
  /** Withdraws a completion report still pending in the inbox; true when one was withdrawn. */
  revokeReport(taskID: string): boolean;
}

/** One background task as the workflow tracks it. */
interface RunningTask {
  scope: CancellationScope;
  done: Promise<void>;
  /** SH9: the call's `backgroundPurpose` (`remoteObserver`: it observes remote work — CI, a deploy). */
  purpose?: string;
  /** What it runs, in one line (the declaration's label: the command's first line). */
  label: string;
}

/**
 * The session's background tasks (BG1–BG6) in workflow state. Each task is
 * one `bgCommand` activity — or, for a remote observer (SH9) under
 * `OBSERVER_PATCH` (generation.ts), a start, timers and short polls
 * (workflows/observer.ts) — in its own cancellation scope under the
 * workflow's root, so a turn's hard interrupt leaves it running and
 * `bg cancel` stops only it. A completion is admitted to the inbox as a
 * report before any turn is requested for it — unless a `bg` read already
 * observed the final state: the read and the report share one consumption
 * (consumed once). Deterministic.
 */
export class BackgroundTasks {
  private readonly running = new Map<string, RunningTask>();
  /** Tasks whose final state the model has already seen through a `bg` read. */
  private readonly consumed = new Set<string>();
  /** Remote observers whose worker signalled that their command ended (poll now). */
  private readonly settledHints = new Set<string>();

  constructor(private readonly deps: BackgroundDeps) {}

  /** Ids of the tasks still running, in start order. */
  ids(): string[] {
    return [...this.running.keys()];
  }

  /** Ids of the running tasks started as remote observers (SH9, GL26), in start order. */
  remoteObservers(): string[] {
    return [...this.running].filter(([, t]) => t.purpose === 'remoteObserver').map(([id]) => id);
  }

  /** What each running task runs, by id, for the current details (`remote observer · sh ci/run`). */
  labels(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [id, t] of this.running)
      out[id] = t.purpose === 'remoteObserver' ? `remote observer · ${t.label}` : t.label;
    return out;
  }

  /** true while any task runs (the session neither exits when idle nor continues-as-new). */
  busy(): boolean {
    return this.running.size > 0;
  }

  /**
   * Starts the `bgCommand` activity for a call whose tool activity reported
   * that it handed its work to the background (its declaration's
   * `background` says how long that work may run). Does not wait.
   */
  start(call: PlannedToolCall, taskID: string): void {
    const { meta } = this.deps.host;
    const bg = toolDeclarations[call.name]?.background;
    if (!bg) throw new Error(`tool ${call.name} declares no background work`);
    const limitMs = call.args !== undefined ? bg.limitMs(call.args as never) : bg.maxLimitMs;
    const label = call.args !== undefined ? bg.label(call.args as never) : call.name;
    const summary = `bg ${taskID}: ${label}`;
    const options = backgroundCommandOptions(meta.activityDefaults, limitMs, summary.slice(0, 200));
    const input: BgCommandInput = {
      sessionId: meta.sessionId,
      workspace: meta.workspace,
      call,
      taskID,
      ...(meta.sandbox ? { sandbox: meta.sandbox } : {}),
      ...(meta.route ? { host: meta.route.host } : {}),
    };
    const purpose = (call.args as { backgroundPurpose?: unknown } | undefined)?.backgroundPurpose;
    // SH9/GL26: a remote observer's wait is held by the workflow (timers and short polls), not by an activity.
    const heldByWorkflow = purpose === 'remoteObserver' && this.deps.generation.workflowHeldObserver;
    const scope = new CancellationScope({ cancellable: true, parent: this.deps.root });
    const done = scope
      .run(() =>
        heldByWorkflow
          ? observeRemoteTask(this.deps.host, input, summary.slice(3, 203), {
              has: () => this.settledHints.has(taskID),
              clear: () => this.settledHints.delete(taskID),
            })
          : onRoute(this.deps.host, (o) => proxyActivities<SessionActivities>({ ...options, ...o }).bgCommand(input)),
      )
      .then(
        (r) => this.finish(taskID, r),
        (err: unknown) => this.finish(taskID, lostReport(taskID, err)),
      );
    this.running.set(taskID, { scope, done, label, ...(typeof purpose === 'string' ? { purpose } : {}) });
  }

  /**
   * Starts a background job (issue 12, DC3/DC4/DC16: a `task` with
   * `background: true`): `run` starts the child workflow and, once it
   * ended, settles it and resolves to its report. It runs in its own scope
   * under the workflow's root like a background command — a turn's
   * interrupt leaves it running, `job cancel` cancels only it (the child
   * workflow is asked to cancel) — and its report is admitted to the inbox
   * exactly once, unless a `job` read already consumed it. The job's end is
   * in the workflow's own history (the child's completion event), so a
   * parent worker that crashes around the delivery neither loses nor
   * repeats it. Does not wait.
   */
  startJob(taskID: string, label: string, run: () => Promise<string>): void {
    const scope = new CancellationScope({ cancellable: true, parent: this.deps.root });
    const done = scope.run(run).then(
      (report) => this.finishWith(taskID, report),
      (err: unknown) => this.finish(taskID, lostReport(taskID, err)),
    );
    this.running.set(taskID, { scope, done, label });
  }

  /**
   * Waits until task `taskID` has ended or `timeoutMs` passed (a workflow
   * timer; `job wait`, DC15). Resolves at once for a task that is not running.
   * Rejects with a CancelledFailure when the caller's scope is cancelled.
   */
  async waitFor(taskID: string, timeoutMs: number): Promise<void> {
    if (!this.running.has(taskID)) return;
    await condition(() => !this.running.has(taskID), timeoutMs);
  }

  /** The worker running remote observer `taskID` says its command ended: its next poll is now. Unknown ids are ignored. */
  hintSettled(taskID: string): void {
    if (this.running.has(taskID)) this.settledHints.add(taskID);
  }

  /** Asks a running task to stop (SH5 cooperative window in the activity); no-op for an unknown or ended task. */
  cancel(taskID: string): void {
    this.running.get(taskID)?.scope.cancel();
  }

  /**
   * A `bg` read observed the task's final state: its completion is consumed
   * (BG6). A report still pending in the inbox is withdrawn; one arriving
   * later is not admitted.
   */
  observedTerminal(taskID: string): void {
    this.consumed.add(taskID);
    this.deps.revokeReport(taskID);
  }

  /**
   * A hard interrupt with no turn running (TD10): stops every running task
   * and consumes their completions — the outcome is recorded by each task's
   * activity, but no report turn follows. Returns the ids stopped.
   */
  interruptAll(): string[] {
    const ids = this.ids();
    for (const id of ids) {
      this.consumed.add(id);
      this.running.get(id)!.scope.cancel();
    }
    return ids;
  }

  /** Stops every running task as {@link interruptAll} does and waits for their activities to settle (the session is ending). */
  async stopAll(): Promise<void> {
    const tasks = [...this.running.values()];
    this.interruptAll();
    await Promise.all(tasks.map((t) => t.done));
  }

  private finish(taskID: string, r: BgCommandResult): void {
    this.finishWith(taskID, r.report);
  }

  private finishWith(taskID: string, report: string): void {
    this.running.delete(taskID);
    if (this.consumed.has(taskID)) return;
    this.deps.admitReport(taskID, report);
  }
}

/** The report of a task whose activity failed without a result: the worker was lost, or it was cancelled before starting. */
function lostReport(taskID: string, err: unknown): BgCommandResult {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  const why = (cause as Error | undefined)?.message ?? String(cause);
  return {
    taskID,
    state: 'lost',
    outcome: 'uncertain',
    report:
      `Background task ${taskID}: outcome uncertain — the worker running it was lost or it never reported (${why}). ` +
      'It was not re-run. Output written so far can be read with bg output; inspect the authoritative state before relying on it.',
  };
}
