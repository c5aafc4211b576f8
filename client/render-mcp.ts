/**
 * How `zuno run` (and the other followers of client/render.ts) show a
 * session's MCP events (issue 30): a server connecting, failing, closing or
 * changing its tool list, and the tools a `tool_search` call exposed.
 */
import { EV, type TypedEvent } from '../core/events.js';
import { plainTerminalLine } from '../core/terminal-text.js';

/** One line for an `mcp.server.state` or `mcp.tools.exposed` event. */
export function mcpLine(
  e: Extract<TypedEvent, { type: typeof EV.mcpServerState | typeof EV.mcpToolsExposed }>,
): string {
  if (e.type === EV.mcpToolsExposed) {
    return `· tool_search exposed ${e.data.tools.map((t) => t.name).join(', ')} (from the next step)`;
  }
  const d = e.data;
  const tools = `${d.tools} tool${d.tools === 1 ? '' : 's'}`;
  if (d.status === 'failed')
    return `✗ MCP server ${d.server} failed: ${plainTerminalLine(d.error ?? 'no error given')}`;
  if (d.status === 'closed')
    return `· MCP server ${d.server} disconnected${d.error ? `: ${plainTerminalLine(d.error)}` : ''}`;
  if (d.change === 'reconnected') return `· MCP server ${d.server} reconnected (${tools})`;
  // Records written before `change` existed: a later revision was a change of the tool list.
  const changed = d.change === 'tools_changed' || (d.change === undefined && d.revision > 1);
  return changed
    ? `· MCP server ${d.server} changed its tools (revision ${d.revision}, ${tools})`
    : `· MCP server ${d.server} connected (${tools})`;
}
