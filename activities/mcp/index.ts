/**
 * The public entry of `activities/mcp/` (issue 30): the worker's MCP hub and
 * its types, for the worker and the CLI (`zuno mcp list`).
 */
export { createMcpHub, IDLE_CLOSE_MS } from './hub.js';
export { McpCallError } from './types.js';
export type { McpCallAnswer, McpCatalogTool, McpHub, McpProgress, McpServerStatus, McpSessionRef } from './types.js';
