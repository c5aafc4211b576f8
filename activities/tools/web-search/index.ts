/**
 * The `web_search` body (NW2, NW4, NW5; issue 31 item 3; docs/web.md): the
 * session's `network.search` backend (SearXNG) behind a guarded client
 * whose allowlist is the session's `network.allow_private`, a batch run with
 * the configured concurrency under the backend's rate limit (a token bucket
 * per backend in this worker process, its burst the configured concurrency),
 * results grouped per query in order and de-duplicated by URL. A session
 * without `network.search` is not offered the tool (`unavailableIn`); a call
 * that reaches the body anyway is `web_search_unconfigured`. Output goes
 * through the shared TD9 caps.
 */
import type { WebSearchBackendConfig } from '../../../core/network.js';
import type { SessionMeta } from '../../../core/session/meta.js';
import { WEB_SEARCH_DEFAULT_RESULTS, type WebSearchArgs } from '../../../core/tools/web-search.js';
import type { ToolResult } from '../../../core/tools/types.js';
import { PublicHttpClient } from '../../network/public-http-client.js';
import { SearxngBackend, TokenBucket } from '../../network/search/index.js';
import { cancelledResult, errorResult } from '../common.js';
import type { ToolBody } from '../tool-body.js';
import { runSearchBatch } from './batch.js';
import { renderBatch } from './render.js';

/** Longest a query waits for its rate-limit token before it is reported `web_search_rate_limited`, in ms. */
export const RATE_WAIT_MAX_MS = 60_000;

/** What a session without a search backend is told (the blocked refusal and the body's error). */
export const UNCONFIGURED_REASON =
  'web_search is not available in this session: no search backend is configured. Set `network.search` in zuno.json ' +
  '(e.g. {"network": {"search": {"backend": "searxng", "url": "https://searx.example.org"}}}; see docs/web.md) ' +
  'and start the session again.';

const buckets = new Map<string, TokenBucket>();

/** The process-wide bucket of one backend and rate (its burst: the configured concurrency). */
export function bucketFor(config: WebSearchBackendConfig): TokenBucket {
  const key = `${config.kind} ${config.url} ${config.ratePerMinute} ${config.concurrency}`;
  let bucket = buckets.get(key);
  if (!bucket) {
    bucket = new TokenBucket(config.ratePerMinute, Math.max(1, Math.min(config.concurrency, config.ratePerMinute)));
    buckets.set(key, bucket);
  }
  return bucket;
}

/** Why `meta` is not offered `web_search` (undefined: it is). */
export function webSearchUnavailableIn(meta: Pick<SessionMeta, 'network'>): string | undefined {
  return meta.network?.search ? undefined : UNCONFIGURED_REASON;
}

/** The `web_search` body (see module doc). */
export const webSearchTool: ToolBody<WebSearchArgs> = {
  unavailableIn: webSearchUnavailableIn,
  async run(args, ctx): Promise<ToolResult> {
    const config = ctx.network?.search;
    if (!config) return errorResult('web_search_unconfigured', UNCONFIGURED_REASON);
    if (config.keyEnv && !process.env[config.keyEnv])
      return errorResult(
        'web_search_key_missing',
        `web_search: the environment variable ${config.keyEnv} (network.search.key_env) is unset or empty where the tool runs; nothing was sent.`,
      );
    const client = new PublicHttpClient({ allowPrivate: ctx.network?.allowPrivate ?? [] });
    try {
      const outcomes = await runSearchBatch(args.queries, {
        backend: new SearxngBackend(config, client),
        bucket: bucketFor(config),
        concurrency: config.concurrency,
        maxResults: args.max_results ?? WEB_SEARCH_DEFAULT_RESULTS,
        maxWaitMs: RATE_WAIT_MAX_MS,
        ...(ctx.signal ? { signal: ctx.signal } : {}),
        onSettled: (n) => ctx.onProgress?.({ outputBytes: 0, lastLine: `searched ${n} of ${args.queries.length}` }),
      });
      if (ctx.signal?.aborted) return cancelledResult('web_search');
      return renderBatch(outcomes);
    } finally {
      await client.close().catch(() => undefined);
    }
  },
};
