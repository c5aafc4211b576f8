/**
 * TD9 for every tool whose output the shared wrapper caps: over
 * `tool_output.max_bytes` (51200) or `max_lines` (2000) the output is
 * withheld whole to `<workspace>/.zuno/artifacts/` — never truncated — and
 * the model gets the notice (measured size, which cap, artifact path and how
 * to read it back with `bg action: "artifact"`). The result keeps its
 * outcome and error code; `data` gains `outputPaths` and a typed
 * `withheldOutput`. Shell withholds its own raw bytes (shell/output.ts) and
 * bg read-back is never re-capped (BG4): they declare so.
 */
import { createHash } from 'node:crypto';
import type { ToolResult } from '../../core/tools/types.js';
import { OUTPUT_MAX_BYTES, OUTPUT_MAX_LINES, utf8Bytes } from './common.js';
import { keepAsArtifact, openCapture } from './shell/capture.js';
import { defaultArtifactDir } from './shell/run.js';
import { withheldNotice } from './shell/output.js';
import type { WithheldOutput } from './shell/types.js';

/** Lines of a text: `\n` count, plus one for a final line without `\n`. */
function lineCount(text: string): number {
  let n = 0;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) n++;
  return text.length > 0 && !text.endsWith('\n') ? n + 1 : n;
}

/** Where a call's withheld output goes: the workspace, and the ids its artifact is named after. */
export interface CapContext {
  workspace: string;
  /** Absent for a direct call outside a session (artifact named after `local`). */
  sessionId?: string;
  callId?: string;
}

/**
 * Applies the TD9 caps to one result.
 * @param at the call: workspace root (artifacts go to its `.zuno/artifacts`), session and call id.
 * @returns the result unchanged when it fits both caps; otherwise the
 *   withheld form. Throws only when the artifact cannot be written (the
 *   activity then records a `tool_failed` error: the output is not lost silently).
 */
export async function capOutput(
  result: ToolResult,
  at: CapContext,
  caps: { maxBytes: number; maxLines: number } = { maxBytes: OUTPUT_MAX_BYTES, maxLines: OUTPUT_MAX_LINES },
): Promise<ToolResult> {
  const bytes = utf8Bytes(result.output);
  const lines = lineCount(result.output);
  const overBytes = bytes > caps.maxBytes;
  if (!overBytes && lines <= caps.maxLines) return result;
  const sessionId = at.sessionId ?? 'local';
  const callId = at.callId ?? 'local';
  const capture = await openCapture(defaultArtifactDir(at.workspace), sessionId, callId);
  try {
    await capture.handle.writeFile(result.output, 'utf8');
  } finally {
    await capture.handle.close();
  }
  const artifactPath = await keepAsArtifact(capture.path, defaultArtifactDir(at.workspace), sessionId, callId);
  const withheldOutput: WithheldOutput = {
    bytes,
    lines,
    cap: overBytes ? 'max_bytes' : 'max_lines',
    artifactPath,
    sha256: createHash('sha256').update(result.output, 'utf8').digest('hex'),
  };
  return {
    ...result,
    output: withheldNotice(withheldOutput, overBytes ? caps.maxBytes : caps.maxLines),
    data: { ...(result.data ?? {}), outputPaths: [artifactPath], withheldOutput },
  };
}
