/**
 * MC9: the TD1 facts of an MCP tool from its annotations (issue 30 item 3).
 *
 * | annotations                                   | effect        | replay | concurrency  |
 * | --------------------------------------------- | ------------- | ------ | ------------ |
 * | `readOnlyHint: true`                          | ReadOnly      | Safe   | ParallelSafe |
 * | not read-only, `idempotentHint: true`         | SideEffecting | Safe   | Exclusive    |
 * | anything else, none at all, or `ignore`d      | SideEffecting | Never  | Exclusive    |
 *
 * `openWorldHint` does not demote a read-only tool: a read of the open world
 * changes nothing there, and what it returns may differ between attempts as
 * any read's may (decision recorded in docs/mcp.md). `destructiveHint` only
 * matters for a tool that is not read-only, which is already the strictest
 * class unless idempotent. Deterministic.
 */
import type { McpAnnotations, McpToolFacts } from './types.js';

/**
 * The facts of tool `tool` of server `server`.
 * @param annotations the tool's `annotations` as the server listed them (absent: none).
 * @param trust `ignore` makes every tool SideEffecting, Exclusive, Never (per-server config).
 */
export function classifyMcpTool(
  server: string,
  tool: string,
  annotations: McpAnnotations | undefined,
  trust: 'trust' | 'ignore',
): McpToolFacts {
  const a = trust === 'trust' ? (annotations ?? {}) : {};
  if (a.readOnlyHint === true) return { server, tool, effect: 'ReadOnly', replay: 'Safe', concurrency: 'ParallelSafe' };
  if (a.idempotentHint === true)
    return { server, tool, effect: 'SideEffecting', replay: 'Safe', concurrency: 'Exclusive' };
  return { server, tool, effect: 'SideEffecting', replay: 'Never', concurrency: 'Exclusive' };
}
