/**
 * `session/prompt` of `zuno acp` (SF9, SF10): the prompt is admitted through
 * the session's durable inbox with a client message id (client/surface
 * `admitPrompt`, exactly as `zuno run` admits one), and answered when the
 * session's pump has sent its turn's end and every update before it. A
 * second prompt while one runs is admitted too — the inbox queues it (or
 * steers it into the running turn) — and answers at the end of the turn that
 * carried it. The first prompt of a session from `session/new` records and
 * starts the session (listed by `zuno session list`).
 */
import { RequestError, type AgentContext, type PromptRequest, type PromptResponse } from '@agentclientprotocol/sdk';
import type { Script } from '../../local-provider/script.js';
import { describeSessionRun } from '../session-start.js';
import { admitPrompt, type AdmittedPrompt, type PromptRequest as SurfacePrompt } from '../surface/index.js';
import { promptEndError } from './errors.js';
import { clientMessageIdOf, promptText } from './prompt-text.js';
import { SessionPump } from './session-pump.js';
import type { SurfaceHost } from '../surface/index.js';

/** What `zuno acp` was started with (its options apply to the sessions it creates). */
export interface AcpOptions {
  /** A scripted model for new sessions (each new session stores its own instance). */
  script?: Script;
  /** `provider/model` for new sessions (default: the workspace's zuno.json `model`). */
  model?: string;
  /** The primary role of new sessions (default build). */
  agent?: string;
  /** A zuno.json path instead of `<workspace>/zuno.json`. */
  config?: string;
}

/** One session active on this connection. */
export interface AcpSession {
  sessionId: string;
  /** The session's workspace (the client's cwd at `session/new`, the stored one after `session/load`). */
  workspace: string;
  pump: SessionPump | null;
}

/**
 * The model part of a prompt's admission: a new session gets `--script` or
 * `--model`; a closed session that ran on a scripted model gets them again
 * (its model ended with its run); any other session keeps its own.
 */
async function modelPart(
  host: SurfaceHost,
  opts: AcpOptions,
  s: AcpSession,
): Promise<Pick<SurfacePrompt, 'workspace' | 'agent' | 'model' | 'script' | 'config'>> {
  const existing = await host.store.getSession(s.sessionId);
  const config = opts.config !== undefined ? { config: opts.config } : {};
  const model = opts.script ? { script: opts.script } : opts.model !== undefined ? { model: opts.model } : {};
  if (!existing) return { workspace: s.workspace, ...(opts.agent ? { agent: opts.agent } : {}), ...model, ...config };
  if (existing.provider !== 'local') return config;
  const run = await describeSessionRun(host.temporal.client, s.sessionId);
  return run?.status === 'RUNNING' ? config : { ...model, ...config };
}

/**
 * Admits and follows one prompt; resolves with its stop reason: `end_turn`
 * (completed), `cancelled` (interrupted, or the run closed without it).
 * @throws RequestError -32005 (paused at a gate, SF9), -32011 (failed or
 *   blocked), or the admission's refusal (client/acp/errors.ts maps it).
 */
export async function runPrompt(
  host: SurfaceHost,
  client: AgentContext,
  opts: AcpOptions,
  s: AcpSession,
  req: PromptRequest,
): Promise<PromptResponse> {
  const text = promptText(req.prompt);
  const admitted: AdmittedPrompt = await admitPrompt(host, {
    sessionId: s.sessionId,
    text,
    clientMessageId: clientMessageIdOf(req),
    ...(await modelPart(host, opts, s)),
  });
  if (!s.pump || s.pump.stopped) {
    const from = s.pump ? Math.min(s.pump.position, admitted.after) : admitted.after;
    s.pump = new SessionPump(host, client, { sessionId: s.sessionId, workspace: s.workspace }, from);
    s.pump.start();
  }
  const end = await s.pump.waitFor(admitted);
  const err = promptEndError(end, admitted.receipt);
  if (err) throw err;
  return { stopReason: end.status === 'completed' ? 'end_turn' : 'cancelled' };
}

/** The error a prompt for a session not active on this connection gets (-32002, `data.sessionId`). */
export function unknownSession(sessionId: string): RequestError {
  return RequestError.sessionNotFound(sessionId);
}
