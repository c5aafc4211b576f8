/**
 * The one place a tool call's arguments are validated and its output capped
 * (TD8, TD9): every tool runs through {@link runTool}, in the activity (via
 * the registry, activities/tools/index.ts) and in direct callers alike.
 */
import { formatArgIssues } from '../../core/tools/registry.js';
import type { ToolDeclaration, ToolResult } from '../../core/tools/types.js';
import { errorResult } from './common.js';
import { type CapContext, capOutput } from './output-cap.js';
import type { ToolBody } from './tool-body.js';

/**
 * Runs one call of a tool: validates `raw` against the declaration's schema
 * (a mismatch is an `invalid_arguments` result naming each field; defaults
 * are filled in), runs the body with the parsed arguments, and applies the
 * TD9 caps when the body's `output` is `capped` (the default).
 * @throws only what the body throws (programming errors) or an artifact
 *   write failure while withholding.
 */
export async function runTool<Args, C extends CapContext>(
  declaration: ToolDeclaration<Args>,
  body: Pick<ToolBody<Args>, 'output'> & { run(args: Args, ctx: C): Promise<ToolResult> },
  raw: unknown,
  ctx: C,
): Promise<ToolResult> {
  const parsed = declaration.args.safeParse(raw);
  if (!parsed.success) {
    return errorResult(
      'invalid_arguments',
      `Invalid arguments for tool "${declaration.name}":\n${formatArgIssues(parsed.error)}`,
    );
  }
  const result = await body.run(parsed.data, ctx);
  return (body.output ?? 'capped') === 'capped' ? capOutput(result, ctx) : result;
}
