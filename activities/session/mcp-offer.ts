/**
 * What one model step offers and accepts of the session's MCP servers
 * (issue 30; MC1–MC3, MC6): the catalog of the connected servers (the
 * worker's hub connects them lazily), narrowed to the visible tools (the
 * session's MCP ceiling and whole-tool permission rules, core/mcp/visibility.ts),
 * split into direct and deferred tools (core/mcp/exposure.ts) with the
 * durable exposure ledger read back first (MC3: restored before the
 * request, intersected with what is connected and permitted). Direct tools
 * are sent with their exact schemas; every visible tool stays callable
 * (MC2); `tool_search` is offered only while something is deferred and the
 * session may use it (MC6: otherwise nothing is deferred).
 */
import { EV, parseEventData } from '../../core/events.js';
import { sha256Hex } from '../../core/sha256.js';
import type { ToolSpec } from '../../core/messages.js';
import { lastMatchingRule } from '../../core/permission/rules.js';
import type { SessionMeta } from '../../core/session/meta.js';
import type { ProjectionStore, ProjectionWrite } from '../projection/types.js';
import type { McpCatalogTool, McpHub, McpServerStatus } from '../mcp/types.js';
import { wireSchema } from '../mcp/validate-args.js';
import { sessionMcpCatalog } from '../mcp/session-catalog.js';
import { errorLine, MCP_SEGMENT_ID, renderMcpSegment } from '../../core/mcp/segment.js';

/** One step's MCP offer. */
export interface StepMcp {
  /** Specs of the direct tools, in catalog order. */
  specs: ToolSpec[];
  /** Every visible tool by wire name (direct and deferred): what a call may name. */
  tools: ReadonlyMap<string, McpCatalogTool>;
  /** Whether `tool_search` is offered in this step. */
  searchOffered: boolean;
  /** The search tool's name (what the segment tells the model to call). */
  searchName: string;
  /** Wire names shown with their schemas. */
  direct: ReadonlySet<string>;
  servers: McpServerStatus[];
}

/** Most characters of a tool description sent to the model. */
const DESCRIPTION_MAX = 2_000;

/** The provider-facing spec of an MCP tool: its title and description (bounded), its schema. */
export function mcpToolSpec(tool: McpCatalogTool): ToolSpec {
  const text =
    tool.title && !tool.description.startsWith(tool.title) ? `${tool.title}. ${tool.description}` : tool.description;
  const description = `${text.slice(0, DESCRIPTION_MAX)} (MCP server ${tool.server})`.trim();
  return { name: tool.name, description, parameters: wireSchema(tool) };
}

/** Whether the session may use `tool_search` at all: its role's catalog holds it and no whole-tool rule denies it (MC6). */
function searchAllowed(meta: SessionMeta, catalog: readonly string[], searchName: string): boolean {
  if (!catalog.includes(searchName)) return false;
  const rules = meta.permission?.rules.filter((r) => r.pattern === undefined) ?? [];
  return lastMatchingRule(rules, searchName, '', false)?.action !== 'deny';
}

/**
 * The step's MCP offer, or undefined for a session without MCP servers.
 * @param catalog the session's built-in tool catalog (its role's allowlist).
 * @param searchName the name of the search tool (declared elsewhere; never spelled here).
 */
export async function stepMcp(
  hub: McpHub,
  store: ProjectionStore,
  meta: SessionMeta,
  catalog: readonly string[],
  searchName: string,
): Promise<StepMcp | undefined> {
  const config = meta.mcp;
  if (!config) return undefined;
  const ref = { sessionId: meta.sessionId, workspace: meta.workspace, config };
  const allowed = searchAllowed(meta, catalog, searchName);
  const c = await sessionMcpCatalog(hub, ref, store, meta.permission, allowed);
  return {
    specs: c.tools.filter((t) => c.direct.has(t.name)).map(mcpToolSpec),
    tools: new Map(c.tools.map((t) => [t.name, t])),
    searchOffered: allowed && config.toolSearch && c.deferred.size > 0,
    searchName,
    direct: c.direct,
    servers: c.servers,
  };
}

/** The digest of a server's tool set: its sorted wire names. */
function toolsDigest(s: McpServerStatus): string {
  return sha256Hex(
    s.tools
      .map((t) => t.name)
      .sort()
      .join('\n'),
  ).slice(0, 16);
}

/** What changed for a server since its last record (none: nothing worth a record). */
function changeOf(
  s: McpServerStatus,
  last: { status: string; digest?: string } | undefined,
  digest: string,
): 'connected' | 'reconnected' | 'tools_changed' | 'failed' | 'closed' | undefined {
  if (!last) return s.status;
  if (last.status !== s.status) return s.status === 'connected' ? 'reconnected' : s.status;
  if (s.status === 'connected' && last.digest !== digest) return 'tools_changed';
  return undefined;
}

/**
 * `mcp.server.state` events for the servers whose status or tool set
 * differs from the session's last record of them: a server connecting,
 * failing, closing, coming back or changing what it offers shows once in
 * the session's record (`zuno run`, `zuno session show`, SSE) — not at every
 * step, nor when a re-listing (a list change, a reconnect) found the same
 * tools. Each record carries the catalog revision and what changed.
 */
export async function mcpStateWrites(
  store: ProjectionStore,
  sessionId: string,
  servers: readonly McpServerStatus[],
  atMs: number,
): Promise<ProjectionWrite[]> {
  const last = new Map<string, { status: string; digest?: string }>();
  for (const row of await store.eventsOfType(sessionId, EV.mcpServerState)) {
    const d = parseEventData(EV.mcpServerState, row.data);
    if (d) last.set(d.server, { status: d.status, ...(d.digest ? { digest: d.digest } : {}) });
  }
  return servers.flatMap((s) => {
    const digest = toolsDigest(s);
    const change = changeOf(s, last.get(s.name), digest);
    if (!change) return [];
    const data = {
      server: s.name,
      status: s.status,
      revision: s.revision,
      tools: s.tools.length,
      change,
      digest,
      ...(s.error ? { error: s.error.slice(0, 2_000) } : {}),
    };
    const id = `mcp:${s.name}:${s.status}:${s.revision}:${atMs}`;
    return [{ kind: 'event' as const, event: { id, sessionId, type: EV.mcpServerState, data, atMs } }];
  });
}

/** The step's `runtime.mcp` segment (MC8), or none when no server is configured. */
export function mcpSegment(mcp: StepMcp): { segment: string; text: string }[] {
  const servers = mcp.servers.map((s) => {
    const visible = s.tools.filter((t) => mcp.tools.has(t.name));
    const shown = visible.filter((t) => mcp.direct.has(t.name)).length;
    return {
      name: s.name,
      status: s.status,
      shown,
      deferred: visible.length - shown,
      ...(s.error ? { error: s.error } : {}),
    };
  });
  const text = renderMcpSegment(servers, mcp.searchOffered ? mcp.searchName : undefined);
  return text ? [{ segment: MCP_SEGMENT_ID, text }] : [];
}

/**
 * Why a call naming an MCP-looking tool the step did not offer is refused,
 * when the step knows: a tool of a connected server the session may not see
 * (`denied`: its role may call only read-only MCP tools, or a rule denies
 * it), or a tool of a server that is not connected (`unavailable`, with the
 * server's error). Undefined when the name is simply unknown.
 */
export function refusedMcpCall(
  mcp: StepMcp,
  name: string,
  access: 'all' | 'read_only',
): { category: 'denied' | 'unavailable'; message: string } | undefined {
  for (const s of mcp.servers) {
    const hidden = s.tools.find((t) => t.name === name);
    if (hidden && !mcp.tools.has(name)) {
      const why =
        access === 'read_only' && hidden.facts.effect !== 'ReadOnly'
          ? 'this session may call only read-only MCP tools'
          : 'a permission rule denies it';
      return { category: 'denied', message: `Tool "${name}" may not be called in this session: ${why}.` };
    }
    if (s.status !== 'connected' && name.startsWith(`mcp__${s.name}__`)) {
      const error = s.error ? ` (${errorLine(s.error)})` : '';
      return {
        category: 'unavailable',
        message: `MCP server "${s.name}" is not connected${error}; its tools cannot be called now.`,
      };
    }
  }
  return undefined;
}
