/**
 * The real MCP servers the tests run (devDependencies, written by the MCP
 * project): their entry files resolved from node_modules so a clean clone
 * works, and the McpSessionConfig a session gets for them.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { McpServerSpec, McpSessionConfig } from '../../core/mcp/types.js';
import { DEFAULT_MCP_BUDGET } from '../../core/mcp/types.js';

const require = createRequire(import.meta.url);

/** Entry file of an installed `@modelcontextprotocol/server-*` package. */
export function serverEntry(pkg: 'server-everything' | 'server-filesystem'): string {
  return join(dirname(require.resolve(`@modelcontextprotocol/${pkg}/package.json`)), 'dist', 'index.js');
}

/** server-everything over stdio as server `name` (default `everything`), with `over` applied. */
export function everythingSpec(over: Partial<McpServerSpec> = {}): McpServerSpec {
  return {
    name: 'everything',
    transport: { kind: 'stdio', command: process.execPath, args: [serverEntry('server-everything'), 'stdio'], env: {} },
    startupTimeoutMs: 30_000,
    callTimeoutMs: 60_000,
    exposure: 'auto',
    annotations: 'trust',
    ...over,
  };
}

/** A session's MCP config over `servers`, with `over` applied. */
export function mcpConfig(servers: McpServerSpec[], over: Partial<McpSessionConfig> = {}): McpSessionConfig {
  return { servers, toolSearch: true, budget: DEFAULT_MCP_BUDGET, connections: 8, access: 'all', ...over };
}
