/**
 * The session's MCP catalog as the hub returns it (MC7, MC9): every
 * connected server's listed tools, in config order, with wire names assigned
 * over the whole session catalog (core/mcp/naming.ts; built-in tool names
 * are taken) and TD1 facts from their annotations (core/mcp/classify.ts).
 */
import { classifyMcpTool } from '../../core/mcp/classify.js';
import { assignWireNames } from '../../core/mcp/naming.js';
import type { ListedTool } from './connection.js';
import type { McpServerStatus } from './types.js';

/** A server's status with its tools as listed (server-side names), before naming. */
export type ListedStatus = Omit<McpServerStatus, 'tools'> & { listed: ListedTool[]; trust: 'trust' | 'ignore' };

/**
 * Names and classifies the listed tools of `statuses`.
 * @param taken names no MCP tool may take (the built-in tools').
 */
export function catalogTools(statuses: readonly ListedStatus[], taken: ReadonlySet<string>): McpServerStatus[] {
  const flat = statuses.flatMap((s) => s.listed.map((t) => ({ server: s.name, tool: t.name })));
  const names = assignWireNames(flat, taken);
  let i = 0;
  return statuses.map(({ listed, trust, ...status }) => ({
    ...status,
    tools: listed.map((t) => ({
      name: names[i++]!,
      server: status.name,
      tool: t.name,
      ...(t.title ? { title: t.title } : {}),
      description: t.description,
      inputSchema: t.inputSchema,
      ...(t.annotations ? { annotations: t.annotations } : {}),
      facts: classifyMcpTool(status.name, t.name, t.annotations, trust),
    })),
  }));
}
