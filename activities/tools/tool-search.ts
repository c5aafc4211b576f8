/**
 * `tool_search` (MC2, MC3, MC6; decisions in docs/mcp.md): finds the
 * session's MCP tools by compact metadata and exposes the matches' exact
 * schemas from the next model step. Matching: the query's words
 * (lower-cased, split on anything that is not a letter or digit) against
 * each tool's wire name, server, tool name, title and summary; an exact
 * wire or tool name finds that tool alone; ties keep catalog order. Deferred tools
 * that match are written to the durable exposure ledger; tools already
 * shown are listed as such and not recorded again.
 */
import type { ToolResult } from '../../core/tools/types.js';
import { TOOL_SEARCH_DEFAULT_LIMIT, type ToolSearchArgs } from '../../core/tools/tool-search.js';
import type { McpSearchEntry } from '../infra/ports.js';
import { errorResult } from './common.js';
import type { ToolBody } from './tool-body.js';

/** The score of an exact wire or tool name. */
const EXACT_SCORE = 1_000;

/** The query's words: lower case, split on anything that is not a letter or a digit. */
function words(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length > 0);
}

/** How well `entry` matches `query` (0: not at all). */
export function searchScore(entry: McpSearchEntry, query: string): number {
  const q = query.trim().toLowerCase();
  if (q === entry.name.toLowerCase() || q === entry.tool.toLowerCase()) return EXACT_SCORE;
  const hay = words([entry.name, entry.server, entry.tool, entry.title ?? '', entry.summary].join(' '));
  const names = new Set(words(`${entry.server} ${entry.tool} ${entry.title ?? ''}`));
  let score = 0;
  for (const w of words(query)) {
    if (names.has(w)) score += 3;
    else if (hay.some((h) => h.startsWith(w))) score += 1;
  }
  return score;
}

/** One line per match: its wire name, server, effect and summary. */
function matchLine(e: McpSearchEntry): string {
  const state = e.deferred ? 'exposed from your next step' : 'already available';
  return `- ${e.name} (server ${e.server}, ${e.facts.effect === 'ReadOnly' ? 'read-only' : 'changes things'}; ${state}): ${e.summary}`;
}

/** The `tool_search` body (see module doc). */
export const toolSearchTool: ToolBody<ToolSearchArgs> = {
  needsMcp: true,
  async run(args, ctx): Promise<ToolResult> {
    if (!ctx.mcp) return errorResult('mcp_tool_unavailable', 'tool_search: this session has no MCP servers.');
    const entries = await ctx.mcp.searchable();
    const limit = args.limit ?? TOOL_SEARCH_DEFAULT_LIMIT;
    const scored = entries.map((e, i) => ({ e, i, score: searchScore(e, args.query) }));
    // An exact tool name finds that tool alone: nothing else is exposed for the rest of the session.
    const exact = scored.filter((r) => r.score >= EXACT_SCORE);
    const ranked = (exact.length > 0 ? exact : scored.filter((r) => r.score > 0))
      .sort((a, b) => b.score - a.score || a.i - b.i)
      .slice(0, limit)
      .map((r) => r.e);
    if (ranked.length === 0) {
      const servers = [...new Set(entries.map((e) => e.server))].join(', ') || 'none connected';
      return {
        output: `No MCP tool matches "${args.query}" (servers: ${servers}). Try other words or a tool name.`,
        isError: false,
        data: { matches: 0 },
      };
    }
    const exposed = ranked.filter((e) => e.deferred);
    const revision = exposed.length > 0 ? await ctx.mcp.expose(args.query, exposed) : undefined;
    return {
      output: [`${ranked.length} MCP tool(s) match "${args.query}":`, ...ranked.map(matchLine)].join('\n'),
      isError: false,
      data: {
        matches: ranked.length,
        exposed: exposed.map((e) => e.name),
        ...(revision !== undefined ? { revision } : {}),
      },
    };
  },
};
