/**
 * The `webfetch` tool body (issue 31 item 2; NW1, NW3, NW5; the NW6
 * SEED-GAP decided in docs/web.md; declaration core/tools/webfetch.ts): one
 * GET through the guarded {@link PublicHttpClient} with the session's
 * `network.allow_private` allowlist, the call's AbortSignal, the byte cap
 * (`max_bytes`) and the time limit (`timeout`, also the idle limit). The body
 * is rendered by content type (webfetch/content.ts); a binary body is never
 * decoded: the result describes it (type, size, SHA-256) and keeps the bytes
 * as an artifact (webfetch/artifact.ts). The text goes through the TD9 caps:
 * over them it is withheld whole to an artifact, readable with `bg artifact`
 * or `read`. Failures are typed results: a {@link NetworkError} names the
 * phase, the refusing address class and the elapsed time; an HTTP error
 * status is `network_http_status` with the page it sent. No output, error or
 * data field carries the URL's query, a header or a key: URLs are shown as
 * `scheme://host/path` ({@link safeUrl}).
 */
import { createHash } from 'node:crypto';
import {
  WEBFETCH_DEFAULT_MAX_BYTES,
  WEBFETCH_DEFAULT_TIMEOUT_S,
  type WebfetchArgs,
} from '../../core/tools/webfetch.js';
import type { ToolResult } from '../../core/tools/types.js';
import { NetworkError, PublicHttpClient, safeUrl, type PublicResponse } from '../network/index.js';
import { evaluatePermission } from '../../core/permission/evaluate.js';
import type { PermissionPolicy } from '../../core/permission/types.js';
import { urlSubjectText } from '../../core/permission/url.js';
import { cancelledResult, errorResult } from './common.js';
import type { ToolContext } from './context.js';
import { capOutput } from './output-cap.js';
import type { ToolBody } from './tool-body.js';
import { writeBinaryArtifact } from './binary-artifact.js';
import { bodyKind, decodeBody, mediaTypeOf, renderText } from './webfetch/content.js';

/** `n` with its noun, pluralized. */
function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

/** A guarded request's failure as the model sees it: what failed, where, the address class, the elapsed time. */
function networkErrorResult(err: NetworkError, url: string): ToolResult {
  const cls = err.addressClass ? `, address class ${err.addressClass}` : '';
  const output = `webfetch failed in phase ${err.phase}${cls}, after ${err.elapsedMs} ms: ${err.message}`;
  return errorResult(err.code, output, {
    url: safeUrl(url),
    phase: err.phase,
    ...(err.addressClass ? { addressClass: err.addressClass } : {}),
    elapsedMs: err.elapsedMs,
  });
}

/** The response as a result: the header line, then the rendered text or the binary description. */
async function responseResult(res: PublicResponse, args: WebfetchArgs, ctx: ToolContext): Promise<ToolResult> {
  const media = mediaTypeOf(res.headers['content-type'], res.body);
  const kind = bodyKind(media.mime);
  const finalUrl = safeUrl(res.url);
  const redirects = res.redirects > 0 ? `, after ${plural(res.redirects, 'redirect')}` : '';
  const head = `${finalUrl}: HTTP ${res.status}, ${media.mime}, ${plural(res.body.length, 'byte')}${redirects}`;
  const data: Record<string, unknown> = {
    url: finalUrl,
    status: res.status,
    contentType: media.header ?? media.mime,
    bytes: res.body.length,
    redirects: res.redirects,
    elapsedMs: res.elapsedMs,
    format: args.format,
  };
  let output: string;
  if (kind === 'binary') {
    const sha256 = createHash('sha256').update(res.body).digest('hex');
    const artifactPath = await writeBinaryArtifact(ctx, { prefix: 'webfetch' }, media.mime, res.body);
    Object.assign(data, { sha256, artifactPath });
    output = [
      head,
      `Binary content, not decoded (sha256 ${sha256}). Its exact bytes are in the artifact ${artifactPath};`,
      `read them in windows with bg {"action": "artifact", "outputPath": ${JSON.stringify(artifactPath)}}, or use them from a command.`,
    ].join('\n');
  } else {
    // Relative links resolve against the URL without its query, so none of it is copied into the text.
    output = `${head}\n\n${renderText(decodeBody(res.body, media.charset), kind, args.format, finalUrl)}`;
  }
  if (res.status >= 400) return errorResult('network_http_status', output, data);
  return { output, isError: false, data };
}

/** TD9: over-cap text withheld whole to an artifact, with a note for roles that read files but have no `bg`. */
async function capped(result: ToolResult, ctx: ToolContext): Promise<ToolResult> {
  const out = await capOutput(result, ctx);
  const withheld = out.data?.withheldOutput as { artifactPath: string } | undefined;
  if (!withheld) return out;
  const read = JSON.stringify({ path: withheld.artifactPath, offset: 1, limit: 2000 });
  return {
    ...out,
    output: `${out.output}\nWithout bg, read it with read ${read} (lines over 2000 characters are cut there).`,
  };
}

/**
 * The permission check of a redirect hop: the rules the first URL met, for
 * the hop's URL. A hop they deny, or would ask about (nobody can be asked
 * mid-fetch), is refused with the reason; the model may fetch that URL
 * directly, which the gate then decides (and asks about) as any call.
 */
function redirectRule(policy: PermissionPolicy): (url: URL) => string | undefined {
  return (url) => {
    const d = evaluatePermission(
      policy,
      { tool: 'webfetch', effect: 'ReadOnly', subject: { kind: 'url', url: urlSubjectText(url.href) } },
      [],
    );
    if (d.action === 'allow') return undefined;
    const verb = d.action === 'deny' ? 'deny' : 'ask before';
    return `the permission rules ${verb} fetching it (${d.reason}); call webfetch with that URL to have it decided`;
  };
}

/** The `webfetch` body (see module doc). */
export const webfetchTool: ToolBody<WebfetchArgs> = {
  // It applies the TD9 caps itself (capOutput) to add the `read` route to the notice.
  output: 'own',
  async run(args, ctx) {
    const timeoutMs = (args.timeout ?? WEBFETCH_DEFAULT_TIMEOUT_S) * 1000;
    const client = new PublicHttpClient({ allowPrivate: ctx.network?.allowPrivate ?? [] });
    let res: PublicResponse;
    try {
      res = await client.fetch(args.url, {
        maxBytes: args.max_bytes ?? WEBFETCH_DEFAULT_MAX_BYTES,
        totalTimeoutMs: timeoutMs,
        idleTimeoutMs: timeoutMs,
        ...(ctx.signal ? { signal: ctx.signal } : {}),
        ...(ctx.permission ? { checkRedirect: redirectRule(ctx.permission) } : {}),
      });
    } catch (err) {
      if (ctx.signal?.aborted) return cancelledResult('webfetch');
      if (err instanceof NetworkError) return networkErrorResult(err, args.url);
      throw err;
    } finally {
      await client.close();
    }
    if (ctx.signal?.aborted) return cancelledResult('webfetch');
    return capped(await responseResult(res, args, ctx), ctx);
  },
};
