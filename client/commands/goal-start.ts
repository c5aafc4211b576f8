import { ZunoError } from '../../core/errors.js';
import type { ProjectionStore } from '../../activities/projection/index.js';
import { checkReceiptPlaceholders } from '../../local-provider/placeholders.js';
import { loadScript } from '../../local-provider/script.js';
import { modelFor } from '../scripted-provider.js';
import { connectTemporal, type Notify, openStore, resolvePaths, type TemporalContext } from '../context.js';
import { sendGoalControl } from '../goal-client.js';
import { driveGoal } from '../goal-drive.js';
import { goalStartInput, type GoalBudgetFlags, type GoalCheckFlag, withHostTokenBudget } from '../goal-input.js';
import { newGoalId, startGoal, type GoalWorkflowStart, type StartedGoal } from '../goal-start.js';
import { processSink } from '../render.js';
import type { Sink } from '../sink.js';
import { hostId } from '../routing.js';
import { serveWork, workerMode } from '../serving.js';
import { newSessionId, titleOf } from '../session-start.js';
import { sessionMcp } from '../mcp-config.js';
import { loadZunoConfig } from '../zuno-config.js';
import { commandModel } from '../command-model.js';
import { sessionMetaFor } from '../session-meta.js';
import { noteUnknownWindow } from '../compaction-config.js';
import { recordSessionStart } from '../session-admit.js';
import { resolveWorkspace } from './run-plan.js';
import { goalWatchInput, refuseUnreachableWatch, type GoalWatchFlags } from '../goal-watch-input.js';

/** Options of `zuno goal start`. */
export interface GoalStartOptions extends GoalBudgetFlags, GoalWatchFlags {
  dir?: string;
  model?: string;
  script?: string;
  json?: boolean;
  /** Serve the Goal from a worker inside this command instead of the host worker service. */
  inProcess?: boolean;
  config?: string;
  criterion?: string[];
  evidenceCriterion?: string[];
  /** `--check <command>` flags, each with the criterion option right before it (client/cli.ts). */
  check?: GoalCheckFlag[];
}

/**
 * `zuno goal start "<objective>"`: starts a Goal and its session
 * (client/goal-start.ts `startGoal`) and follows it until it stops —
 * like `zuno run`: every offline check first (objective, criteria and
 * budgets named at once, `--dir`, script, `zuno.json`, model, API key),
 * nothing written before they pass; `--script` starts the local provider;
 * the session is routed to this host's `zuno worker` or to this process's
 * in-process worker. Resolves to the exit code: 0 when the Goal completed,
 * 1 when it paused, blocked, ran out of budget or was cancelled (the reason
 * and what to do next are printed), 130 after Ctrl-C (which pauses it).
 *
 * A Goal this process serves (its in-process worker, or a `--script` model)
 * cannot go on once the process ends: when following stops while it still
 * works, it is paused, never terminated, and `zuno goal resume <id>` (with
 * `--script FILE` again for a scripted model) serves it again.
 * @throws ZunoError `input_invalid`, `workspace_invalid`, `config_invalid`,
 *   `model_missing`, `api_key_missing`, `script_*`, Temporal set-up errors.
 */
export async function goalStartCommand(
  objectiveText: string,
  opts: GoalStartOptions,
  sink: Sink = processSink,
): Promise<number> {
  const cleanups: (() => Promise<unknown>)[] = [];
  const early: EarlyStop = { pending: null };
  // Ctrl-C before the Goal is followed abandons the start (driveGoal takes Ctrl-C over from then on).
  let onSigint: (() => void) | undefined;
  const interrupted = new Promise<never>((_, reject) => {
    onSigint = () => {
      early.aborted = true;
      reject(new ZunoError('interrupted', 'interrupted before the goal started'));
    };
    process.on('SIGINT', onSigint);
    process.on('SIGTERM', onSigint); // `kill`, `timeout`: the goal is left paused, as on Ctrl-C
  });
  const handOver = () => {
    process.removeListener('SIGINT', onSigint!);
    process.removeListener('SIGTERM', onSigint!);
  };
  const run = startAndFollow(objectiveText, opts, sink, cleanups, early, handOver);
  run.catch(() => undefined);
  try {
    return await Promise.race([run, interrupted]);
  } catch (err) {
    // A start in flight finishes its step first: it stops before writing anything, or the goal it started
    // is paused (never left working unfollowed) — then the connection may close.
    if (err instanceof ZunoError && err.code === 'interrupted' && !early.followed) {
      await Promise.race([run.catch(() => undefined), new Promise((r) => setTimeout(r, EARLY_STOP_WAIT_MS))]);
    }
    throw err;
  } finally {
    handOver();
    for (const c of cleanups) await c().catch(() => undefined);
  }
}

/** How long an early Ctrl-C waits for the start step in flight to finish, in ms. */
const EARLY_STOP_WAIT_MS = 15_000;

/** A start in flight, for Ctrl-C before the Goal is followed. */
interface EarlyStop {
  /** Ctrl-C (or SIGTERM) came before the Goal was followed: the start stops at its next step. */
  aborted?: boolean;
  pending: Promise<StartedGoal> | null;
  /** true once driveGoal follows the Goal (it handles Ctrl-C itself). */
  followed?: boolean;
  pause?: (goalId: string) => Promise<unknown>;
}

/** `zuno goal start` once its signals are wired: check offline, connect, serve, start the Goal, follow it. */
async function startAndFollow(
  objectiveText: string,
  opts: GoalStartOptions,
  sink: Sink,
  cleanups: (() => Promise<unknown>)[],
  early: EarlyStop,
  handOverSigint: () => void,
): Promise<number> {
  const notify: Notify = opts.json ? null : (line) => sink.err(`${line}\n`);
  // Everything that can be checked offline is checked before anything starts or is written.
  const input = goalStartInput(objectiveText, opts);
  const watched = goalWatchInput(opts);
  const workspace = resolveWorkspace(opts.dir ?? process.cwd());
  const sessionId = newSessionId();
  // A script citing a receipt ({{receipt:<callId>}}) is filled by the local provider as it serves each reply.
  const script = opts.script ? checkReceiptPlaceholders(await loadScript(opts.script), opts.script) : undefined;
  const paths = resolvePaths();
  hostId(); // a malformed ZUNO_HOST_ID is refused before anything starts
  const zcfg = loadZunoConfig(workspace, opts.config);
  const budgets = withHostTokenBudget(input.budgets, zcfg.goal.default_token_budget);
  if (watched) await refuseUnreachableWatch(watched.watch, zcfg.network.allow_private, notify);
  const mode = workerMode({ inProcess: opts.inProcess === true });
  const configured = commandModel(zcfg, opts.model ?? zcfg.model, script, paths, mode);
  const store: ProjectionStore = await openStore(paths);
  cleanups.unshift(() => store.close());
  const temporal = await connectTemporal(paths, notify);
  cleanups.unshift(() => temporal.connection.close());
  const resolved = modelFor(configured, script, { stateDir: paths.stateDir, owner: sessionId });
  const serving = await serveWork({
    paths,
    temporal,
    store,
    baseQueue: temporal.baseQueue,
    id: sessionId,
    command: 'zuno goal start',
    mode,
    provider: resolved.provider,
    mcp: sessionMcp(zcfg, workspace),
    notify,
  });
  cleanups.unshift(() => serving.stop());
  const meta = sessionMetaFor({
    sessionId,
    workspace,
    resolved,
    title: titleOf(input.objective),
    zcfg,
    temporal,
    route: serving.route,
  });
  const goal = goalToStart(input, budgets, meta, watched);
  const started = await startRecorded({
    temporal,
    baseQueue: temporal.baseQueue,
    store,
    goal,
    early,
    sink,
    scripted: script !== undefined,
  });
  early.followed = true;
  handOverSigint();
  notify?.(`goal ${started.goalId} started (session ${sessionId}${watched ? ' starts when the watch reports' : ''})`);
  // CP6: a model with no known window is never compacted before a request; say so once.
  noteUnknownWindow(meta, notify);
  return driveGoal({
    client: temporal.client,
    address: temporal.address,
    store,
    goalId: started.goalId,
    sessionId,
    after: 0,
    json: opts.json === true,
    sink,
    servesHere: serving.servedHere,
    scripted: script !== undefined,
    command: 'zuno goal start',
  });
}

/** The Goal to start: the person's input, and a watch with the criterion it owns listed first (issue 31). */
function goalToStart(
  input: ReturnType<typeof goalStartInput>,
  budgets: GoalWorkflowStart['budgets'],
  meta: GoalWorkflowStart['meta'],
  watched: ReturnType<typeof goalWatchInput>,
): GoalWorkflowStart {
  return {
    goalId: newGoalId(),
    objective: input.objective,
    criteria: watched ? [watched.criterion, ...input.criteria] : input.criteria,
    budgets,
    meta,
    ...(watched ? { watch: watched.watch } : {}),
  };
}

/**
 * Lists the Goal's session, then starts the Goal workflow. A start that
 * fails marks the session failed; a Ctrl-C before or during the start stops
 * it — a Goal that had started by then is left paused, never working with
 * nobody following.
 * @throws ZunoError `interrupted` after an early Ctrl-C; the start's own error.
 */
async function startRecorded(s: {
  temporal: TemporalContext;
  baseQueue: string;
  store: ProjectionStore;
  goal: GoalWorkflowStart;
  early: EarlyStop;
  sink: Sink;
  scripted: boolean;
}): Promise<StartedGoal> {
  const { temporal, store, goal, early } = s;
  const sessionId = goal.meta.sessionId;
  const stopped = () => new ZunoError('interrupted', 'interrupted before the goal started');
  if (early.aborted) throw stopped(); // nothing written yet
  // The session is listed at once, before a worker takes its first step (as `zuno run` does).
  await recordSessionStart(store, goal.meta, null);
  let started: StartedGoal;
  early.pause = (id) => sendGoalControl(temporal.client, id, { action: 'pause', by: 'you (Ctrl-C)' }, 5_000);
  try {
    early.pending = startGoal(temporal.client, s.baseQueue, goal);
    started = await early.pending;
  } catch (err) {
    await store
      .setSessionStatus(sessionId, 'failed', {
        updatedAtMs: Date.now(),
        error: `its goal could not start: ${(err as Error).message}`,
      })
      .catch(() => undefined);
    throw err;
  }
  if (early.aborted) {
    // Interrupted while the goal was starting: it is left paused, not working with nobody following.
    await early.pause(started.goalId).catch(() => undefined);
    s.sink.err(
      `zuno: goal ${started.goalId} had started when you interrupted: it is paused; resume it with \`zuno goal resume ${started.goalId}${s.scripted ? ' --script FILE' : ''}\`\n`,
    );
    throw stopped();
  }
  return started;
}
