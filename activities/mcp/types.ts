/**
 * The MCP client side of a worker (issue 30 item 2): the hub that owns every
 * MCP connection of the sessions this process serves, and the port one tool
 * call reaches it through. Interfaces only; activities/mcp/hub.ts is the
 * implementation on `@modelcontextprotocol/sdk`.
 */
import type { McpAnnotations, McpServerSpec, McpSessionConfig, McpToolFacts } from '../../core/mcp/types.js';

/** One tool of a connected server, as the catalog lists it. */
export interface McpCatalogTool {
  /** Wire name, `mcp__<server>__<tool>`, collision-safe within the session's catalog (core/mcp/naming.ts). */
  name: string;
  server: string;
  /** The tool's own name on its server (MC7). */
  tool: string;
  title?: string;
  description: string;
  /** The tool's `inputSchema` as the server listed it (JSON Schema, `type: object`). */
  inputSchema: Record<string, unknown>;
  annotations?: McpAnnotations;
  /** TD1 facts from the annotations (core/mcp/classify.ts). */
  facts: McpToolFacts;
}

/** How one configured server stands for a session. */
export interface McpServerStatus {
  name: string;
  /** `connected`: tools listed; `failed`: could not start/connect/list (see `error`); `closed`: disconnected since. */
  status: 'connected' | 'failed' | 'closed';
  /** The server's own error (stderr tail, HTTP status, protocol error), shortened; for `failed`/`closed`. */
  error?: string;
  /** Monotonic catalog revision in this session: 1 at the first listing, +1 per `tools/list_changed`. */
  revision: number;
  tools: McpCatalogTool[];
}

/** Progress of a running MCP call (`notifications/progress`), for heartbeats. */
export interface McpProgress {
  progress: number;
  total?: number;
  message?: string;
}

/** A `tools/call` answer, as the server sent it (content blocks untouched). */
export interface McpCallAnswer {
  content: Array<Record<string, unknown>>;
  structuredContent?: Record<string, unknown>;
  isError: boolean;
}

/**
 * Why a call produced no answer: `disconnected` — not connected when the call
 * was made, nothing sent; `lost` — sent, then the connection dropped or the
 * request timed out (outcome unknown); `unavailable` — the tool or server is
 * not in the catalog; `failed` — the server answered a JSON-RPC error.
 */
export class McpCallError extends Error {
  constructor(
    readonly kind: 'disconnected' | 'lost' | 'unavailable' | 'failed',
    message: string,
  ) {
    super(message);
    this.name = 'McpCallError';
  }
}

/** Where the hub's connections of one session are: its id, workspace (stdio cwd default, MCP roots) and config. */
export interface McpSessionRef {
  sessionId: string;
  workspace: string;
  config: McpSessionConfig;
}

/**
 * Every MCP connection of this worker process, keyed by (session, server):
 * an external process is never shared across sessions (MC1). Connections
 * open lazily, at most `config.connections` requests of a session in flight;
 * a dead one is dropped and the next use reconnects.
 */
export interface McpHub {
  /**
   * The session's servers, connecting those not connected yet (in parallel
   * within the session's limit); a server that cannot connect is `failed`
   * with its error, never a throw. A `tools/list_changed` since the last
   * listing is applied here (the catalog refreshes at the next step).
   */
  catalog(ref: McpSessionRef): Promise<McpServerStatus[]>;
  /**
   * One `tools/call` of `facts.tool` on `facts.server` with the server's
   * `callTimeoutMs`; progress notifications reach `onProgress`.
   * @throws McpCallError (see its kinds); never retries by itself.
   */
  call(
    ref: McpSessionRef,
    facts: Pick<McpToolFacts, 'server' | 'tool'>,
    args: Record<string, unknown>,
    opts: { signal?: AbortSignal; onProgress?: (p: McpProgress) => void },
  ): Promise<McpCallAnswer>;
  /** Closes the session's connections (its stdio servers exit). */
  closeSession(sessionId: string): Promise<void>;
  /** Closes every connection (worker shutdown). */
  closeAll(): Promise<void>;
}

/** One server's spec, re-exported for the hub's parts. */
export type { McpServerSpec };
