/**
 * MC1–MC3, MC6: which permitted MCP tools a request shows with their full
 * schemas ("direct") and which only `tool_search` finds ("deferred").
 *
 * - `eager` servers: every tool direct; `deferred` servers: every tool
 *   deferred; `auto` servers, in config order: the whole server direct when
 *   it fits in what is left of the budget (tools and bytes), else deferred
 *   (MC10 decision: a server is shown whole or not at all, so the model
 *   never sees half a server).
 * - A deferred tool named in the exposure ledger (earlier `tool_search`
 *   matches, MC3) is direct.
 * - MC6: when `tool_search` cannot be offered (disabled, denied, outside the
 *   role), every tool is direct: none hides behind an unreachable entry.
 *
 * The caller passes only the tools that are connected and permitted (MC1:
 * exposure is resolved after the permission and allowlist filters), so a
 * ledger entry for a removed or denied tool exposes nothing. Deterministic.
 */
import type { McpBudget, McpExposure } from './types.js';

/** One permitted tool of a connected server, as exposure weighs it. */
export interface ExposureTool {
  /** Wire name (`mcp__server__tool`). */
  name: string;
  /** Bytes of its description and JSON Schema as sent. */
  bytes: number;
}

/** The decision: wire names shown with their schemas, and those only `tool_search` finds. */
export interface Exposure {
  direct: string[];
  deferred: string[];
}

/**
 * Decides the exposure of one request.
 * @param servers connected servers in config order, each with its policy and permitted tools.
 * @param budget the `auto` budget.
 * @param toolSearch whether `tool_search` can be offered in this session (MC6).
 * @param ledger wire names earlier `tool_search` calls exposed (MC3).
 */
export function decideExposure(
  servers: readonly { exposure: McpExposure; tools: readonly ExposureTool[] }[],
  budget: McpBudget,
  toolSearch: boolean,
  ledger: ReadonlySet<string>,
): Exposure {
  const direct: string[] = [];
  const deferred: string[] = [];
  let tools = budget.tools;
  let bytes = budget.bytes;
  for (const server of servers) {
    const names = server.tools.map((t) => t.name);
    const size = server.tools.reduce((n, t) => n + t.bytes, 0);
    let show = !toolSearch || server.exposure === 'eager';
    if (!show && server.exposure === 'auto' && names.length <= tools && size <= bytes) {
      show = true;
      tools -= names.length;
      bytes -= size;
    }
    if (show) direct.push(...names);
    else
      for (const name of names) {
        if (ledger.has(name)) direct.push(name);
        else deferred.push(name);
      }
  }
  return { direct, deferred };
}
