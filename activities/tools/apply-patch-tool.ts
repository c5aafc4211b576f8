import type { ApplyPatchArgs } from '../../core/tools/apply-patch.js';
import type { ToolResult } from '../../core/tools/types.js';
import {
  applyPatch,
  parsePatch,
  PatchSyntaxError,
  renderApplyPatchResult,
  renderPatchSyntaxError,
} from './apply-patch/index.js';
import type { ToolContext } from './context.js';

/**
 * The `apply_patch` tool (FT3) as the activity layer runs it: parses the
 * patch (a syntax error is an `invalid_arguments` result naming the line),
 * applies it with the session's newest read credentials (`ctx.credentials`;
 * none → every existing file is `ReadRequired`), and renders the typed result.
 */
export async function runApplyPatchTool(args: ApplyPatchArgs, ctx: ToolContext): Promise<ToolResult> {
  let parsed;
  try {
    parsed = parsePatch(args.patch);
  } catch (err) {
    if (err instanceof PatchSyntaxError) return renderPatchSyntaxError(err);
    throw err;
  }
  const result = await applyPatch(parsed, {
    workspace: ctx.workspace,
    credentials: ctx.credentials ?? (() => undefined),
  });
  return renderApplyPatchResult(result);
}
