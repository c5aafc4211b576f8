/**
 * The ToolDeclaration of an MCP tool (issue 30 item 3, MC7, MC9): built from
 * the facts modelStep put on the planned call, so the session workflow
 * dispatches an MCP call exactly like a built-in one (TD5 concurrency, TD3
 * replay → activity options, TD2 effect → the permission gate). Arguments
 * were validated against the server's JSON Schema by modelStep (TD8); here
 * they are only required to be a JSON object. Deterministic.
 */
import { z } from 'zod';
import type { PlannedToolCall } from '../session/tool-calls.js';
import { toolDeclarations } from '../tools/registry.js';
import { summaryLine } from '../tools/summary.js';
import type { ToolDeclaration } from '../tools/types.js';
import type { McpToolFacts } from './types.js';

/** Arguments of an MCP call as the workflow holds them: a JSON object (its schema is the server's). */
export const mcpArgs = z.record(z.string(), z.unknown());

/** The declaration of the MCP tool whose wire name is `name`, from its facts. */
export function mcpDeclaration(name: string, facts: McpToolFacts): ToolDeclaration<Record<string, unknown>> {
  return {
    name,
    effect: facts.effect,
    replay: facts.replay,
    concurrency: facts.concurrency,
    args: mcpArgs,
    summarize: (args) => {
      const shown = compactArgs(args);
      return summaryLine(shown === '' ? name : `${name}: ${shown}`);
    },
  };
}

/** `k=v` pairs of the first few scalar arguments, for the one-line summary. */
function compactArgs(args: Record<string, unknown>): string {
  return Object.entries(args)
    .slice(0, 3)
    .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join(' ');
}

/**
 * The declaration a planned call runs under: its MCP facts when modelStep
 * set them, else the built-in tool's; undefined for neither (an unknown
 * tool, which modelStep has already blocked).
 */
export function declarationOf(call: Pick<PlannedToolCall, 'name' | 'mcp'>): ToolDeclaration | undefined {
  if (call.mcp) return mcpDeclaration(call.name, call.mcp) as ToolDeclaration;
  return Object.prototype.hasOwnProperty.call(toolDeclarations, call.name) ? toolDeclarations[call.name] : undefined;
}
