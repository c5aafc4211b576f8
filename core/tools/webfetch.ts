/**
 * Declaration of the `webfetch` tool (issue 31 item 2; NW1, NW3, NW5; the
 * NW6 SEED-GAP decided in docs/web.md): one GET of a public http(s) URL
 * through the guarded network client, the body returned as Markdown, plain
 * text or raw text by its content type. ReadOnly, replay Safe (a GET changes
 * nothing Zuno must not repeat), ParallelSafe; never a local activity (it
 * waits on the network). Its permission subject is the URL without its
 * query (core/permission/url.ts), so rules match it by URL pattern.
 * Deterministic: zod + pure code only. The body is activities/tools/webfetch.ts.
 */
import { z } from 'zod';
import { urlSubjectText } from '../permission/url.js';
import { summaryLine } from './summary.js';
import type { ToolDeclaration } from './types.js';

/** Body bytes read when `max_bytes` is absent (5 MiB). */
export const WEBFETCH_DEFAULT_MAX_BYTES = 5 * 1024 * 1024;
/** The largest `max_bytes` a call may ask for (10 MiB): the body is held in memory whole. */
export const WEBFETCH_MAX_BYTES_LIMIT = 10 * 1024 * 1024;
/** NW1: the time limit of a call without `timeout`, in seconds. */
export const WEBFETCH_DEFAULT_TIMEOUT_S = 30;
/** NW1: the largest `timeout` a call may ask for, in seconds. */
export const WEBFETCH_MAX_TIMEOUT_S = 120;

/** How the body is returned. */
export const WEBFETCH_FORMATS = ['markdown', 'text', 'raw'] as const;

/** Arguments of `webfetch`. */
export const webfetchArgs = z.strictObject({
  url: z
    .url({ protocol: /^https?$/, error: 'expected an http:// or https:// URL' })
    .max(8192)
    .describe('The http:// or https:// URL to GET. No credentials in it; only public addresses are reachable.'),
  format: z
    .enum(WEBFETCH_FORMATS)
    .default('markdown')
    .describe(
      'How an HTML page is returned: `markdown` (default), `text` (no markup), `raw` (the HTML itself). JSON is pretty-printed unless `raw`; other text is returned as is.',
    ),
  max_bytes: z
    .number()
    .int()
    .min(1)
    .max(WEBFETCH_MAX_BYTES_LIMIT)
    .optional()
    .describe(
      `Most response body bytes to read (default ${WEBFETCH_DEFAULT_MAX_BYTES}, at most ${WEBFETCH_MAX_BYTES_LIMIT}); a longer body fails the call.`,
    ),
  timeout: z
    .number()
    .int()
    .min(1)
    .max(WEBFETCH_MAX_TIMEOUT_S)
    .optional()
    .describe(
      `Time limit of the whole request in seconds, redirects and body included (default ${WEBFETCH_DEFAULT_TIMEOUT_S}, at most ${WEBFETCH_MAX_TIMEOUT_S}).`,
    ),
});

/** Parsed arguments of `webfetch` (`format` defaulted). */
export type WebfetchArgs = z.infer<typeof webfetchArgs>;

/** `webfetch` declaration: ReadOnly, Safe, ParallelSafe (TD1, TD3, NW5). */
export const webfetchDeclaration: ToolDeclaration<WebfetchArgs> = {
  name: 'webfetch',
  effect: 'ReadOnly',
  replay: 'Safe',
  concurrency: 'ParallelSafe',
  args: webfetchArgs,
  subjectOf: (args) => ({ kind: 'url', url: args.url }),
  summarize: (args) => summaryLine(`webfetch: ${urlSubjectText(args.url)}`),
};
