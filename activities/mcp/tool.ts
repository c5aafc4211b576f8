/**
 * The implementation a `tool_mcp` activity runs for one MCP call (issue 30
 * item 3): declared from the call's facts (core/mcp/declaration.ts), run
 * through the shared wrapper (arguments must be a JSON object; TD9 caps on
 * the output), its body calling the server through `ctx.mcp` with progress
 * reaching `ctx.onProgress` (heartbeat details), its answer converted by
 * ./result.ts. Why a call produced no answer becomes a typed result:
 *
 * | McpCallError  | result                                                          |
 * | ------------- | --------------------------------------------------------------- |
 * | `disconnected`| error `mcp_disconnected` (nothing was sent; the next call reconnects) |
 * | `lost`, Never | `uncertain`, `mcp_lost_outcome` (never re-run, MC9)             |
 * | `lost`, Safe  | a retryable activity failure: Temporal runs the call again      |
 * | `unavailable` | error `mcp_tool_unavailable`                                    |
 * | `failed`      | error `mcp_call_failed` (the server's own message)              |
 *
 * A `lost` Safe call whose activity was cancelled is `uncertain` too: no
 * attempt follows a cancellation.
 */
import { ApplicationFailure } from '@temporalio/activity';
import { mcpDeclaration } from '../../core/mcp/declaration.js';
import type { McpToolFacts } from '../../core/mcp/types.js';
import type { ToolResult } from '../../core/tools/types.js';
import { errorResult } from '../tools/common.js';
import type { ToolContext } from '../tools/context.js';
import type { ToolImplementation } from '../tools/index.js';
import type { ToolBody } from '../tools/tool-body.js';
import { runTool } from '../tools/wrapper.js';
import { mcpResult } from './result.js';
import { McpCallError, type McpProgress } from './types.js';

/**
 * Failure type of a Safe MCP call whose outcome was lost: the one failure a
 * tool body throws out of its activity (Temporal retries it); every other
 * throw of a body is a `tool_failed` result.
 */
export const MCP_RETRY_FAILURE = 'mcp_lost_outcome';

/** The implementation of the MCP tool `name` (its wire name) with `facts`. */
export function mcpToolImplementation(name: string, facts: McpToolFacts): ToolImplementation {
  const declaration = mcpDeclaration(name, facts);
  const body: ToolBody<Record<string, unknown>> = { needsMcp: true, run: (args, ctx) => runMcpCall(facts, args, ctx) };
  const { run, ...declared } = body;
  return {
    name,
    declaration: declaration as ToolImplementation['declaration'],
    description: '',
    jsonSchema: {},
    body: declared,
    run: (raw, ctx) => runTool(declaration, { run, ...declared }, raw, ctx),
  };
}

/** One progress notification as heartbeat progress (`progress 3/5: message`). */
function progressLine(p: McpProgress): string {
  const of = p.total !== undefined ? `${p.progress}/${p.total}` : `${p.progress}`;
  return `progress ${of}${p.message ? `: ${p.message}` : ''}`;
}

async function runMcpCall(facts: McpToolFacts, args: Record<string, unknown>, ctx: ToolContext): Promise<ToolResult> {
  if (!ctx.mcp) return errorResult('mcp_tool_unavailable', `This session has no MCP server ${facts.server}.`);
  try {
    const answer = await ctx.mcp.call(facts, args, (p) =>
      ctx.onProgress?.({ outputBytes: 0, lastLine: progressLine(p) }),
    );
    return await mcpResult(answer, ctx);
  } catch (err) {
    if (!(err instanceof McpCallError)) throw err;
    return callErrorResult(err, facts, ctx);
  }
}

/** The typed result of a call that got no answer (see module doc). */
export function callErrorResult(err: McpCallError, facts: McpToolFacts, ctx: Pick<ToolContext, 'signal'>): ToolResult {
  switch (err.kind) {
    case 'disconnected':
      return errorResult(
        'mcp_disconnected',
        `${err.message}. The MCP server was not connected, so the call was not sent; the next call reconnects.`,
      );
    case 'unavailable':
      return errorResult('mcp_tool_unavailable', err.message);
    case 'failed':
      return errorResult('mcp_call_failed', err.message);
    case 'lost':
      if (facts.replay === 'Safe' && !ctx.signal?.aborted)
        throw ApplicationFailure.retryable(`${facts.server}/${facts.tool}: ${err.message}`, MCP_RETRY_FAILURE);
      return {
        output:
          `Outcome unknown: ${err.message}. The call was sent to ${facts.server} but no answer came back; ` +
          'it is not run again. Inspect the authoritative state before doing anything that depends on it.',
        isError: false,
        uncertain: true,
        errorCode: 'mcp_lost_outcome',
      };
  }
}
