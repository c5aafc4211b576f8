/**
 * The SearXNG backend of `web_search` (NW4; issue 31 item 3; docs/web.md):
 * `GET <url>/search?q=<query>&format=json` through the guarded
 * {@link PublicHttpClient} (the session's `network.allow_private` applies),
 * `results[].{title, url, content}` read as {title, url, snippet}. An API
 * key, when `network.search.key_env` names one, is read from the
 * environment at each request and sent as `Authorization: Bearer …` — to
 * the instance's origin only (the client drops it on a hop elsewhere). No
 * failure names the key, the header, the query or the wire URL: each is a
 * {@link SearchFailure} with provider, scheme, host, path, status and
 * category only.
 */
import { z } from 'zod';
import type { ErrorCode } from '../../../core/error-codes.js';
import type { WebSearchBackendConfig } from '../../../core/network.js';
import { NetworkError } from '../errors.js';
import type { PublicHttpClient } from '../public-http-client.js';
import { SearchFailure, type SearchBackend, type SearchDiagnostic, type SearchResult } from './backend.js';

/** Most bytes of one SearXNG answer read (a page of results is tens of KiB). */
export const SEARXNG_MAX_BYTES = 2 * 1024 * 1024;
/** Longest one query's request may take, redirects and body included, in ms. */
export const SEARXNG_TIMEOUT_MS = 20_000;
/** Longest silence while waiting for the answer's headers or bytes, in ms. */
export const SEARXNG_IDLE_MS = 10_000;
/** Longest title and snippet kept, in UTF-16 code units. */
const TITLE_MAX = 200;
const SNIPPET_MAX = 400;

const Answer = z.looseObject({
  results: z.array(
    z.looseObject({
      url: z.string(),
      title: z.string().optional().catch(undefined),
      content: z.string().optional().catch(undefined),
    }),
  ),
});

/** A SearXNG instance's JSON API as a {@link SearchBackend} (see module doc). */
export class SearxngBackend implements SearchBackend {
  readonly where: Omit<SearchDiagnostic, 'status' | 'category'>;
  private readonly endpoint: URL;

  /**
   * @param config the session's `network.search` (kind `searxng`).
   * @param client the guarded client the requests go through (its allowlist is the session's).
   * @param env where the key variable is read at each request (default `process.env`).
   */
  constructor(
    private readonly config: WebSearchBackendConfig,
    private readonly client: PublicHttpClient,
    private readonly env: NodeJS.ProcessEnv = process.env,
  ) {
    const base = new URL(config.url);
    if (!base.pathname.endsWith('/')) base.pathname += '/';
    this.endpoint = new URL('search', base);
    this.where = {
      provider: 'searxng',
      scheme: this.endpoint.protocol.replace(/:$/, ''),
      host: this.endpoint.host,
      path: this.endpoint.pathname,
    };
  }

  /** Searches one query (see {@link SearchBackend.search}). */
  async search(query: string, signal?: AbortSignal): Promise<SearchResult[]> {
    const key = this.key();
    const url = new URL(this.endpoint);
    url.searchParams.set('q', query);
    url.searchParams.set('format', 'json');
    let res;
    try {
      res = await this.client.fetch(url.href, {
        maxBytes: SEARXNG_MAX_BYTES,
        totalTimeoutMs: SEARXNG_TIMEOUT_MS,
        idleTimeoutMs: SEARXNG_IDLE_MS,
        ...(signal ? { signal } : {}),
        headers: {
          accept: 'application/json',
          'user-agent': 'zuno-web-search',
          ...(key ? { authorization: `Bearer ${key}` } : {}),
        },
      });
    } catch (err) {
      // The client's own message names scheme, host and path only; the category is all that is kept of it.
      if (signal?.aborted) throw this.failure('cancelled');
      if (err instanceof NetworkError) throw this.failure(err.code);
      throw this.failure('network_connect_failed');
    }
    if (res.status === 429) throw this.failure('web_search_rate_limited', res.status);
    if (res.status < 200 || res.status > 299) throw this.failure('web_search_backend_failed', res.status);
    return this.results(res.body, res.status);
  }

  /** The key from the variable `keyEnv` names, read now; undefined when none is configured. */
  private key(): string | undefined {
    if (!this.config.keyEnv) return undefined;
    const key = this.env[this.config.keyEnv];
    if (!key) throw this.failure('web_search_key_missing');
    return key;
  }

  /** The answer's results: entries without an http(s) URL are skipped; titles and snippets are flattened and cut. */
  private results(body: Buffer, status: number): SearchResult[] {
    let parsed;
    try {
      parsed = Answer.safeParse(JSON.parse(body.toString('utf8')));
    } catch {
      throw this.failure('web_search_backend_failed', status);
    }
    if (!parsed.success) throw this.failure('web_search_backend_failed', status);
    return parsed.data.results.flatMap((r) => {
      if (!/^https?:\/\//i.test(r.url) || !URL.canParse(r.url)) return [];
      return [{ title: flat(r.title ?? '', TITLE_MAX), url: r.url, snippet: flat(r.content ?? '', SNIPPET_MAX) }];
    });
  }

  private failure(category: ErrorCode, status?: number): SearchFailure {
    return new SearchFailure({ ...this.where, category, ...(status !== undefined ? { status } : {}) });
  }
}

/** `text` on one line (runs of whitespace and control characters as one space), cut to `max` with `…`. */
function flat(text: string, max: number): string {
  // eslint-disable-next-line no-control-regex
  const one = text.replace(/[\s\u0000-\u001f\u007f]+/g, ' ').trim();
  return one.length <= max ? one : `${one.slice(0, max - 1)}…`;
}
