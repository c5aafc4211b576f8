/**
 * Small helpers shared by the file and search tools. Not model-facing.
 */
import type { ToolResult } from '../../core/tools/types.js';
import { ZunoError } from '../../core/errors.js';
import type { ErrorCode } from '../../core/error-codes.js';

/** TD9 default caps, applied by tools that page or bound their own output. */
export const OUTPUT_MAX_BYTES = 51_200;
export const OUTPUT_MAX_LINES = 2_000;

/** An `error` outcome with a stable code (ToolResult.isError). */
export function errorResult(errorCode: ErrorCode, output: string, data?: Record<string, unknown>): ToolResult {
  return data ? { output, isError: true, errorCode, data } : { output, isError: true, errorCode };
}

/** The result a tool returns when its AbortSignal fired before it finished (TD10 cooperative cancel). */
export function cancelledResult(tool: string): ToolResult {
  return errorResult('cancelled', `${tool} was cancelled before it finished; nothing was changed (read-only tool).`, {
    cancelled: true,
  });
}

/** Maps a thrown ZunoError (e.g. `rg_missing`) to a typed error result; rethrows anything else. */
export function zunoErrorResult(err: unknown): ToolResult {
  if (err instanceof ZunoError) return errorResult(err.code, err.message, err.details ? { ...err.details } : undefined);
  throw err;
}

const fatalUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Decodes bytes as UTF-8, or null when they are not valid UTF-8 (SR3: such names are excluded). */
export function decodeUtf8Strict(bytes: Uint8Array): string | null {
  try {
    return fatalUtf8.decode(bytes);
  } catch {
    return null;
  }
}

/**
 * Cuts `text` to at most `max` UTF-16 code units without splitting a surrogate
 * pair. Returns the text and whether it was cut.
 */
export function capUnits(text: string, max: number): { text: string; cut: boolean } {
  if (text.length <= max) return { text, cut: false };
  let end = max;
  const c = text.charCodeAt(end - 1);
  if (c >= 0xd800 && c <= 0xdbff) end--;
  return { text: text.slice(0, end), cut: true };
}

// eslint-disable-next-line no-control-regex
const NEEDS_QUOTING = /[\u0000-\u001f\u007f"]|^\s|\s$/;

/**
 * Renders a path for a one-path-per-line listing. A name with a newline or
 * another control character (or a leading `"`/edge whitespace) is shown as a
 * JSON string literal so it stays one line and one identifier (SR3).
 */
export function displayPath(p: string): { text: string; quoted: boolean } {
  return NEEDS_QUOTING.test(p) ? { text: JSON.stringify(p), quoted: true } : { text: p, quoted: false };
}

/** Note appended when any listed path was JSON-quoted. */
export const QUOTED_PATHS_NOTE =
  'Paths in double quotes contain control characters (e.g. a newline) or edge spaces and are shown as JSON string literals; use the decoded string as the path.';

/** UTF-8 byte length of a string. */
export function utf8Bytes(s: string): number {
  return Buffer.byteLength(s, 'utf8');
}

/** Joins a workspace-relative directory (`.` for the root) and a child path with `/`. */
export function joinRel(dir: string, child: string): string {
  return dir === '.' || dir === '' ? child : `${dir}/${child}`;
}
