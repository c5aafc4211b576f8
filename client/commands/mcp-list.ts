/**
 * `zuno mcp list [--dir D] [--config F] [--json]` (issue 30 item 1;
 * docs/mcp.md "zuno mcp list"): connects to every enabled MCP server of the
 * workspace's zuno.json from this process — as a session's worker would,
 * with this command's environment for the `${NAME}` templates — and lists
 * each configured server: `connected` with its tools, `failed` with the
 * server's own error, `configured` when disabled. No Temporal server, no
 * home: only the config and the servers.
 */
import { randomBytes } from 'node:crypto';
import { createMcpHub } from '../../activities/mcp/index.js';
import { mcpServerSpecs, sessionMcp } from '../mcp-config.js';
import { mcpListReport, renderMcpList } from '../mcp-list-view.js';
import { processSink } from '../render.js';
import type { Sink } from '../sink.js';
import { loadZunoConfig } from '../zuno-config.js';
import { resolveWorkspace } from './run-plan.js';

/** Options of `zuno mcp list`. */
export interface McpListOptions {
  /** The workspace whose zuno.json is read (stdio servers start there by default); default the current directory. */
  dir?: string;
  /** zuno.json to use instead of the workspace's. */
  config?: string;
  /** Print `{servers: [...]}` with machine names (mcp-list-view.ts McpListServer). */
  json?: boolean;
}

/**
 * Lists the configured MCP servers (see module doc). Every connection is
 * closed before it returns (stdio servers exit).
 * @returns 0, also when a server failed (the list is the report).
 * @throws ZunoError `workspace_invalid`, `config_invalid` naming the key
 *   (e.g. `mcp.servers.everything.command: …`), `config_missing`.
 */
export async function mcpListCommand(opts: McpListOptions, sink: Sink = processSink): Promise<number> {
  const workspace = resolveWorkspace(opts.dir ?? process.cwd());
  const zcfg = loadZunoConfig(workspace, opts.config);
  const specs = mcpServerSpecs(zcfg.mcp, workspace);
  const config = sessionMcp(zcfg, workspace);
  let statuses: Awaited<ReturnType<ReturnType<typeof createMcpHub>['catalog']>> = [];
  if (config) {
    const hub = createMcpHub();
    const sessionId = `mcp-list-${randomBytes(4).toString('hex')}`;
    try {
      statuses = await hub.catalog({ sessionId, workspace, config: { ...config, access: 'all' } });
    } finally {
      await hub.closeAll();
    }
  }
  const servers = mcpListReport(specs, statuses);
  sink.out(opts.json ? `${JSON.stringify({ servers }, null, 2)}\n` : renderMcpList(servers));
  return 0;
}
