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
import type { ToolBody } from './tool-body.js';

/**
 * The `apply_patch` tool (FT3) as the activity layer runs it: parses the
 * patch (a syntax error is an `invalid_arguments` result naming the line),
 * applies it with the session's newest read credentials (`ctx.credentials`;
 * none → every existing file is `ReadRequired`), and renders the typed result.
 */
async function runApplyPatch(args: ApplyPatchArgs, ctx: ToolContext): Promise<ToolResult> {
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

/**
 * The `apply_patch` body: needs the session's read credentials (FT3); its
 * activity result names the conflict kind that stopped a patch (`data.conflict`).
 */
export const applyPatchTool: ToolBody<ApplyPatchArgs> = {
  run: runApplyPatch,
  needsReadCredentials: true,
  activityFacts: (r) => (typeof r.data?.conflict === 'string' ? { conflict: r.data.conflict } : {}),
};
