import { ZunoError } from '../../core/errors.js';
import { goalReason } from '../../core/goal/transitions.js';
import type { ProjectionStore, SessionRow } from '../../activities/projection/index.js';
import type { GoalState } from '../../core/goal/status.js';
import { checkReceiptPlaceholders } from '../../local-provider/placeholders.js';
import { loadScript, type Script } from '../../local-provider/script.js';
import { modelFor } from '../scripted-provider.js';
import { resolvePaths, type ZunoPaths } from '../context.js';
import { queryGoal, sendGoalControl } from '../goal-client.js';
import { driveGoal } from '../goal-drive.js';
import { resumeChoice } from '../goal-input.js';
import { askResumeChoice } from '../goal-prompt.js';
import { processSink } from '../render.js';
import type { Sink } from '../sink.js';
import { hostId } from '../routing.js';
import { keyAvailable, serveWork, workerMode } from '../serving.js';
import { sessionMcp } from '../mcp-config.js';
import { loadZunoConfig, resolveModel } from '../zuno-config.js';
import { contextForModel } from '../compaction-config.js';
import { controlGoal, withServedGoal } from './goal-control.js';
import { connectGoal, openGoalTarget } from './goal-target.js';
import { apiKeyMissing, resolveWorkspace } from './run-plan.js';

/** Options of `zuno goal resume`. */
export interface GoalResumeOptions {
  /** `resume` (Resume goal) or `keep-paused` (Keep paused). */
  choice?: string;
  script?: string;
  model?: string;
  config?: string;
  json?: boolean;
  /** Serve the Goal from a worker inside this command instead of the host worker service. */
  inProcess?: boolean;
}

/**
 * `zuno goal resume <id> [--choice resume|keep-paused] [--script F] [--model M]`:
 * a paused or budget-limited Goal goes on (`goalControl` resume, bound to
 * the revision just queried). A Goal paused because a call's outcome is
 * unknown needs the person's choice (GL27): `--choice`, or a prompt on a
 * terminal — never a default. Keep paused changes nothing and exits 0.
 * Resume goal gives the Goal's session a new server: this host's `zuno
 * worker`, else this process (its route, provider and model travel in the
 * request and the Goal hands them to its session), then follows it like
 * `zuno goal start` — exit 0 completed, 1 stopped again, 130 Ctrl-C.
 * @throws ZunoError `usage_error` (id, `--choice`, a missing choice off a
 *   terminal), `goal_not_found`, `goal_closed`, `goal_not_paused`,
 *   `goal_blocked`, `budget_exhausted`, `stale_revision`, `session_elsewhere`,
 *   `model_missing` (a scripted goal needs `--script` again), `api_key_missing`.
 */
export async function goalResumeCommand(
  goalId: string,
  opts: GoalResumeOptions,
  sink: Sink = processSink,
): Promise<number> {
  if (opts.choice !== undefined) resumeChoice(goalId, null, opts.choice, false); // a misspelt --choice is refused first
  const script = opts.script ? await loadScript(opts.script) : undefined;
  const paths = resolvePaths();
  const target = await openGoalTarget(goalId, paths);
  const { store, row, session } = target;
  const cleanups: (() => Promise<unknown>)[] = [() => store.close()];
  try {
    const st = row.snapshot.state;
    refuseUnpaused(goalId, st);
    const tty = process.stdin.isTTY === true && process.stderr.isTTY === true;
    let choice = resumeChoice(goalId, goalReason(row.snapshot), opts.choice, tty);
    if (choice === 'ask') choice = await askResumeChoice(goalId, st.message, session.id);
    if (choice === 'keep_paused') {
      await store.close();
      cleanups.length = 0;
      return await keepPaused(goalId, opts, sink);
    }
    // Resume goal: everything offline first.
    const configured = resumeModel(goalId, session, opts, script);
    return await resumeGoal({ goalId, opts, sink, paths, store, session, script, configured, cleanups });
  } finally {
    for (const c of cleanups) await c().catch(() => undefined);
  }
}

/**
 * Refuses a Goal that is not paused or budget-limited.
 * @throws ZunoError `goal_blocked` (with what to do instead), `goal_not_paused`.
 */
function refuseUnpaused(
  goalId: string,
  st: GoalState,
): asserts st is Extract<GoalState, { status: 'paused' | 'budget_limited' }> {
  if (st.status === 'blocked')
    throw new ZunoError(
      'goal_blocked',
      `goal ${goalId} is blocked (${st.code}): ${st.message}; fix that, cancel it (zuno goal cancel ${goalId}) and start a new goal`,
    );
  if (st.status !== 'paused' && st.status !== 'budget_limited')
    throw new ZunoError('goal_not_paused', `goal ${goalId} is ${st.status}, not paused: there is nothing to resume`);
}

/** `--choice keep_paused`: the Goal records the choice and stays paused; prints its answer. */
async function keepPaused(goalId: string, opts: GoalResumeOptions, sink: Sink): Promise<number> {
  return withServedGoal(goalId, 'zuno goal resume', async (g) => {
    const r = await controlGoal(
      g,
      (s) => ({ action: 'resume', choice: 'keep_paused', expectedRevision: s.revision }),
      sink,
    );
    sink.out(opts.json ? `${JSON.stringify(r)}\n` : `goal ${goalId}: ${r.message}\n`);
    return 0;
  });
}

/**
 * The offline checks of resuming: this host, the workspace, `zuno.json` and
 * the model (absent with `--script`).
 * @throws ZunoError `session_elsewhere`, `workspace_invalid`, `model_missing`, config and model errors.
 */
function resumeModel(
  goalId: string,
  session: SessionRow,
  opts: GoalResumeOptions,
  script: Script | undefined,
): ReturnType<typeof resolveModel> | undefined {
  if (session.host && session.host !== hostId())
    throw new ZunoError(
      'session_elsewhere',
      `goal ${goalId} works in ${session.workspace} on host ${session.host}; resume it there (this is ${hostId()})`,
    );
  resolveWorkspace(session.workspace, session.id);
  const zcfg = loadZunoConfig(session.workspace, opts.config);
  if (!script && session.provider === 'local' && !opts.model) {
    throw new ZunoError(
      'model_missing',
      `goal ${goalId} ran on a scripted model, which ended with the command that served it: pass --script FILE (or --model provider/model) to resume it`,
    );
  }
  return script ? undefined : resolveModel(zcfg, opts.model ?? `${session.provider}/${session.model}`);
}

/** What {@link resumeGoal} works with, settled offline. */
interface ResumeInputs {
  goalId: string;
  opts: GoalResumeOptions;
  sink: Sink;
  paths: ZunoPaths;
  store: ProjectionStore;
  session: SessionRow;
  script: Script | undefined;
  configured: ReturnType<typeof resolveModel> | undefined;
  /** Closers run by the command when it ends (Temporal connection, serving). */
  cleanups: (() => Promise<unknown>)[];
}

/** Connects, serves the Goal's session, sends `resume` with the new route and model, and follows the Goal. */
async function resumeGoal(r: ResumeInputs): Promise<number> {
  const { goalId, opts, sink, paths, store, session, script } = r;
  const notify = opts.json ? null : (line: string) => sink.err(`${line}\n`);
  const { temporal, baseQueue } = await connectGoal(paths, goalId, notify);
  r.cleanups.unshift(() => temporal.connection.close());
  // A script citing receipts ({{receipt:<callId>}}) is filled by the local provider as it serves each reply.
  const filled = script ? checkReceiptPlaceholders(script, opts.script) : undefined;
  const resolved = modelFor(r.configured, filled, { stateDir: paths.stateDir, owner: session.id });
  const mode = workerMode({ inProcess: opts.inProcess === true });
  const keyEnv = resolved.provider.apiKeyEnv;
  if (keyEnv !== undefined && !keyAvailable(paths, keyEnv, mode)) throw apiKeyMissing(resolved.provider.id, keyEnv);
  const zcfg = loadZunoConfig(session.workspace, opts.config);
  const serving = await serveWork({
    paths,
    temporal,
    store,
    baseQueue,
    id: session.id,
    command: 'zuno goal resume',
    mode,
    provider: resolved.provider,
    mcp: sessionMcp(zcfg, session.workspace),
    notify,
  });
  r.cleanups.unshift(() => serving.stop());
  const snap = await queryGoal(temporal.client, goalId);
  // The projection may lag the workflow: the choice rule is checked again on what the Goal says now.
  if (opts.choice === undefined && goalReason(snap) === 'uncertain_side_effect')
    resumeChoice(goalId, 'uncertain_side_effect', undefined, false);
  const after = await store.lastEventSeq(session.id);
  const sent = await sendGoalControl(temporal.client, goalId, {
    action: 'resume',
    choice: 'resume',
    expectedRevision: snap.revision,
    route: serving.route,
    provider: resolved.provider,
    model: resolved.model,
    context: contextForModel(zcfg, resolved.provider.id, resolved.model),
  });
  notify?.(`goal ${goalId}: ${sent.message} (revision ${sent.revision}; its turns run on host ${serving.route.host})`);
  return driveGoal({
    client: temporal.client,
    address: temporal.address,
    store,
    goalId,
    sessionId: session.id,
    after,
    json: opts.json === true,
    sink,
    servesHere: serving.servedHere,
    scripted: script !== undefined,
    command: 'zuno goal resume',
  });
}

/**
 * `zuno goal answer <id> "<text>"`: answers the question a Goal paused on
 * (GL39: `required_input`); the answer reaches its session as the person's
 * input and the Goal goes on — followed like `zuno goal start` (exit 0
 * completed, 1 stopped again, 130 Ctrl-C). A session whose driving command
 * ended is served by this process on its recorded route with its recorded
 * provider (the answer carries no new one).
 * @throws ZunoError `input_invalid` (empty answer), `no_question` (the Goal
 *   asks nothing), `model_missing` (a scripted Goal's model ended with its
 *   command, and an answer cannot bring a new one), `api_key_missing`, `goal_*`.
 */
export async function goalAnswerCommand(
  goalId: string,
  text: string,
  opts: { json?: boolean; config?: string },
  sink: Sink = processSink,
): Promise<number> {
  if (text.trim() === '') throw new ZunoError('input_invalid', 'the answer is empty');
  const paths = resolvePaths();
  const { session, keyMissing } = await answerable(goalId, paths, opts.config);
  return withServedGoal(goalId, 'zuno goal answer', async (g) => {
    if (g.serving.servedHere && keyMissing) throw apiKeyMissing(session.provider, keyMissing);
    const after = await g.store.lastEventSeq(session.id);
    const r = await controlGoal(
      g,
      (snap) => {
        if (!snap.question) throw new ZunoError('no_question', `goal ${goalId} is not waiting for an answer`);
        return { action: 'answer', expectedRevision: snap.revision, requestId: snap.question.requestId, text };
      },
      sink,
    );
    if (!opts.json) sink.err(`goal ${goalId}: ${r.message}\n`);
    return driveGoal({
      client: g.temporal.client,
      address: g.temporal.address,
      store: g.store,
      goalId,
      sessionId: session.id,
      after,
      json: opts.json === true,
      sink,
      servesHere: g.serving.servedHere,
      scripted: false,
      command: 'zuno goal answer',
    });
  });
}

/**
 * The projection's view of a Goal about to be answered: its session, and
 * the key variable its provider needs when this process must serve it and
 * the variable is unset (null: nothing missing).
 * @throws ZunoError `no_question`, `model_missing` (scripted), and what openGoalTarget throws.
 */
async function answerable(
  goalId: string,
  paths: ReturnType<typeof resolvePaths>,
  config: string | undefined,
): Promise<{ session: SessionRow; keyMissing: string | null }> {
  const { store, row, session } = await openGoalTarget(goalId, paths);
  try {
    const s = row.snapshot;
    if (s.state.status !== 'paused' || s.state.reason !== 'required_input' || !s.question)
      throw new ZunoError(
        'no_question',
        `goal ${goalId} is not waiting for an answer (it is ${s.state.status}${goalReason(s) ? `, ${goalReason(s)}` : ''})`,
      );
    if (session.provider === 'local')
      throw new ZunoError(
        'model_missing',
        `goal ${goalId} runs on a scripted model, which ended with the command that served it, and an answer cannot bring a new one: resume it with \`zuno goal resume ${goalId} --script FILE\` instead`,
      );
    const zcfg = loadZunoConfig(session.workspace, config);
    const keyEnv = resolveModel(zcfg, `${session.provider}/${session.model}`).provider.apiKeyEnv;
    return { session, keyMissing: keyEnv !== undefined && !process.env[keyEnv] ? keyEnv : null };
  } finally {
    await store.close();
  }
}
