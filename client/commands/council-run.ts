import type { ProjectionStore } from '../../activities/projection/index.js';
import type { CouncilWorkflowInput } from '../../core/council/contract.js';
import { ZunoError } from '../../core/errors.js';
import { connectTemporal, type Notify, openStore, resolvePaths } from '../context.js';
import { newCouncilRunId, startCouncil } from '../council-start.js';
import { checkGitRange, councilRunInput } from '../council-input.js';
import { loadScript } from '../../local-provider/script.js';
import { processSink } from '../render.js';
import type { Sink } from '../sink.js';
import { hostId } from '../routing.js';
import { sessionMetaFor } from '../session-meta.js';
import { modelFor } from '../scripted-provider.js';
import { serveWork, workerMode } from '../serving.js';
import { sessionMcp } from '../mcp-config.js';
import { loadZunoConfig } from '../zuno-config.js';
import { commandModel } from '../command-model.js';
import { resolveWorkspace } from './run-plan.js';
import { followCouncil } from '../council-follow.js';

/** Options of `zuno council run`. */
export interface CouncilRunOptions {
  preset?: string;
  diff?: string;
  dir?: string;
  script?: string;
  model?: string;
  config?: string;
  json?: boolean;
  /** Serve the Council from a worker inside this command instead of the host worker service. */
  inProcess?: boolean;
  [budgetFlag: string]: unknown;
}

/**
 * `zuno council run "<question>"` (issue 12 item 5; docs/council.md): runs
 * the frozen `balanced-review` Council in the foreground. Offline checks
 * first — question, preset, budget flags (refused: the preset is frozen),
 * `--dir`, the git range (git must resolve it), script, `zuno.json`, model,
 * API key — nothing started before they pass. Then the embedded dev server
 * (or TEMPORAL_ADDRESS), an in-process worker on the Council's own route
 * (or this host's `zuno worker`), the `council/<runId>` workflow; prints each
 * seat's settlement as it happens (stderr), then the table of seats and the
 * synthesis (stdout; `--json`: `{council, result}`). Ctrl-C cancels the Council.
 * Resolves to the exit code: 0 succeeded, 1 failed (quorum missed, synthesis failed), 130 cancelled (Ctrl-C).
 * @throws ZunoError `input_invalid`, `preset_unknown`, `preset_frozen`, `options_conflict`, `diff_invalid`, `diff_empty`,
 *   `workspace_invalid`, `config_invalid`, `model_missing`, `api_key_missing`, `script_*`, Temporal set-up errors.
 */
export async function councilRunCommand(
  questionText: string,
  opts: CouncilRunOptions,
  sink: Sink = processSink,
): Promise<number> {
  const cleanups: (() => Promise<unknown>)[] = [];
  try {
    return await runAndFollow(questionText, opts, sink, cleanups);
  } finally {
    for (const c of cleanups) await c().catch(() => undefined);
  }
}

async function runAndFollow(
  questionText: string,
  opts: CouncilRunOptions,
  sink: Sink,
  cleanups: (() => Promise<unknown>)[],
): Promise<number> {
  const notify: Notify = opts.json ? null : (line) => sink.err(`${line}\n`);
  const input = councilRunInput(questionText, opts);
  if (opts.script !== undefined && opts.model !== undefined)
    throw new ZunoError('options_conflict', '--model and --script both choose the model: give one of them');
  const workspace = resolveWorkspace(opts.dir ?? process.cwd());
  if (input.diffRange) await checkGitRange(workspace, input.diffRange);
  const script = opts.script ? await loadScript(opts.script) : undefined;
  const paths = resolvePaths();
  hostId(); // a malformed ZUNO_HOST_ID is refused before anything starts
  const zcfg = loadZunoConfig(workspace, opts.config);
  const mode = workerMode({ inProcess: opts.inProcess === true });
  const configured = commandModel(zcfg, opts.model ?? zcfg.model, script, paths, mode);

  const store: ProjectionStore = await openStore(paths);
  cleanups.unshift(() => store.close());
  const temporal = await connectTemporal(paths, notify);
  cleanups.unshift(() => temporal.connection.close());
  const baseQueue = temporal.baseQueue;
  const runId = newCouncilRunId();
  const resolved = modelFor(configured, script, { stateDir: paths.stateDir, owner: runId });
  const serving = await serveWork({
    paths,
    temporal,
    store,
    baseQueue,
    id: runId,
    label: `council ${runId}`,
    command: 'zuno council run',
    mode,
    provider: resolved.provider,
    mcp: sessionMcp(zcfg, workspace),
    notify,
  });
  cleanups.unshift(() => serving.stop());
  // The seats' base: a Council a person starts has no parent session; its run id stands in (docs/council.md).
  const base = sessionMetaFor({
    sessionId: runId,
    workspace,
    resolved,
    title: `council: ${input.question}`.slice(0, 80),
    zcfg,
    temporal,
    route: serving.route,
  });
  const wf: CouncilWorkflowInput = { runId, question: input.question, preset: input.preset, base };
  if (input.diffRange) wf.diffRange = input.diffRange;
  const handle = await startCouncil(temporal.client, baseQueue, wf);
  notify?.(`council ${runId} started (${input.preset}: three seats sharing 540000 ms, 60000 ms for synthesis)`);

  const onSigint = () => {
    notify?.(`interrupted: cancelling council ${runId}`);
    handle.cancel().catch(() => undefined);
  };
  process.on('SIGINT', onSigint);
  process.on('SIGTERM', onSigint); // `kill`, `timeout`: cancelled as on Ctrl-C
  cleanups.unshift(async () => {
    process.removeListener('SIGINT', onSigint);
    process.removeListener('SIGTERM', onSigint);
  });

  return followCouncil({
    store,
    client: temporal.client,
    address: temporal.address,
    runId,
    json: opts.json === true,
    sink,
  });
}
