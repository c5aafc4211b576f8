/**
 * Activity-side tool registry, generated from THE tool list
 * (core/tools/registry.ts `declaredTools`). Every declared tool gets a
 * catalogue entry: its declaration, model-facing description (the sibling
 * `<name>.txt`) and JSON Schema (from zod). Each activity tool also has a
 * body ({@link ToolBody}: execute + declared special behaviour); a
 * delegating tool (`task`, `council_run`, declared with a `delegation`
 * kind, DC14) has none — the session workflow runs it as a child workflow.
 * An activity tool without a body here, a body for a delegating tool, or a
 * body without a declaration fails to compile.
 *
 * The shared wrapper ({@link defineTool}) does once, for every tool, what
 * tools used to repeat: argument validation against the declaration (TD8:
 * an `invalid_arguments` result, never a throw) and the TD9 output caps
 * (unless the tool declares it withholds its own output, or serves
 * read-back that is never re-capped, BG4).
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import type { ToolSpec } from '../../core/messages.js';
import type { SessionMeta } from '../../core/session/meta.js';
import { declaredTools, type ActivityToolName, type ToolArgs, type ToolName } from '../../core/tools/registry.js';
import type { ToolDeclaration, ToolResult } from '../../core/tools/types.js';
import { sourceRelative } from '../infra/install-root.js';
import { applyPatchTool } from './apply-patch-tool.js';
import { bgTool } from './bg/index.js';
import type { ToolContext } from './context.js';
import { globTool } from './glob.js';
import { goalGetTool, goalRequestInputTool, goalUpdateTool } from './goal-tools.js';
import { grepTool } from './grep.js';
import { planGetTool } from './plan-get.js';
import { planUpdateTool } from './plan-update.js';
import { readTool } from './read.js';
import { reportWriteTool } from './report-write.js';
import { shellTool } from './shell/index.js';
import { todoGetTool } from './todo-get.js';
import { todoUpdateTool } from './todo-update.js';
import { questionAsyncTool, questionTool } from './question-tools.js';
import { jobTool } from './job.js';
import { toolSearchTool } from './tool-search.js';
import { webfetchTool } from './webfetch.js';
import { webSearchTool } from './web-search/index.js';
import type { ToolBody } from './tool-body.js';
import { writeTool } from './write.js';
import { runTool } from './wrapper.js';

export type { ToolContext } from './context.js';
export type { ToolActivityFacts, ToolBody, ToolOutputCap } from './tool-body.js';

/** One declared tool as providers see it: declaration, description and JSON Schema. */
export interface ToolEntry {
  name: string;
  declaration: ToolDeclaration;
  /** Model-facing description, loaded from `activities/tools/<name>.txt`. */
  description: string;
  /** JSON Schema (draft 2020-12, no `$schema` key) of the arguments, from `z.toJSONSchema`. */
  jsonSchema: Record<string, unknown>;
}

/** One executable (activity) tool: its catalogue entry and body behind the shared wrapper. */
export interface ToolImplementation extends ToolEntry {
  /** The body's declared behaviour (credentials, output cap, background and activity facts). */
  body: Omit<ToolBody<never>, 'run'>;
  /**
   * Runs one call: validates `args` against the declaration (a mismatch is
   * an `invalid_arguments` result), runs the body, applies the TD9 caps
   * when the body's `output` is `capped` (the default). Typed failures are
   * `isError` results with an `errorCode`; only programming errors throw.
   */
  run(args: unknown, ctx: ToolContext): Promise<ToolResult>;
}

function description(name: string): string {
  return readFileSync(sourceRelative(import.meta.url, `./${name}.txt`), 'utf8').trim();
}

/** JSON Schema for a tool's zod argument schema, as sent to providers. */
export function argsJsonSchema(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io: 'input' }) as Record<string, unknown>;
  return rest;
}

/** The catalogue entry of a declaration (`wire`: the provider-facing schema when it is not the declaration's). */
function describeTool(declaration: ToolDeclaration, wire?: z.ZodType): ToolEntry {
  return {
    name: declaration.name,
    declaration,
    description: description(declaration.name),
    jsonSchema: argsJsonSchema(wire ?? declaration.args),
  };
}

/** The shared wrapper: one declaration + one body → an implementation. */
export function defineTool<Args>(declaration: ToolDeclaration<Args>, body: ToolBody<Args>): ToolImplementation {
  const { run, ...declared } = body;
  return {
    ...describeTool(declaration as ToolDeclaration, body.wire),
    body: declared,
    run: (raw, ctx) => runTool(declaration, { run, ...declared }, raw, ctx),
  };
}

/** Every activity tool's body, by declared name (the compiler checks the two lists are the same). */
const bodies: { [N in ActivityToolName]: ToolBody<ToolArgs<N>> } = {
  read: readTool,
  glob: globTool,
  grep: grepTool,
  write: writeTool,
  report_write: reportWriteTool,
  apply_patch: applyPatchTool,
  shell: shellTool,
  bg: bgTool,
  goal_get: goalGetTool,
  goal_update: goalUpdateTool,
  goal_request_input: goalRequestInputTool,
  plan_get: planGetTool,
  plan_update: planUpdateTool,
  todo_get: todoGetTool,
  todo_update: todoUpdateTool,
  question: questionTool,
  question_async: questionAsyncTool,
  job: jobTool,
  tool_search: toolSearchTool,
  webfetch: webfetchTool,
  web_search: webSearchTool,
};

function isActivityTool(name: ToolName): name is ActivityToolName {
  return declaredTools[name].delegation === undefined;
}

function implement<N extends ActivityToolName>(name: N): ToolImplementation {
  return defineTool(declaredTools[name] as ToolDeclaration<ToolArgs<N>>, bodies[name]);
}

const declaredNames = Object.keys(declaredTools) as ToolName[];

/** Implemented (activity) tools by name, in declaration order; delegating tools have none. */
export const toolImplementations: Record<string, ToolImplementation> = Object.fromEntries(
  declaredNames.filter(isActivityTool).map((name) => [name, implement(name)]),
);

/** Every declared tool's catalogue entry by name, in declaration order (activity and delegating tools). */
export const toolCatalogue: Record<string, ToolEntry> = Object.fromEntries(
  declaredNames.map((name) => [
    name,
    toolImplementations[name] ?? describeTool(declaredTools[name] as ToolDeclaration),
  ]),
);

/** Names of the tools offered only while a session has deferred MCP schemas (their bodies declare `needsMcp`, TD12). */
export function mcpOnlyTools(): ReadonlySet<string> {
  return new Set(Object.values(toolImplementations).flatMap((t) => (t.body.needsMcp ? [t.name] : [])));
}

/** Names of the tools that work only in a session a Goal drives (their bodies declare `needsGoal`). */
export function goalOnlyTools(): ReadonlySet<string> {
  return new Set(Object.values(toolImplementations).flatMap((t) => (t.body.needsGoal ? [t.name] : [])));
}

/** Why a session is not offered a tool, by tool name, for the tools whose bodies declare `unavailableIn`. */
export function conditionalTools(): ReadonlyMap<string, (meta: SessionMeta) => string | undefined> {
  return new Map(
    Object.values(toolImplementations).flatMap((t) =>
      t.body.unavailableIn ? [[t.name, t.body.unavailableIn.bind(t.body)] as const] : [],
    ),
  );
}

/** The tool specs offered to the model (name, description, JSON Schema), for the given names or all declared tools. */
export function toolSpecs(names: readonly string[] = Object.keys(toolCatalogue)): ToolSpec[] {
  return names.flatMap((n) => {
    const t = toolCatalogue[n];
    return t ? [{ name: t.name, description: t.description, parameters: t.jsonSchema }] : [];
  });
}

/**
 * The tool sets a request's offer is made from (activities/session/tool-offer.ts): every tool's spec and the
 * Goal-only, MCP-only and conditional tools. One call for the worker's modelStep, `zuno prompt show` and the bench.
 */
export function toolOfferSets(): {
  toolSpecs: ToolSpec[];
  goalOnly: ReadonlySet<string>;
  mcpOnly: ReadonlySet<string>;
  conditional: ReadonlyMap<string, (meta: SessionMeta) => string | undefined>;
} {
  return {
    toolSpecs: toolSpecs(),
    goalOnly: goalOnlyTools(),
    mcpOnly: mcpOnlyTools(),
    conditional: conditionalTools(),
  };
}
