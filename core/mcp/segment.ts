/**
 * MC8: the `runtime.mcp` system segment of a session with MCP servers —
 * which servers are connected, how many of their tools are shown, which are
 * only found by `tool_search`, which failed — regenerated for every request,
 * so the model tells configured, connected and deferred apart and picks a
 * fitting MCP tool proactively. Deterministic.
 */

/** Segment id of the MCP state (SE9 provenance). */
export const MCP_SEGMENT_ID = 'runtime.mcp';

/** A server's error on one line, at most `max` characters (what the model is told). */
export function errorLine(error: string, max = 300): string {
  const flat = error.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

/** How one server stands in this request. */
export interface McpSegmentServer {
  name: string;
  status: 'connected' | 'failed' | 'closed';
  /** Tools shown with their schemas. */
  shown: number;
  /** Tools only the search tool finds. */
  deferred: number;
  error?: string;
}

/** The segment's text, or null when there is no server to speak of. `searchName`: the search tool, when offered. */
export function renderMcpSegment(servers: readonly McpSegmentServer[], searchName: string | undefined): string | null {
  if (servers.length === 0) return null;
  const lines = servers.map((s) => {
    if (s.status !== 'connected') {
      const why = s.error ? ` (${errorLine(s.error)})` : '';
      return `- ${s.name}: configured but not connected${why}; its tools are unavailable now`;
    }
    const shown = `${s.shown} tool${s.shown === 1 ? '' : 's'} shown as mcp__${s.name}__*`;
    const hidden =
      s.deferred > 0 ? `, ${s.deferred} more found only with ${searchName ?? 'a search tool you do not have'}` : '';
    return `- ${s.name}: connected, ${shown}${hidden}`;
  });
  return [
    'MCP servers connected to this session (tools from outside Zuno; prefer one when it fits the task better than improvising with shell):',
    ...lines,
    'Call only the tools you are offered or a search found. An MCP tool that changes things acts outside the workspace and may not be undoable; when its outcome is reported uncertain, check what happened before calling it again.',
  ].join('\n');
}
