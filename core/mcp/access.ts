/**
 * MC4: the MCP ceiling of a session. A role that may change the workspace
 * (its allowlist holds a change tool such as `shell` or `write`) may call
 * every permitted MCP tool; any other role only the MCP tools classified
 * ReadOnly. A child is bounded by its parent's ceiling and its own role's,
 * so a delegation never widens the MCP surface. Deterministic.
 */
import type { McpSessionConfig, McpToolFacts } from './types.js';

/** Tools whose presence in a role's allowlist means the role may change things. */
const CHANGE_MARKERS = ['shell', 'write', 'apply_patch'];

/** The MCP access of a role with allowlist `roleTools`, within `parent`'s access when there is a parent. */
export function mcpAccessFor(
  roleTools: readonly string[],
  parent?: McpSessionConfig['access'],
): McpSessionConfig['access'] {
  const own = roleTools.some((t) => CHANGE_MARKERS.includes(t)) ? 'all' : 'read_only';
  return parent === 'read_only' ? 'read_only' : own;
}

/** true when a session with `access` may see and call a tool with these facts. */
export function mcpToolAllowed(access: McpSessionConfig['access'], facts: Pick<McpToolFacts, 'effect'>): boolean {
  return access === 'all' || facts.effect === 'ReadOnly';
}
