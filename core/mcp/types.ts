/**
 * MCP servers as tool sources (issue 30, MC1–MC10): what a session carries
 * of its MCP configuration, and the facts of one MCP tool the workflow needs
 * to dispatch a call. Deterministic: plain data.
 *
 * SEED-GAP decisions (MC10), written down in docs/mcp.md:
 * - config: zuno.json `mcp.servers.<name>` (stdio `command`/`args`/`env`/`cwd`
 *   or streamable HTTP `url`/`headers`), resolved at session start into
 *   {@link McpSessionConfig}; `env` and `headers` values are templates whose
 *   `${NAME}` references are read from the worker's environment (and the
 *   home's credentials file) when the connection opens, so a secret never
 *   reaches workflow history.
 * - identity: one connection per (session, server); never shared.
 */
import type { ReplayPolicy, ToolConcurrency, ToolEffect } from '../tools/types.js';

/** MC1 exposure policy of a server's tools (`auto`: direct within the budget, else deferred). */
export type McpExposure = 'auto' | 'eager' | 'deferred';

/** How a server is reached. `env`/`headers` values are `${NAME}` templates (see module doc). */
export type McpTransportSpec =
  | { kind: 'stdio'; command: string; args: string[]; env: Record<string, string>; cwd?: string }
  | { kind: 'http'; url: string; headers: Record<string, string> };

/** One configured MCP server, as frozen into a session's meta. */
export interface McpServerSpec {
  /** The config key (`mcp.servers.<name>`): the tool names' middle part and the rule keys' (`mcp__<name>__*`). */
  name: string;
  transport: McpTransportSpec;
  /** Longest the connection (spawn or HTTP handshake, `initialize`, first `tools/list`) may take, in ms. */
  startupTimeoutMs: number;
  /** Longest one `tools/call` may take, in ms; past it the call's outcome is lost (MC9 `lost_outcome`). */
  callTimeoutMs: number;
  exposure: McpExposure;
  /** `trust`: classify by the tool annotations (MC9); `ignore`: every tool SideEffecting, Exclusive, Never. */
  annotations: 'trust' | 'ignore';
  /**
   * Offer the session's workspace as the server's one MCP root (`roots/list`).
   * Off by default: a server that takes its client's roots as its boundary
   * (server-filesystem) would drop the directories it was configured with
   * for the whole workspace — a root is a grant, given only when asked for.
   */
  roots: boolean;
}

/** Budgets of the `auto` exposure (MC10 SEED-GAP): what a session shows directly before it defers. */
export interface McpBudget {
  /** Most MCP tools shown directly, over every `auto` server (in config order). */
  tools: number;
  /** Most bytes of MCP tool JSON Schemas + descriptions shown directly, over every `auto` server. */
  bytes: number;
}

/**
 * A session's MCP configuration (SessionMeta `mcp`), resolved from zuno.json
 * at session start; children inherit it narrowed ({@link McpSessionConfig.access}).
 */
export interface McpSessionConfig {
  /** Enabled servers, in config order. */
  servers: McpServerSpec[];
  /** MC6: `tool_search` offered when some schemas are deferred; false: every permitted schema stays visible. */
  toolSearch: boolean;
  budget: McpBudget;
  /** TD6/MC9 `concurrency.mcp_connections` (1..64, default 8): a session's MCP requests in flight at once. */
  connections: number;
  /**
   * MC4 ceiling: `all` — every permitted MCP tool; `read_only` — only the
   * tools classified ReadOnly (a role without change tools, and its children).
   */
  access: 'all' | 'read_only';
}

/**
 * What the workflow knows of a call of an MCP tool (PlannedToolCall `mcp`),
 * set by modelStep from the catalog it offered: the original server and tool
 * names (MC7: the wire name is never split back apart) and the TD1 facts
 * from the annotations (MC9).
 */
export interface McpToolFacts {
  server: string;
  tool: string;
  effect: Extract<ToolEffect, 'ReadOnly' | 'SideEffecting'>;
  replay: ReplayPolicy;
  concurrency: Extract<ToolConcurrency, 'ParallelSafe' | 'Exclusive'>;
}

/** The MCP tool annotations Zuno reads (MCP 2025-06-18 `ToolAnnotations`); every hint is untrusted. */
export interface McpAnnotations {
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/** Default `auto` budget: 40 tools, 48 KiB of schemas and descriptions (docs/mcp.md). */
export const DEFAULT_MCP_BUDGET: McpBudget = { tools: 40, bytes: 48 * 1024 };
/** Default MCP request concurrency of a session (TD6 `concurrency.mcp_connections`). */
export const DEFAULT_MCP_CONNECTIONS = 8;
/** Default startup limit of one MCP connection, in ms. */
export const DEFAULT_MCP_STARTUP_MS = 30_000;
/** Default limit of one MCP `tools/call`, in ms. */
export const DEFAULT_MCP_CALL_MS = 120_000;
