/**
 * Starting Goals and Councils from `zuno serve` (issue 29, SF6): the same
 * offline checks and the same steps as `zuno goal start` and `zuno council
 * run` (client/goal-input.ts, client/council-input.ts, commandModel,
 * serveWork, sessionMetaFor, startGoal, startCouncil), on the server's own
 * connections, without following: the client follows the Goal's session
 * over SSE, or polls the Council. The work is served by the host worker
 * service (SF1, SF9).
 */
import type { CouncilWorkflowInput } from '../../core/council/contract.js';
import { checkReceiptPlaceholders } from '../../local-provider/placeholders.js';
import type { Script } from '../../local-provider/script.js';
import { commandModel } from '../command-model.js';
import { resolveWorkspace } from '../commands/run-plan.js';
import { checkGitRange, councilRunInput } from '../council-input.js';
import { newCouncilRunId, startCouncil } from '../council-start.js';
import { goalStartInput, type GoalBudgetFlags, withHostTokenBudget } from '../goal-input.js';
import { newGoalId, startGoal } from '../goal-start.js';
import { modelFor } from '../scripted-provider.js';
import { recordSessionStart } from '../session-admit.js';
import { sessionMcp } from '../mcp-config.js';
import { sessionMetaFor } from '../session-meta.js';
import { newSessionId, titleOf } from '../session-start.js';
import { serveForSurface, type SurfaceHost } from '../surface/index.js';
import { loadZunoConfig } from '../zuno-config.js';

/** A Goal as a client asks for it. */
export interface GoalRequest {
  objective: string;
  workspace: string;
  criteria?: string[];
  evidenceCriteria?: string[];
  budgets?: GoalBudgetFlags;
  model?: string;
}

/**
 * Starts a Goal and its session (as `zuno goal start`, without following):
 * `script` drives it when the request names no model.
 * @throws ZunoError `input_invalid` (objective, criteria, budgets: every
 *   problem named), `workspace_invalid`, `config_invalid`, `model_missing`,
 *   `api_key_missing`, `script_invalid`, Temporal errors.
 */
export async function launchGoal(
  host: SurfaceHost,
  req: GoalRequest,
  serverScript: Script | undefined,
): Promise<{ goalId: string; sessionId: string }> {
  const input = goalStartInput(req.objective, {
    ...(req.budgets ?? {}),
    ...(req.criteria ? { criterion: req.criteria } : {}),
    ...(req.evidenceCriteria ? { evidenceCriterion: req.evidenceCriteria } : {}),
  });
  const workspace = resolveWorkspace(req.workspace, undefined, 'workspace');
  const script =
    req.model === undefined && serverScript ? checkReceiptPlaceholders(serverScript, '--script') : undefined;
  const zcfg = loadZunoConfig(workspace);
  const budgets = withHostTokenBudget(input.budgets, zcfg.goal.default_token_budget);
  const configured = commandModel(zcfg, req.model ?? zcfg.model, script, host.paths, host.mode);
  const sessionId = newSessionId();
  const resolved = modelFor(configured, script, { stateDir: host.paths.stateDir, owner: sessionId });
  const serving = await serveForSurface(host, {
    id: sessionId,
    provider: resolved.provider,
    mcp: sessionMcp(zcfg, workspace),
  });
  const meta = sessionMetaFor({
    sessionId,
    workspace,
    resolved,
    title: titleOf(input.objective),
    zcfg,
    temporal: host.temporal,
    route: serving.route,
  });
  await recordSessionStart(host.store, meta, null);
  const goal = { goalId: newGoalId(), objective: input.objective, criteria: input.criteria, budgets, meta };
  try {
    await startGoal(host.temporal.client, host.temporal.baseQueue, goal);
  } catch (err) {
    await host.store
      .setSessionStatus(sessionId, 'failed', {
        updatedAtMs: Date.now(),
        error: `its goal could not start: ${(err as Error).message}`,
      })
      .catch(() => undefined);
    throw err;
  }
  return { goalId: goal.goalId, sessionId };
}

/** A Council as a client asks for it. */
export interface CouncilRequest {
  question: string;
  workspace: string;
  preset?: string;
  diff?: string;
  model?: string;
}

/**
 * Starts a Council (as `zuno council run`, without following).
 * @throws ZunoError `input_invalid`, `preset_unknown`, `council_diff_invalid`,
 *   `workspace_invalid`, `config_invalid`, `model_missing`, `api_key_missing`, Temporal errors.
 */
export async function launchCouncil(
  host: SurfaceHost,
  req: CouncilRequest,
  serverScript: Script | undefined,
): Promise<{ runId: string }> {
  const input = councilRunInput(req.question, {
    ...(req.preset !== undefined ? { preset: req.preset } : {}),
    ...(req.diff !== undefined ? { diff: req.diff } : {}),
  });
  const workspace = resolveWorkspace(req.workspace, undefined, 'workspace');
  if (input.diffRange) await checkGitRange(workspace, input.diffRange);
  const script = req.model === undefined ? serverScript : undefined;
  const zcfg = loadZunoConfig(workspace);
  const configured = commandModel(zcfg, req.model ?? zcfg.model, script, host.paths, host.mode);
  const runId = newCouncilRunId();
  const resolved = modelFor(configured, script, { stateDir: host.paths.stateDir, owner: runId });
  const serving = await serveForSurface(host, {
    id: runId,
    label: `council ${runId}`,
    provider: resolved.provider,
    mcp: sessionMcp(zcfg, workspace),
  });
  // The seats' base: a Council a person starts has no parent session; its run id stands in (docs/council.md).
  const base = sessionMetaFor({
    sessionId: runId,
    workspace,
    resolved,
    title: `council: ${input.question}`.slice(0, 80),
    zcfg,
    temporal: host.temporal,
    route: serving.route,
  });
  const wf: CouncilWorkflowInput = { runId, question: input.question, preset: input.preset, base };
  if (input.diffRange) wf.diffRange = input.diffRange;
  await startCouncil(host.temporal.client, host.temporal.baseQueue, wf);
  return { runId };
}
