/**
 * The built-in tools a model request offers (DC2/DC9, GL38, TD12, issue 31):
 * the session's catalog, the Goal tools only where a Goal drives the
 * session, never the MCP-only `tool_search` (mcp-offer.ts adds it while
 * schemas are deferred), nor a tool whose condition the session does not
 * meet (`web_search` without `network.search`). One rule for modelStep and
 * `zuno prompt show` (RT8: the execution rules are generated from it).
 */
import { sessionCatalog } from '../../core/delegation/contract.js';
import type { ToolSpec } from '../../core/messages.js';
import type { SessionMeta } from '../../core/session/meta.js';

/** The tool sets the offer is made from (worker/worker.ts builds them from activities/tools). */
export interface ToolOfferSets {
  /** Every tool that may be offered (name, description, JSON Schema), in registry order. */
  toolSpecs: ToolSpec[];
  /** Tools offered only in a session a Goal drives (GL38). */
  goalOnly?: ReadonlySet<string>;
  /** Tools offered only while some MCP schemas are deferred (`tool_search`, TD12, MC2). */
  mcpOnly?: ReadonlySet<string>;
  /** Why a session is not offered a tool, for the tools offered only under a condition (`web_search`: `network.search`). */
  conditional?: ReadonlyMap<string, (meta: SessionMeta) => string | undefined>;
}

/**
 * The built-in tools `meta`'s requests offer, in registry order.
 * @param allNames every declared tool name, in registry order.
 */
export function offeredBuiltIns(meta: SessionMeta, sets: ToolOfferSets, allNames: readonly string[]): ToolSpec[] {
  const all = sets.toolSpecs.filter((t) => !sets.mcpOnly?.has(t.name) && (meta.goal || !sets.goalOnly?.has(t.name)));
  const conditional = sets.conditional;
  const usable = conditional ? all.filter((t) => !conditional.get(t.name)?.(meta)) : all;
  if (!meta.tools && !meta.agent) return usable;
  const catalog = new Set(sessionCatalog(meta, allNames));
  return usable.filter((t) => catalog.has(t.name));
}
