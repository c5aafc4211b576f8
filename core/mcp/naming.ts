/**
 * MC7: the wire name of an MCP tool, `mcp__<server>__<tool>`: each part
 * normalised to the characters every provider accepts in a function name
 * (`[A-Za-z0-9_-]`, other characters become `_`), the whole at most 64
 * characters, and collision-safe within one catalog (a later tool whose name
 * collides gets a short hash of its original names). The original server
 * and tool names travel beside the wire name (McpToolFacts); a wire name is
 * never split back apart. Deterministic.
 */
import { sha256Hex } from '../sha256.js';

/** Prefix of every MCP tool's wire name (and of its permission rule keys). */
export const MCP_PREFIX = 'mcp__';
/** Longest wire name any provider accepts (OpenAI function names: 64). */
export const MAX_WIRE_NAME = 64;

/** true when `name` is spelled like an MCP tool's wire name. */
export function isMcpToolName(name: string): boolean {
  return name.startsWith(MCP_PREFIX) && name.length > MCP_PREFIX.length;
}

/** One part of a wire name: characters outside `[A-Za-z0-9_-]` become `_`, runs of `_` beyond two collapse. */
export function normalizePart(part: string): string {
  const cleaned = part.replace(/[^A-Za-z0-9_-]/g, '_').replace(/_{3,}/g, '__');
  return cleaned === '' ? '_' : cleaned;
}

/** The plain wire name of a tool (no collision handling), cut to {@link MAX_WIRE_NAME}. */
export function mcpWireName(server: string, tool: string): string {
  const name = `${MCP_PREFIX}${normalizePart(server)}__${normalizePart(tool)}`;
  return name.length <= MAX_WIRE_NAME ? name : withHash(name, server, tool);
}

function withHash(name: string, server: string, tool: string): string {
  const hash = sha256Hex(`${server}\u0000${tool}`).slice(0, 8);
  return `${name.slice(0, MAX_WIRE_NAME - hash.length - 1)}_${hash}`;
}

/**
 * Wire names of a catalog's tools, in the order given: the plain name,
 * or — when an earlier tool (or a name in `taken`, e.g. a built-in tool)
 * already holds it — the name with a hash of the original names.
 * @returns one wire name per entry, all distinct.
 */
export function assignWireNames(
  tools: readonly { server: string; tool: string }[],
  taken: ReadonlySet<string> = new Set(),
): string[] {
  const used = new Set(taken);
  return tools.map(({ server, tool }) => {
    let name = mcpWireName(server, tool);
    if (used.has(name)) name = withHash(name.slice(0, MAX_WIRE_NAME - 9), server, tool);
    used.add(name);
    return name;
  });
}
