/**
 * The workflow-visible tool registry: declarations by name and argument
 * validation (TD1, TD8). Deterministic: zod + pure code only, so the session
 * workflow validates a call without scheduling anything; a rejected call is a
 * `blocked` result with its category, never an activity.
 */
import { goalGetDeclaration, goalRequestInputDeclaration, goalUpdateDeclaration } from './goal.js';
import type { z } from 'zod';
import type { BlockedCategory, DelegationKind, ToolDeclaration } from './types.js';
import { readDeclaration } from './read.js';
import { globDeclaration } from './glob.js';
import { grepDeclaration } from './grep.js';
import { applyPatchDeclaration } from './apply-patch.js';
import { shellDeclaration } from './shell.js';
import { writeDeclaration } from './write.js';
import { reportWriteDeclaration } from './report-write.js';
import { bgDeclaration } from './bg.js';
import { planGetDeclaration } from './plan-get.js';
import { planUpdateDeclaration } from './plan-update.js';
import { todoGetDeclaration } from './todo-get.js';
import { todoUpdateDeclaration } from './todo-update.js';
import { questionAsyncDeclaration, questionDeclaration } from './question.js';
import { taskDeclaration } from './task.js';
import { jobDeclaration } from './job.js';
import { councilRunDeclaration } from './council-run.js';
import { toolSearchDeclaration } from './tool-search.js';
import { webfetchDeclaration } from './webfetch.js';
import { webSearchDeclaration } from './web-search.js';

/**
 * THE list of tools: every declaration by name. The activity-side registry
 * (activities/tools/index.ts) is generated from it — a tool declared here
 * without an implementation there, or the other way round, does not compile.
 */
export const declaredTools = {
  read: readDeclaration,
  glob: globDeclaration,
  grep: grepDeclaration,
  write: writeDeclaration,
  report_write: reportWriteDeclaration,
  apply_patch: applyPatchDeclaration,
  shell: shellDeclaration,
  bg: bgDeclaration,
  goal_get: goalGetDeclaration,
  goal_update: goalUpdateDeclaration,
  goal_request_input: goalRequestInputDeclaration,
  plan_get: planGetDeclaration,
  plan_update: planUpdateDeclaration,
  todo_get: todoGetDeclaration,
  todo_update: todoUpdateDeclaration,
  question: questionDeclaration,
  question_async: questionAsyncDeclaration,
  task: taskDeclaration,
  job: jobDeclaration,
  council_run: councilRunDeclaration,
  tool_search: toolSearchDeclaration,
  webfetch: webfetchDeclaration,
  web_search: webSearchDeclaration,
} as const;

/** Name of a declared tool. */
export type ToolName = keyof typeof declaredTools;
/** The argument type of a declared tool. */
export type ToolArgs<N extends ToolName> = (typeof declaredTools)[N] extends ToolDeclaration<infer A> ? A : never;

/** Names of the delegating tools: declared with a `delegation` kind (DC14), run as child workflows, no activity body. */
export type DelegatingToolName = {
  [N in ToolName]: (typeof declaredTools)[N] extends { delegation: DelegationKind } ? N : never;
}[ToolName];
/** Names of the tools whose calls run as `tool_<name>` activities (every declared tool that does not delegate). */
export type ActivityToolName = Exclude<ToolName, DelegatingToolName>;

/** Declarations of the tools implemented so far, keyed by tool name (for lookups by a model-sent name). */
export const toolDeclarations: Record<string, ToolDeclaration> = declaredTools as unknown as Record<
  string,
  ToolDeclaration
>;

/** true when `name` is a declared tool. */
export function isToolName(name: string): name is ToolName {
  return Object.prototype.hasOwnProperty.call(declaredTools, name);
}

/** Outcome of {@link validateToolCall}. */
export type ToolCallValidation =
  | { ok: true; args: unknown; declaration: ToolDeclaration }
  | { ok: false; category: Extract<BlockedCategory, 'invalid_arguments' | 'unavailable' | 'denied'>; message: string };

function issuePath(path: ReadonlyArray<PropertyKey>): string {
  if (path.length === 0) return '(arguments)';
  return path
    .map((p) => (typeof p === 'number' ? `[${p}]` : String(p)))
    .join('.')
    .replace(/\.\[/g, '[');
}

/** Renders zod issues as a model-correctable list, one `- field: problem` per line. */
export function formatArgIssues(error: z.ZodError): string {
  return error.issues.map((i) => `- ${issuePath(i.path)}: ${i.message}`).join('\n');
}

/**
 * Validates one model tool call (TD8).
 *
 * @param name tool name as the model sent it.
 * @param argsJson the raw JSON argument string from the provider; empty or
 *   whitespace-only is read as `{}` (some providers send "" for no arguments).
 * @param declarations the available declarations (default {@link toolDeclarations}).
 * @returns `{ ok: true, args, declaration }` with the parsed, schema-validated
 *   arguments; or `{ ok: false, category, message }`: `unavailable` for an
 *   unknown tool, `invalid_arguments` for malformed JSON or a schema failure.
 *   The message is written for the model: it names the problem and how to fix
 *   it. Pure; never throws.
 */
export function validateToolCall(
  name: string,
  argsJson: string,
  declarations: Record<string, ToolDeclaration> = toolDeclarations,
): ToolCallValidation {
  const decl = Object.prototype.hasOwnProperty.call(declarations, name) ? declarations[name] : undefined;
  if (!decl) {
    const known = Object.keys(declarations).sort().join(', ');
    return {
      ok: false,
      category: 'unavailable',
      message: `Tool "${name}" is not available. Available tools: ${known}.`,
    };
  }
  let raw: unknown;
  const text = argsJson.trim() === '' ? '{}' : argsJson;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    return {
      ok: false,
      category: 'invalid_arguments',
      message: `Arguments for tool "${name}" are not valid JSON (${why}). Send a single JSON object matching the tool's parameter schema.`,
    };
  }
  const parsed = decl.args.safeParse(raw);
  if (!parsed.success) {
    const notes = decl.argumentNotes?.(raw, parsed.error.issues) ?? [];
    const noted = notes.length > 0 ? `\nNotes:\n${notes.map((n) => `- ${n}`).join('\n')}` : '';
    return {
      ok: false,
      category: 'invalid_arguments',
      message: `Invalid arguments for tool "${name}":\n${formatArgIssues(parsed.error)}${noted}\nFix these arguments and call the tool again.`,
    };
  }
  return { ok: true, args: parsed.data, declaration: decl };
}
