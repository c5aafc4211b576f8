/**
 * What `zuno run` settles before it connects to Temporal: the offline checks
 * (prompt, session id, agent, `--dir`, script, `zuno.json`, model, the
 * provider key a worker will need), the session it continues, if any, and
 * the projection it writes to. Nothing is started or written before every
 * offline check passed.
 */
import { realpathSync, statSync } from 'node:fs';
import { ZunoError } from '../../core/errors.js';
import type { SessionMeta } from '../../core/session/meta.js';
import type { ProjectionStore, SessionRow } from '../../activities/projection/index.js';
import { loadScript, type Script } from '../../local-provider/script.js';
import { runAgent } from '../agent-option.js';
import { openStore, resolvePaths, type ZunoPaths } from '../context.js';
import { hostId } from '../routing.js';
import { keyAvailable, workerMode, type WorkerMode } from '../serving.js';
import { checkSessionId } from '../session-start.js';
import { findRunTarget, openExistingStore, type RunTarget } from '../session-target.js';
import { loadZunoConfig, resolveModel, type ZunoConfig } from '../zuno-config.js';

/** Options of `zuno run`. */
export interface RunOptions {
  dir?: string;
  model?: string;
  script?: string;
  json?: boolean;
  /** false: start no worker (a running `zuno worker` must serve the task queue). */
  worker?: boolean;
  /** Serve the session from a worker inside this command instead of the host worker service (tests, debugging). */
  inProcess?: boolean;
  config?: string;
  /** Continue this session (`--session <id>`). */
  session?: string;
  /** Continue the newest session of the workspace (`--continue`). */
  continue?: boolean;
  /** The agent role of a new session (`--agent`, a primary role; default build). */
  agent?: string;
}

/** The settled inputs of one `zuno run`. */
export interface RunPlan {
  paths: ZunoPaths;
  /** The projection (opened here; closed by the cleanups the caller passed). */
  store: ProjectionStore;
  /** The session continued (`--session`/`--continue`), or null for a new one. */
  existing: SessionRow | null;
  agent: Pick<SessionMeta, 'agent' | 'tools'>;
  workspace: string;
  zcfg: ZunoConfig;
  script: Script | undefined;
  /** The configured model (absent with `--script`). */
  configured: ReturnType<typeof resolveModel> | undefined;
  mode: WorkerMode;
}

/**
 * Runs every offline check of `zuno run`, finds the session it continues and
 * opens the projection (pushing its close onto `cleanups`).
 * @throws ZunoError `input_rejected` (empty prompt), `options_conflict`,
 *   `model_missing`, `api_key_missing`, the codes of `findRunTarget`,
 *   `loadScript`, `loadZunoConfig`, `resolveModel` and `resolveWorkspace`.
 */
export async function planRun(
  prompt: string,
  opts: RunOptions,
  cleanups: (() => Promise<unknown>)[],
): Promise<RunPlan> {
  if (prompt.trim() === '') throw new ZunoError('input_rejected', 'the prompt is empty');
  if (opts.session !== undefined) checkSessionId(opts.session);
  if (opts.agent !== undefined) runAgent(opts.agent, null);
  // An empty --dir (say an unset "$PROJECT") is refused by resolveWorkspace rather than read as the current directory.
  const named = resolveWorkspace(opts.dir ?? process.cwd());
  const script = opts.script ? await loadScript(opts.script) : undefined;
  const paths = resolvePaths();
  hostId(); // a malformed ZUNO_HOST_ID is refused before anything starts
  if (opts.session !== undefined && opts.continue) {
    throw new ZunoError('options_conflict', '--session and --continue both choose a session: give one of them');
  }
  // A new session opens the projection only once every offline check passed (nothing is written before);
  // continuing one reads it first, to know the session's workspace and model.
  let store: ProjectionStore | null = null;
  let target: RunTarget = { kind: 'new' };
  if (opts.session !== undefined || opts.continue) {
    store = await openExistingStore(paths);
    const opened = store;
    if (opened) cleanups.unshift(() => opened.close());
    target = await findRunTarget(store, {
      ...(opts.session !== undefined ? { session: opts.session } : {}),
      continue: opts.continue === true,
      workspace: named,
      dirGiven: opts.dir !== undefined,
      home: paths.home,
    });
  }
  const existing = target.kind === 'existing' ? target.row : null;
  const agent = runAgent(opts.agent, existing);
  const workspace = existing ? resolveWorkspace(existing.workspace, existing.id) : named;
  const zcfg = loadZunoConfig(workspace, opts.config);
  const configured = script ? undefined : resolveModel(zcfg, modelRefOf(opts, existing, zcfg));
  const mode = workerMode(opts);
  // A new session whose worker cannot have the key is refused before any server starts.
  if (!existing && configured) {
    const keyEnv = configured.provider.apiKeyEnv;
    if (keyEnv !== undefined && !keyAvailable(paths, keyEnv, mode)) throw apiKeyMissing(configured.provider.id, keyEnv);
  }
  if (!store) {
    const opened = await openStore(paths);
    cleanups.unshift(() => opened.close());
    store = opened;
  }
  return { paths, store, existing, agent, workspace, zcfg, script, configured, mode };
}

/**
 * The `provider/model` a run without `--script` uses: `--model`, else the
 * continued session's, else `zuno.json`'s.
 * @throws ZunoError `model_missing` when there is none, or when the continued
 *   session ran on a scripted model (which ended with its run).
 */
function modelRefOf(opts: RunOptions, existing: SessionRow | null, zcfg: ZunoConfig): string {
  if (existing?.provider === 'local' && !opts.model) {
    throw new ZunoError(
      'model_missing',
      `session ${existing.id} ran on a scripted model, which ended with its run: pass --script FILE (or --model provider/model) to continue it`,
    );
  }
  const ref = opts.model ?? (existing ? `${existing.provider}/${existing.model}` : zcfg.model);
  if (!ref) {
    throw new ZunoError(
      'model_missing',
      'no model configured: pass --model provider/model (or set "model" in zuno.json), or --script FILE for the local provider',
    );
  }
  return ref;
}

/** The refusal of a session whose in-process worker would lack the provider's key: `api_key_missing` naming the variable. */
export function apiKeyMissing(provider: string, keyEnv: string): ZunoError {
  return new ZunoError(
    'api_key_missing',
    `provider ${provider} reads its API key from ${keyEnv}, which is not set; export it here (the command hands it to this host's worker)`,
  );
}

/**
 * The workspace as an absolute real path; with `sessionId`, the workspace of
 * that existing session (the message says it is gone). `named` is what the
 * message calls it (`--dir` on the command line; a surface says `workspace`).
 * @throws ZunoError `workspace_invalid`.
 */
export function resolveWorkspace(dir: string, sessionId?: string, named = '--dir'): string {
  if (dir.trim() === '') {
    throw new ZunoError('workspace_invalid', `${named} is empty (an unset variable?): name the workspace directory`);
  }
  try {
    const real = realpathSync(dir);
    if (!statSync(real).isDirectory()) throw new Error('not a directory');
    return real;
  } catch (err) {
    const why = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    throw new ZunoError(
      'workspace_invalid',
      sessionId
        ? `session ${sessionId} works in ${dir}, which is gone or not a directory (${why}): restore it to continue the session`
        : `${named} ${dir} is not a usable directory: ${(err as Error).message}`,
    );
  }
}
