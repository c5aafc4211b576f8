/**
 * MC1, MC4, MC9: whether a session may see an MCP tool at all — within its
 * MCP ceiling (access.ts) and not denied as a whole by a permission rule
 * (`"mcp__everything__*": "deny"` hides every tool of that server; a denied
 * tool is neither offered nor found by `tool_search`, and a call of it by
 * name is still refused by the permission gate). Deterministic.
 */
import { lastMatchingRule } from '../permission/rules.js';
import type { PermissionPolicy } from '../permission/types.js';
import { mcpToolAllowed } from './access.js';
import type { McpSessionConfig, McpToolFacts } from './types.js';

/** true when the tool whose wire name is `name` is visible to a session with this ceiling and policy. */
export function mcpToolVisible(
  name: string,
  facts: Pick<McpToolFacts, 'effect'>,
  access: McpSessionConfig['access'],
  policy: PermissionPolicy | undefined,
): boolean {
  if (!mcpToolAllowed(access, facts)) return false;
  if (!policy) return true;
  const whole = lastMatchingRule(
    policy.rules.filter((r) => r.pattern === undefined),
    name,
    '',
    false,
  );
  return whole?.action !== 'deny';
}
