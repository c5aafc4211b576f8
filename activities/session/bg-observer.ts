import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Context } from '@temporalio/activity';
import { sessionWorkflowId } from '../../core/ids.js';
import { BG_SETTLED_SIGNAL } from '../../core/session/updates.js';
import type { BgCommandInput, BgObserverInput, BgObserverStep } from '../../core/session/activities.js';
import type { ProjectionStore } from '../projection/types.js';
import { COOPERATIVE_WINDOW_MS } from '../tools/shell/guard-run.js';
import { getLiveTask, readStatus, runBackground, taskDir, viewTask, type BgCompletion } from '../tools/bg/index.js';
import { pidAlive } from '../tools/bg/store.js';
import { processHostId } from '../infra/host-id.js';
import { backgroundCallArgs, recordBackgroundCompletion, type SettledTask } from './bg-completed.js';

/** How long `bgObserverStart` waits for the task to be claimed on disk (its `status.json`), in ms. */
const CLAIM_WAIT_MS = 10_000;
const CLAIM_POLL_MS = 20;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The remote-observer activities of one worker, and how to stop what they started when the worker stops. */
export interface BgObserverActivities {
  activities: {
    bgObserverStart(input: BgCommandInput): Promise<BgObserverStep>;
    bgObserverPoll(input: BgObserverInput): Promise<BgObserverStep>;
    bgObserverStop(input: BgObserverInput): Promise<void>;
  };
  /** Stops every command this worker started that still runs and waits until each has settled (the worker is shutting down). */
  stopAll(): Promise<void>;
}

/**
 * Builds the remote-observer activities (SH9, GL26): a `shell` call with
 * `background: true, backgroundPurpose: "remoteObserver"` whose wait the
 * workflow holds with timers (workflows/observer.ts) instead of one
 * activity open for the command's whole life — so no activity is in flight
 * while a CI run or a deploy is being waited for, and the time-skipping
 * server can skip that wait.
 *
 * The command runs in this worker process exactly as `bgCommand` runs it
 * (`runBackground`: the guard, the task's files under `.zuno/bg/`, the
 * receipt); it dies with the process (the guard sees its stdin close), and
 * a later poll then reads its `running` status with no process behind it as
 * `lost` (uncertain, never re-run) — the same outcome a lost `bgCommand`
 * has.
 * - `bgObserverStart` claims and starts the task and returns once its
 *   status is on disk (or at once with the result when nothing could run).
 *   A task that already exists is never started again. When the command
 *   ends, this worker signals the session (`bgSettled`) so it polls at once.
 * - `bgObserverPoll` reads the task's state (live registry, else its
 *   `status.json`); once it is settled or lost it appends `bg.completed`
 *   (idempotent) and returns the completion. An unknown task reads as lost.
 * - `bgObserverStop` asks the command to stop (SIGTERM to its group, SIGKILL
 *   after the SH5 window); polls then see it settle.
 * A worker that closes stops the commands it still runs; their polls report
 * them lost ("its worker shut down"), never cancelled.
 */
export function createBgObserver(store: ProjectionStore): BgObserverActivities {
  /** Tasks this worker started and still runs: `sessionId\0taskID` → their completion and where they are. */
  const started = new Map<string, { done: Promise<BgCompletion>; where: TaskPlace }>();
  /** Set once the worker stops: its tasks are stopped, not ended, and no hint goes out. */
  let stopping = false;

  async function settled(input: BgObserverInput, done: SettledTask): Promise<BgObserverStep> {
    return { result: await recordBackgroundCompletion(store, input, done) };
  }

  async function bgObserverStart(input: BgCommandInput): Promise<BgObserverStep> {
    const { sessionId, workspace, taskID, call } = input;
    const where = { sessionId, workspace, taskID, rowId: call.rowId };
    const known = await viewTask(workspace, sessionId, taskID);
    if (known) return known.completion ? settled(where, known.completion) : {};
    const args = await backgroundCallArgs(store, input);
    const done = runBackground(args, {
      workspace,
      sessionId,
      rowId: call.rowId,
      callId: call.callId,
      taskID,
      ...(input.sandbox ? { sandbox: input.sandbox } : {}),
      hostId: input.host ?? processHostId(),
    });
    const key = `${sessionId}\0${taskID}`;
    started.set(key, { done, where: { workspace, sessionId, taskID } });
    const client = Context.current().client;
    void done.finally(() => {
      started.delete(key);
      // The hint that makes the session poll now; lost (this worker gone), its next timed poll finds the end.
      if (!stopping)
        void client.workflow
          .getHandle(sessionWorkflowId(sessionId))
          .signal(BG_SETTLED_SIGNAL, taskID)
          .catch(() => undefined);
    });
    const dir = taskDir(workspace, sessionId, taskID);
    let finished: BgCompletion | undefined;
    void done.then((c) => (finished = c));
    for (const until = Date.now() + CLAIM_WAIT_MS; Date.now() < until; await sleep(CLAIM_POLL_MS)) {
      if (finished) return settled(where, finished);
      if (await readStatus(dir)) return {};
    }
    // Not claimed in time (a very slow disk): the task is live here; polls follow it.
    return {};
  }

  async function bgObserverPoll(input: BgObserverInput): Promise<BgObserverStep> {
    const view = await viewTask(input.workspace, input.sessionId, input.taskID);
    if (view?.completion) return settled(input, await stoppedByShutdown(input, view.completion));
    if (view) return {};
    return settled(input, unknownTask(input));
  }

  async function bgObserverStop(input: BgObserverInput): Promise<void> {
    const live = getLiveTask(input.sessionId, input.taskID);
    if (live) return live.cancel();
    const status = await readStatus(taskDir(input.workspace, input.sessionId, input.taskID));
    const group = status?.state === 'running' ? status.guardPid : undefined;
    if (group === undefined || !pidAlive(group)) return;
    killGroup(group, 'SIGTERM');
    await sleep(COOPERATIVE_WINDOW_MS);
    if (pidAlive(group)) killGroup(group, 'SIGKILL');
  }

  return {
    activities: { bgObserverStart, bgObserverPoll, bgObserverStop },
    async stopAll() {
      stopping = true;
      const running = [...started.values()];
      for (const { where } of running) {
        await writeFile(shutdownMarker(where), '').catch(() => undefined);
        getLiveTask(where.sessionId, where.taskID)?.cancel();
      }
      await Promise.allSettled(running.map((t) => t.done));
    },
  };
}

/** Where one task lives. */
interface TaskPlace {
  workspace: string;
  sessionId: string;
  taskID: string;
}

/** The file a stopping worker leaves in the directory of each task it stopped. */
function shutdownMarker(t: TaskPlace): string {
  return join(taskDir(t.workspace, t.sessionId, t.taskID), 'stopped-by-worker-shutdown');
}

/**
 * A task its worker stopped because the worker shut down reads as lost —
 * nobody cancelled it, and what it did is unknown — never as "cancelled"
 * (as a `bgCommand` stopped by its worker's shutdown is reported).
 */
async function stoppedByShutdown(t: TaskPlace, done: BgCompletion): Promise<BgCompletion> {
  if (done.state !== 'cancelled' || !existsSync(shutdownMarker(t))) return done;
  return {
    ...done,
    state: 'lost',
    outcome: 'uncertain',
    uncertainCause: 'lost',
    report:
      `Background task ${t.taskID}: outcome uncertain — the worker running it shut down and stopped it (nobody cancelled it). ` +
      `It will not be re-run; inspect the authoritative state before relying on it.\n${done.report}`,
  };
}

function killGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // the group is already gone
  }
}

/** The completion of a task with neither a live registration nor a readable status: it never reached its start, so nothing is known to have run. */
function unknownTask(input: BgObserverInput): SettledTask {
  return {
    taskID: input.taskID,
    state: 'lost',
    totalWritten: 0,
    durationMs: 0,
    outcome: 'uncertain',
    report:
      `Background task ${input.taskID}: outcome uncertain — its worker was lost before the task's status was written. ` +
      'It was not re-run; inspect the authoritative state before relying on it.',
  };
}
