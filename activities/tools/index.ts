/**
 * Activity-side tool registry: for each tool its deterministic declaration
 * (core/tools), the model-facing description (the sibling `<name>.txt`), the
 * JSON Schema of its arguments (from zod) and its implementation.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import type { ToolSpec } from '../../core/messages.js';
import { globDeclaration } from '../../core/tools/glob.js';
import { grepDeclaration } from '../../core/tools/grep.js';
import { readDeclaration } from '../../core/tools/read.js';
import { applyPatchDeclaration } from '../../core/tools/apply-patch.js';
import { shellDeclaration } from '../../core/tools/shell.js';
import { writeDeclaration } from '../../core/tools/write.js';
import { reportWriteDeclaration } from '../../core/tools/report-write.js';
import { bgDeclaration, bgWireArgs } from '../../core/tools/bg.js';
import type { ToolDeclaration, ToolResult } from '../../core/tools/types.js';
import type { ToolContext } from './context.js';
import { runGlob } from './glob.js';
import { runGrep } from './grep.js';
import { runRead } from './read.js';
import { runApplyPatchTool } from './apply-patch-tool.js';
import { runShellTool } from './shell/index.js';
import { runWrite } from './write.js';
import { runReportWrite } from './report-write.js';
import { runBg } from './bg/index.js';

export type { ToolContext } from './context.js';

/** One executable tool. */
export interface ToolImplementation<Args = unknown> {
  name: string;
  declaration: ToolDeclaration<Args>;
  /** Model-facing description, loaded from `activities/tools/<name>.txt`. */
  description: string;
  /** JSON Schema (draft 2020-12, no `$schema` key) of the arguments, from `z.toJSONSchema`. */
  jsonSchema: Record<string, unknown>;
  /**
   * Runs one call. `args` should already be validated (core/tools/registry
   * `validateToolCall`); implementations re-validate and return an
   * `invalid_arguments` error result rather than throwing. Typed failures are
   * `isError` results with an `errorCode`; only programming errors throw.
   */
  run(args: Args, ctx: ToolContext): Promise<ToolResult>;
}

function description(name: string): string {
  return readFileSync(new URL(`./${name}.txt`, import.meta.url), 'utf8').trim();
}

/** JSON Schema for a tool's zod argument schema, as sent to providers. */
export function argsJsonSchema(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io: 'input' }) as Record<string, unknown>;
  return rest;
}

/**
 * @param wire optional provider-facing schema when the validating schema is
 *   not a plain object (e.g. `bg`'s union: providers want `type: object`).
 */
function define<Args>(
  declaration: ToolDeclaration<Args>,
  run: (args: Args, ctx: ToolContext) => Promise<ToolResult>,
  wire?: z.ZodType,
): ToolImplementation {
  return {
    name: declaration.name,
    declaration: declaration as ToolDeclaration,
    description: description(declaration.name),
    jsonSchema: argsJsonSchema(wire ?? declaration.args),
    run: run as (args: unknown, ctx: ToolContext) => Promise<ToolResult>,
  };
}

/** Implemented tools by name. */
export const toolImplementations: Record<string, ToolImplementation> = {
  read: define(readDeclaration, runRead),
  glob: define(globDeclaration, runGlob),
  grep: define(grepDeclaration, runGrep),
  write: define(writeDeclaration, runWrite),
  report_write: define(reportWriteDeclaration, runReportWrite),
  apply_patch: define(applyPatchDeclaration, runApplyPatchTool),
  shell: define(shellDeclaration, (args, ctx) => runShellTool(args, ctx)),
  bg: define(bgDeclaration, runBg, bgWireArgs),
};

/** The tool specs offered to the model (name, description, JSON Schema), for the given names or all. */
export function toolSpecs(names: readonly string[] = Object.keys(toolImplementations)): ToolSpec[] {
  return names.flatMap((n) => {
    const t = toolImplementations[n];
    return t ? [{ name: t.name, description: t.description, parameters: t.jsonSchema }] : [];
  });
}

export { runGlob, runGrep, runRead };
