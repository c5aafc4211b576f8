/**
 * Declaration of `tool_search` (MC2, MC3, MC6; TD3 Safe set): searches the
 * compact metadata of the session's deferred MCP tools (server, name, title,
 * a bounded description) and exposes the matches' exact schemas from the
 * next model step. Its successful results are the session's durable
 * exposure ledger (`mcp.tools.exposed` events). ReadOnly, Safe,
 * ParallelSafe. Offered only while some MCP schemas are deferred (TD12).
 * Argument and result shape: MC10 SEED-GAP, decided in docs/mcp.md.
 * Deterministic.
 */
import { z } from 'zod';
import { summaryLine } from './summary.js';
import type { ToolDeclaration } from './types.js';

/** Most matches one call returns (and exposes). */
export const TOOL_SEARCH_MAX_LIMIT = 20;
/** Matches returned when `limit` is absent. */
export const TOOL_SEARCH_DEFAULT_LIMIT = 5;

/** Arguments of `tool_search`. */
export const toolSearchArgs = z.strictObject({
  query: z
    .string()
    .min(1)
    .max(200)
    .describe('Words describing the capability you need (e.g. "create issue", "list files"), or an exact tool name.'),
  limit: z
    .number()
    .int()
    .min(1)
    .max(TOOL_SEARCH_MAX_LIMIT)
    .optional()
    .describe(`Most tools to return and expose (default ${TOOL_SEARCH_DEFAULT_LIMIT}).`),
});
export type ToolSearchArgs = z.infer<typeof toolSearchArgs>;

/** `tool_search` (see module doc). */
export const toolSearchDeclaration: ToolDeclaration<ToolSearchArgs> = {
  name: 'tool_search',
  effect: 'ReadOnly',
  replay: 'Safe',
  concurrency: 'ParallelSafe',
  args: toolSearchArgs,
  summarize: (a) => summaryLine(`tool_search: ${a.query}`),
};
