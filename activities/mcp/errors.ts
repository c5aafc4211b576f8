/**
 * Turns what the SDK throws into the server's own words (issue 30: a
 * `failed`/`closed` server carries its error; an MCP call error names it):
 * the HTTP status of a refused endpoint, the errno of a refused connection
 * or a failed spawn, the JSON-RPC message, and a stdio server's stderr tail.
 */
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

/** Most characters of an error message kept (status lines and events stay short). */
const MAX_ERROR_CHARS = 1_500;

/** The errno code (`ECONNREFUSED`, `ENOENT`) of an error or its cause, if any. */
export function errnoOf(err: unknown): string | undefined {
  const e = err as { code?: unknown; cause?: { code?: unknown } } | null;
  if (typeof e?.cause?.code === 'string') return e.cause.code;
  return typeof e?.code === 'string' ? e.code : undefined;
}

/** An HTTP error's text without the HTML page a web server sends with it (its title or first words stay). */
export function withoutHtml(message: string): string {
  const at = message.search(/<!doctype html|<html/i);
  if (at < 0) return message;
  const page = message.slice(at);
  const title = /<title>([^<]*)<\/title>/i.exec(page)?.[1]?.trim();
  const body = page
    .replace(/<[^>]+>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  const before = message.slice(0, at).trim();
  return `${before ? `${before} ` : ''}(an HTML page: ${(title || body).slice(0, 120)})`;
}

/** One line for `err` plus the server's stderr tail when there is one, cut to a bounded length. */
export function describeMcpError(err: unknown, stderrTail = ''): string {
  let text: string;
  if (err instanceof StreamableHTTPError) text = `HTTP ${err.code ?? '?'}: ${withoutHtml(err.message)}`;
  else if (err instanceof Error) {
    const code = errnoOf(err);
    text = code && !err.message.includes(code) ? `${err.message} (${code})` : err.message;
  } else text = String(err);
  const full = stderrTail ? `${text}; server stderr: ${stderrTail}` : text;
  return full.length <= MAX_ERROR_CHARS ? full : `${full.slice(0, MAX_ERROR_CHARS - 1)}…`;
}
