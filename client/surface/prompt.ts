/**
 * A prompt from a surface (`zuno acp` `session/prompt`, `POST
 * /sessions/:id/prompt`), admitted through the session's durable inbox
 * exactly as `zuno run` admits one (SE1, SE2): a new session is listed and
 * started, a closed one reopened as a new run of the same workflow id, a
 * running one gets the input through `submitInput`. The session is served by
 * this host's worker service, never by the surface (SF1, SF9).
 */
import { ZunoError } from '../../core/errors.js';
import type { SessionRoute } from '../../core/session/meta.js';
import type { SessionRow } from '../../activities/projection/index.js';
import type { Script } from '../../local-provider/script.js';
import { runAgent } from '../agent-option.js';
import { apiKeyMissing, resolveWorkspace } from '../commands/run-plan.js';
import { modelFor } from '../scripted-provider.js';
import {
  admitInput,
  admitToOpenRun,
  type AdmittedInput,
  recordSessionStart,
  runningSession,
} from '../session-admit.js';
import { sessionMcp } from '../mcp-config.js';
import { sessionMetaFor } from '../session-meta.js';
import { checkSessionId, sessionResultOf, titleOf } from '../session-start.js';
import { sessionWorkflowId } from '../../core/ids.js';
import { recordedRoute } from '../goal-serve.js';
import { keyAvailable, serveOpenWork } from '../serving.js';
import { loadZunoConfig, resolveModel } from '../zuno-config.js';
import { serveForSurface, serveOptionsOf, type SurfaceHost } from './host.js';

/** One prompt for a session, as a surface received it. */
export interface PromptRequest {
  /** `ses_…`: an existing session, or the id a surface allocated for a new one. */
  sessionId: string;
  text: string;
  /** The client's idempotency key (SE2): a resend returns the original receipt, never a second input. */
  clientMessageId?: string;
  /** A session not recorded yet: its workspace (absolute or relative to the surface's cwd). */
  workspace?: string;
  /** A new session's primary role (default `build`); an existing one keeps its own. */
  agent?: string;
  /** `provider/model` of a new or closed session (default: the workspace's zuno.json `model`). */
  model?: string;
  /** A scripted model (the local provider) instead of `model`: demos and tests. */
  script?: Script;
  /** A zuno.json path instead of `<workspace>/zuno.json`. */
  config?: string;
}

/** An admitted prompt: the receipt and result of {@link AdmittedInput}, where the session's events stood, its route. */
export interface AdmittedPrompt extends AdmittedInput {
  sessionId: string;
  /** The session's newest event seq before the input was admitted (a follower starts after it). */
  after: number;
  /** Where the session's activities run (undefined: a session from before routing). */
  route: SessionRoute | undefined;
}

/**
 * Admits `req` to its session and returns the receipt (SE1): `driven`,
 * `steered` (joins the running turn) or `pending` (queued behind earlier
 * input); `duplicate: true` for a resent `clientMessageId`.
 * @throws ZunoError `session_id_invalid`, `session_not_found` (an unknown id
 *   and no workspace), `session_paused`, `session_delegated`, `agent_invalid`,
 *   `options_conflict` (another role or model for a running session),
 *   `workspace_invalid`, `config_invalid`, `model_missing`, `model_invalid`,
 *   `api_key_missing`, `input_rejected` and the session's own rejection codes.
 */
export async function admitPrompt(host: SurfaceHost, req: PromptRequest): Promise<AdmittedPrompt> {
  const sessionId = checkSessionId(req.sessionId);
  if (req.text.trim() === '') throw new ZunoError('input_rejected', 'the prompt is empty');
  const existing = await host.store.getSession(sessionId);
  if (!existing && req.workspace === undefined) {
    throw new ZunoError('session_not_found', `no session ${sessionId} in this home`);
  }
  const agent = runAgent(req.agent, existing);
  const live = existing ? await runningSession(host.temporal, existing) : null;
  if (live && existing) return admitLive(host, existing, live.route, req);
  const resent = existing ? await resentInput(host, existing, req.clientMessageId) : null;
  if (resent) return resent;
  const workspace = existing
    ? resolveWorkspace(existing.workspace, sessionId)
    : resolveWorkspace(req.workspace!, undefined, 'workspace');
  const zcfg = loadZunoConfig(workspace, req.config);
  const resolved = modelFor(req.script ? undefined : configuredModel(zcfg, req, existing), req.script, {
    stateDir: host.paths.stateDir,
    owner: sessionId,
  });
  const keyEnv = resolved.provider.apiKeyEnv;
  if (keyEnv !== undefined && !keyAvailable(host.paths, keyEnv, host.mode))
    throw apiKeyMissing(resolved.provider.id, keyEnv);
  const serving = await serveForSurface(host, {
    id: sessionId,
    provider: resolved.provider,
    mcp: sessionMcp(zcfg, workspace),
  });
  const meta = sessionMetaFor({
    sessionId,
    workspace,
    resolved,
    title: existing?.title ?? titleOf(req.text),
    zcfg,
    temporal: host.temporal,
    route: serving.route,
    agent,
  });
  const after = existing ? await host.store.lastEventSeq(sessionId) : 0;
  await recordSessionStart(host.store, meta, existing);
  const admitted = await admitInput(host.store, host.temporal, meta, req.text, false, existing, req.clientMessageId);
  return { ...admitted, sessionId, after, route: serving.route };
}

/** A running session: same model, not paused; the input goes to its open run. */
async function admitLive(
  host: SurfaceHost,
  existing: SessionRow,
  route: SessionRoute | undefined,
  req: PromptRequest,
): Promise<AdmittedPrompt> {
  if (req.script !== undefined || req.model !== undefined) {
    throw new ZunoError(
      'options_conflict',
      `session ${existing.id} is running: its model cannot change now — send the prompt without a model, or once it is idle`,
    );
  }
  if (existing.status === 'paused') {
    throw new ZunoError(
      'session_paused',
      `session ${existing.id} is paused (${existing.error ?? 'a person must act'}): resume it first; it takes new input after that`,
    );
  }
  const serving = await serveOpenWork({ ...serveOptionsOf(host), route });
  if (serving.servedHere) host.keepServing(serving.stop);
  const after = await host.store.lastEventSeq(existing.id);
  const text = req.text;
  const admitted = await admitToOpenRun(host.temporal, existing.id, {
    text,
    ...(req.clientMessageId !== undefined ? { clientMessageId: req.clientMessageId } : {}),
  });
  return { ...admitted, sessionId: existing.id, after, route };
}

/**
 * SE2 across runs: a closed session's next run does not know the client ids
 * its earlier runs saw, so a resend of an input already admitted (the
 * projection lists it with its client id) is answered here with its original
 * receipt, `duplicate: true`, and nothing is admitted again.
 */
async function resentInput(
  host: SurfaceHost,
  existing: SessionRow,
  clientMessageId: string | undefined,
): Promise<AdmittedPrompt | null> {
  if (clientMessageId === undefined) return null;
  const row = (await host.store.listInputs(existing.id)).find((i) => i.clientMessageId === clientMessageId);
  if (!row) return null;
  const workflowId = sessionWorkflowId(existing.id);
  return {
    receipt: { inputId: row.id, sessionId: existing.id, status: row.admission, duplicate: true },
    workflowId,
    result: () => sessionResultOf(host.temporal.client.workflow.getHandle(workflowId)),
    sessionId: existing.id,
    after: await host.store.lastEventSeq(existing.id),
    route: recordedRoute(existing) ?? undefined,
  };
}

/**
 * The configured model of a new or reopened session: the request's, else the
 * session's own, else zuno.json's.
 * @throws ZunoError `model_missing` (none, or a closed scripted session with no script), `model_invalid`.
 */
function configuredModel(
  zcfg: ReturnType<typeof loadZunoConfig>,
  req: PromptRequest,
  existing: SessionRow | null,
): ReturnType<typeof resolveModel> {
  if (existing?.provider === 'local' && req.model === undefined) {
    throw new ZunoError(
      'model_missing',
      `session ${existing.id} ran on a scripted model, which ended with its run: give a script or a model to continue it`,
    );
  }
  const ref = req.model ?? (existing ? `${existing.provider}/${existing.model}` : zcfg.model);
  if (!ref) {
    throw new ZunoError(
      'model_missing',
      'no model configured: set "model" in the workspace\'s zuno.json (or name provider/model with the request)',
    );
  }
  return resolveModel(zcfg, ref);
}
