/**
 * The McpPort one tool call reaches the session's MCP servers through
 * (activities/infra/ports.ts; ToolContext.mcp for bodies that declare
 * `needsMcp`): `searchable()` from ./session-catalog.ts, `expose()` writes the
 * call's `mcp.tools.exposed` event (MC3, the durable ledger), `call()` is the
 * hub's under the call's cancellation signal. The ledger's revision is the
 * number of exposure events up to and including this call's.
 */
import { EV, parseEventData } from '../../core/events.js';
import type { PermissionPolicy } from '../../core/permission/types.js';
import type { McpPort, McpSearchEntry } from '../infra/ports.js';
import type { ProjectionStore } from '../projection/types.js';
import { sessionMcpCatalog } from './session-catalog.js';
import type { McpHub, McpSessionRef } from './types.js';

/** Longest description summary `tool_search` sees (MC2 compact metadata), in characters. */
const SUMMARY_CHARS = 240;

/** A description cut to one bounded summary line. */
function summaryOf(description: string): string {
  const flat = description.replace(/\s+/g, ' ').trim();
  return flat.length <= SUMMARY_CHARS ? flat : `${flat.slice(0, SUMMARY_CHARS - 1)}…`;
}

/**
 * The port of tool call `at.rowId`/`at.callId` of `at.sessionId`.
 * @param at.policy the session's permission policy (absent: only the MC4 ceiling filters).
 */
export function mcpPort(
  hub: McpHub,
  ref: McpSessionRef,
  store: ProjectionStore,
  at: {
    sessionId: string;
    rowId: string;
    callId: string;
    /** The calling tool's name (the event's `tool`). */
    tool: string;
    policy?: PermissionPolicy;
    /** The call's cancellation (the activity's), for MCP calls. */
    signal?: AbortSignal;
  },
): McpPort {
  return {
    async searchable(): Promise<McpSearchEntry[]> {
      const cat = await sessionMcpCatalog(hub, ref, store, at.policy, true);
      return cat.tools.map((t) => ({
        name: t.name,
        server: t.server,
        tool: t.tool,
        ...(t.title ? { title: t.title } : {}),
        summary: summaryOf(t.description),
        facts: t.facts,
        deferred: cat.deferred.has(t.name),
      }));
    },
    expose: (query, tools) =>
      store.transaction(at.sessionId, async (tx) => {
        const id = `${at.rowId}:exposed`;
        const rows = await tx.eventsOfType(at.sessionId, EV.mcpToolsExposed);
        const mine = rows.find((r) => r.id === id);
        const recorded = mine ? parseEventData(EV.mcpToolsExposed, mine.data) : null;
        if (recorded) return recorded.revision;
        const revision = rows.filter((r) => parseEventData(EV.mcpToolsExposed, r.data)).length + 1;
        await tx.appendEvent({
          id,
          sessionId: at.sessionId,
          type: EV.mcpToolsExposed,
          data: {
            rowId: at.rowId,
            callId: at.callId,
            tool: at.tool,
            query,
            tools: tools.map((t) => ({ name: t.name, server: t.server, tool: t.tool })),
            revision,
          },
          atMs: Date.now(),
        });
        return revision;
      }),
    call: (facts, args, onProgress) =>
      hub.call(ref, facts, args, {
        ...(at.signal ? { signal: at.signal } : {}),
        ...(onProgress ? { onProgress } : {}),
      }),
  };
}
