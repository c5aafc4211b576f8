/**
 * The ACP agent of `zuno acp` (SF4, SF9–SF13; method list and decisions in
 * docs/acp.md): `initialize`, `session/new`, `session/load`,
 * `session/prompt` and the `session/cancel` notification, on the official
 * SDK's stable v1 agent app. Sessions are ordinary Zuno sessions served by
 * the host worker service; this process only admits input, streams stored
 * events and bridges approvals and questions. Every failure of a handler is
 * a JSON-RPC error (errors.ts); unknown methods and malformed messages are
 * answered by the SDK (-32601, -32700, -32600); nothing crashes the process.
 */
import { resolve } from 'node:path';
import {
  agent,
  PROTOCOL_VERSION,
  RequestError,
  type AgentApp,
  type AgentConnection,
  type InitializeResponse,
  type LoadSessionRequest,
  type NewSessionRequest,
} from '@agentclientprotocol/sdk';
import { resolveWorkspace } from '../commands/run-plan.js';
import { checkSessionId, interruptSession, newSessionId } from '../session-start.js';
import type { SurfaceHost } from '../surface/index.js';
import { zunoVersion } from '../version.js';
import { toRequestError } from './errors.js';
import { EventMapper } from './event-updates.js';
import { replaySession } from './replay.js';
import { runPrompt, type AcpOptions, type AcpSession } from './session-prompt.js';
import { SessionPump } from './session-pump.js';

/** What `initialize` answers: protocol v1, `loadSession`, text (and embedded text) prompts; no MCP, no auth. */
export function initializeResponse(): InitializeResponse {
  return {
    protocolVersion: PROTOCOL_VERSION,
    agentCapabilities: {
      loadSession: true,
      promptCapabilities: { image: false, audio: false, embeddedContext: true },
      mcpCapabilities: { http: false, sse: false },
    },
    agentInfo: { name: 'zuno', title: 'Zuno', version: zunoVersion() },
    authMethods: [],
  };
}

/** Runs `fn`, turning any failure into its JSON-RPC error. */
async function guarded<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw toRequestError(err);
  }
}

/** The state of one connection: its sessions, its options, the host's connections. */
class AcpConnectionState {
  readonly sessions = new Map<string, AcpSession>();
  connection: AgentConnection | null = null;

  constructor(
    readonly host: SurfaceHost,
    readonly opts: AcpOptions,
  ) {}

  /** The connection's client context. @throws RequestError before the connection is open (never in practice). */
  get client() {
    if (!this.connection) throw RequestError.internalError({}, 'the connection is not open');
    return this.connection.client;
  }

  /**
   * `session/new`: a new session id working in the client's `cwd`. Nothing is
   * recorded until its first prompt (like `zuno run`). MCP servers the client
   * offers are not used (noted on stderr).
   * @throws ZunoError `workspace_invalid` (cwd not an existing directory).
   */
  newSession(params: NewSessionRequest): { sessionId: string } {
    const workspace = resolveWorkspace(resolve(params.cwd), undefined, 'cwd');
    if (params.mcpServers.length > 0) {
      this.host.notify?.(`session/new: ${params.mcpServers.length} MCP server(s) offered by the client are not used`);
    }
    const sessionId = newSessionId();
    this.sessions.set(sessionId, { sessionId, workspace, pump: null });
    return { sessionId };
  }

  /**
   * `session/load`: replays the stored session (its inputs and events as
   * `session/update`s), then streams on from there: a turn still running
   * shows its updates live and its end. The session keeps its own workspace.
   * @throws RequestError -32002 (no such session); what the store throws.
   */
  async loadSession(params: LoadSessionRequest): Promise<Record<string, never>> {
    const sessionId = checkSessionId(params.sessionId);
    const row = await this.host.store.getSession(sessionId);
    if (!row) throw RequestError.sessionNotFound(sessionId);
    await this.sessions.get(sessionId)?.pump?.stop(new RequestError(-32800, 'the session was loaded again'));
    const mapper = new EventMapper(this.host.store, sessionId, row.workspace);
    const last = await replaySession(this.host, this.client, sessionId, mapper);
    const pump = new SessionPump(this.host, this.client, { sessionId, workspace: row.workspace }, last, mapper);
    this.sessions.set(sessionId, { sessionId, workspace: row.workspace, pump });
    // Live updates follow the load's answer.
    setImmediate(() => pump.start());
    return {};
  }

  /**
   * `session/cancel`: a hard interrupt of the session's running turn (SF11,
   * TD10) — only while a prompt of this connection waits for it, so a
   * cancel never arms against a later turn. Failures go to stderr (a
   * notification has no answer).
   */
  async cancel(sessionId: string): Promise<void> {
    const s = this.sessions.get(sessionId);
    if (!s?.pump || s.pump.waiting === 0) return;
    try {
      await interruptSession(this.host.temporal.client, sessionId, 'acp:session/cancel');
    } catch (err) {
      this.host.notify?.(`session/cancel ${sessionId}: ${(err as Error).message}`);
    }
  }

  /** `$/cancel_request` of a prompt: {@link cancel}, unless the connection itself closed (SF9: not a withdrawal). */
  cancelRequested(sessionId: string): void {
    if (this.connection?.signal.aborted !== false) return;
    void this.cancel(sessionId);
  }

  /** Stops every pump (the connection closed); the sessions' work goes on (SF9). */
  async closeAll(): Promise<void> {
    for (const s of this.sessions.values()) await s.pump?.stop();
  }
}

/**
 * The agent app of one `zuno acp` process. `closed` resolves once the
 * connection closed and every pump stopped.
 */
export function acpAgent(host: SurfaceHost, opts: AcpOptions): { app: AgentApp; closed: Promise<void> } {
  const state = new AcpConnectionState(host, opts);
  let markClosed: () => void = () => undefined;
  const closed = new Promise<void>((r) => (markClosed = r));
  const app = agent({ name: 'zuno' })
    .onConnect((c) => {
      state.connection = c;
      void c.closed.then(() => state.closeAll()).then(markClosed, markClosed);
    })
    .onRequest('initialize', () => initializeResponse())
    .onRequest('session/new', ({ params }) => guarded(async () => state.newSession(params)))
    .onRequest('session/load', ({ params }) => guarded(() => state.loadSession(params)))
    .onRequest('session/prompt', ({ params, signal }) =>
      guarded(() => {
        const s = state.sessions.get(params.sessionId);
        if (!s) throw RequestError.sessionNotFound(params.sessionId);
        // `$/cancel_request` for this prompt interrupts like session/cancel (SF11); a closed connection does not (SF9).
        signal.addEventListener('abort', () => setImmediate(() => state.cancelRequested(params.sessionId)), {
          once: true,
        });
        return runPrompt(host, state.client, opts, s, params);
      }),
    )
    .onNotification('session/cancel', ({ params }) => state.cancel(params.sessionId));
  return { app, closed };
}
