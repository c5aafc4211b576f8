/**
 * TD8 for MCP calls: a call's argument text validated against the tool's
 * own JSON Schema (its server's `inputSchema`) with Ajv (draft 2020-12,
 * formats not enforced — the server checks them), before anything is
 * scheduled. Malformed JSON or a schema failure is a `blocked`
 * `invalid_arguments` result whose message names each field, like a
 * built-in tool's. A schema Ajv cannot compile only requires a JSON object
 * (the server still validates). Compiled validators are cached by schema text.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import type { ToolCallValidation } from '../../core/tools/registry.js';
import { mcpDeclaration } from '../../core/mcp/declaration.js';
import type { ToolDeclaration } from '../../core/tools/types.js';
import type { McpCatalogTool } from './types.js';

const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
const compiled = new Map<string, ValidateFunction | null>();
/** Most cached validators (a long-lived worker sees many catalogs). */
const MAX_CACHED = 2_000;

/** The tool's schema without `$schema` (providers and Ajv's meta-schema choice do not want it). */
export function wireSchema(tool: Pick<McpCatalogTool, 'inputSchema'>): Record<string, unknown> {
  const { $schema: _ignored, ...rest } = tool.inputSchema;
  return rest;
}

function validatorOf(schema: Record<string, unknown>): ValidateFunction | null {
  const key = JSON.stringify(schema);
  if (compiled.has(key)) return compiled.get(key)!;
  let fn: ValidateFunction | null;
  try {
    fn = ajv.compile(schema);
  } catch {
    fn = null;
  }
  if (compiled.size >= MAX_CACHED) compiled.clear();
  compiled.set(key, fn);
  return fn;
}

/** `- field: problem` lines of Ajv's errors, like core/tools/registry.ts formatArgIssues. */
function issues(fn: ValidateFunction): string {
  return (fn.errors ?? [])
    .map((e) => {
      const missing = (e.params as { missingProperty?: string }).missingProperty;
      const path = e.instancePath.replace(/^\//, '').replace(/\//g, '.') || '(arguments)';
      return missing
        ? `- ${path === '(arguments)' ? missing : `${path}.${missing}`}: required`
        : `- ${path}: ${e.message}`;
    })
    .join('\n');
}

/**
 * Validates one model call of MCP tool `tool` (TD8).
 * @param argsJson the provider's argument text; empty reads as `{}`.
 * @returns `{ ok: true, args, declaration }` or `{ ok: false, category: 'invalid_arguments', message }`. Never throws.
 */
export function validateMcpCall(tool: McpCatalogTool, argsJson: string): ToolCallValidation {
  const declaration = mcpDeclaration(tool.name, tool.facts) as ToolDeclaration;
  const refuse = (why: string): ToolCallValidation => ({
    ok: false,
    category: 'invalid_arguments',
    message: `${why}\nFix these arguments and call the tool again.`,
  });
  let raw: unknown;
  try {
    raw = JSON.parse(argsJson.trim() === '' ? '{}' : argsJson);
  } catch (err) {
    return refuse(`Arguments for tool "${tool.name}" are not valid JSON (${(err as Error).message}).`);
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    return refuse(`Arguments for tool "${tool.name}" must be a JSON object.`);
  }
  const fn = validatorOf(wireSchema(tool));
  if (fn && !fn(raw)) return refuse(`Invalid arguments for tool "${tool.name}":\n${issues(fn)}`);
  return { ok: true, args: raw, declaration };
}
