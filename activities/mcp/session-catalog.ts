/**
 * What a session's MCP servers offer now (MC1–MC3, MC6): the connected
 * servers' tools within the session's ceiling and not denied as a whole
 * (core/mcp/visibility.ts), split into those shown with their schemas
 * (`direct`) and those only `tool_search` finds (`deferred`) by
 * core/mcp/exposure.ts, with the durable exposure ledger (`mcp.tools.exposed`
 * events) read from the projection. The one computation both `tool_search`
 * (./port.ts) and modelStep (what a request offers) use.
 */
import { EV, parseEvent } from '../../core/events.js';
import { decideExposure } from '../../core/mcp/exposure.js';
import { mcpToolVisible } from '../../core/mcp/visibility.js';
import type { PermissionPolicy } from '../../core/permission/types.js';
import type { ProjectionStore } from '../projection/types.js';
import type { McpCatalogTool, McpHub, McpServerStatus, McpSessionRef } from './types.js';

/** A session's MCP catalog as a request sees it. */
export interface SessionMcpCatalog {
  /** Every configured server's status (failed and closed ones too), in config order. */
  servers: McpServerStatus[];
  /** The visible tools of the connected servers, in catalog order. */
  tools: McpCatalogTool[];
  /** Wire names shown with their schemas. */
  direct: Set<string>;
  /** Wire names only `tool_search` finds. */
  deferred: Set<string>;
  /** Wire names earlier `tool_search` calls exposed (MC3), whether or not still connected. */
  ledger: Set<string>;
  /** How many exposure events the ledger holds (its revision). */
  ledgerRevision: number;
}

/** Bytes a tool's description and schema take in a request (the MC10 byte budget's measure). */
export function toolBytes(t: Pick<McpCatalogTool, 'description' | 'inputSchema'>): number {
  return Buffer.byteLength(JSON.stringify({ description: t.description, parameters: t.inputSchema }), 'utf8');
}

/** The ledger: every wire name an `mcp.tools.exposed` event of the session names, and the events' count. */
export async function exposureLedger(
  store: Pick<ProjectionStore, 'eventsOfType'>,
  sessionId: string,
): Promise<{ names: Set<string>; revision: number }> {
  const names = new Set<string>();
  let revision = 0;
  for (const row of await store.eventsOfType(sessionId, EV.mcpToolsExposed)) {
    const e = parseEvent(row);
    if (e?.type !== EV.mcpToolsExposed) continue;
    revision++;
    for (const t of e.data.tools) names.add(t.name);
  }
  return { names, revision };
}

/**
 * The session's MCP catalog (see module doc).
 * @param policy the session's permission policy (a whole-tool deny hides a tool); absent: no rules.
 * @param toolSearchOffered whether `tool_search` can be offered to this session (MC6: its role and
 *   rules allow it); `config.toolSearch` false means it cannot.
 */
export async function sessionMcpCatalog(
  hub: McpHub,
  ref: McpSessionRef,
  store: Pick<ProjectionStore, 'eventsOfType'>,
  policy: PermissionPolicy | undefined,
  toolSearchOffered: boolean,
): Promise<SessionMcpCatalog> {
  const [servers, ledger] = await Promise.all([hub.catalog(ref), exposureLedger(store, ref.sessionId)]);
  const access = ref.config.access;
  const exposureOf = new Map(ref.config.servers.map((s) => [s.name, s.exposure]));
  const visible = servers
    .filter((s) => s.status === 'connected')
    .map((s) => ({ s, tools: s.tools.filter((t) => mcpToolVisible(t.name, t.facts, access, policy)) }));
  const { direct, deferred } = decideExposure(
    visible.map(({ s, tools }) => ({
      exposure: exposureOf.get(s.name) ?? 'auto',
      tools: tools.map((t) => ({ name: t.name, bytes: toolBytes(t) })),
    })),
    ref.config.budget,
    toolSearchOffered && ref.config.toolSearch,
    ledger.names,
  );
  return {
    servers,
    tools: visible.flatMap((v) => v.tools),
    direct: new Set(direct),
    deferred: new Set(deferred),
    ledger: ledger.names,
    ledgerRevision: ledger.revision,
  };
}
