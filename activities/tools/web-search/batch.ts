/**
 * One `web_search` batch over a single-query backend (NW2, NW4): the
 * queries run `concurrency` at a time, each after taking a token of the rate
 * limit's bucket; a query's failure is its own (the others still run);
 * cancellation stops what has not started and aborts what is in flight.
 * The outcomes come back in the order the queries were given, and a URL
 * already listed under an earlier query (or earlier in the same one) is
 * not listed again — URLs compared with their fragment dropped.
 */
import type { SearchBackend, SearchDiagnostic, SearchResult, TokenBucket } from '../../network/search/index.js';
import { SearchFailure } from '../../network/search/index.js';

/** How a batch runs. */
export interface BatchOptions {
  backend: SearchBackend;
  /** The rate limit (shared by every call to the same backend in this process). */
  bucket: TokenBucket;
  /** Queries in flight at once (≥ 1). */
  concurrency: number;
  /** Most results listed per query. */
  maxResults: number;
  /** Longest a query waits for its token before it is reported `web_search_rate_limited`, in ms. */
  maxWaitMs: number;
  signal?: AbortSignal;
  /** Called as each query settles, with how many have. */
  onSettled?: (settled: number) => void;
}

/** What one query of a batch came to, in the batch's order. */
export type QueryOutcome =
  | { query: string; results: SearchResult[]; /** results not listed: their URL was listed above */ duplicates: number }
  | { query: string; failure: SearchDiagnostic };

/**
 * Runs one batch (see module doc). Never throws for a query's failure;
 * a query that never started because the call was cancelled is a
 * `cancelled` failure.
 */
export async function runSearchBatch(queries: readonly string[], opts: BatchOptions): Promise<QueryOutcome[]> {
  const raw: (SearchResult[] | SearchDiagnostic | undefined)[] = queries.map(() => undefined);
  let next = 0;
  let settled = 0;
  const lane = async () => {
    while (next < queries.length && !opts.signal?.aborted) {
      const i = next++;
      raw[i] = await searchOne(queries[i]!, opts);
      opts.onSettled?.(++settled);
    }
  };
  const lanes = Math.max(1, Math.min(opts.concurrency, queries.length));
  await Promise.all(Array.from({ length: lanes }, lane));
  return dedupe(
    queries,
    raw.map((r) => r ?? { ...opts.backend.where, category: 'cancelled' }),
    opts.maxResults,
  );
}

/** One query: a token, then the backend; every failure as its diagnostic. */
async function searchOne(query: string, opts: BatchOptions): Promise<SearchResult[] | SearchDiagnostic> {
  try {
    if (!(await opts.bucket.take(opts.maxWaitMs, opts.signal)))
      return { ...opts.backend.where, category: 'web_search_rate_limited' };
    return await opts.backend.search(query, opts.signal);
  } catch (err) {
    if (err instanceof SearchFailure) return err.diagnostic;
    // An abort while waiting for a token, or a backend that broke its contract: no message of it is kept.
    return { ...opts.backend.where, category: opts.signal?.aborted ? 'cancelled' : 'web_search_backend_failed' };
  }
}

/** The outcomes in query order, each URL listed once (its first place wins), at most `max` per query. */
function dedupe(
  queries: readonly string[],
  raw: readonly (SearchResult[] | SearchDiagnostic)[],
  max: number,
): QueryOutcome[] {
  const seen = new Set<string>();
  return queries.map((query, i) => {
    const r = raw[i]!;
    if (!Array.isArray(r)) return { query, failure: r };
    const results: SearchResult[] = [];
    let duplicates = 0;
    for (const item of r) {
      if (results.length >= max) break;
      const key = urlKey(item.url);
      if (seen.has(key)) {
        duplicates++;
        continue;
      }
      seen.add(key);
      results.push(item);
    }
    return { query, results, duplicates };
  });
}

/** A URL as de-duplication compares it: parsed (scheme and host lower-cased, default port dropped), fragment dropped. */
export function urlKey(url: string): string {
  try {
    const u = new URL(url);
    u.hash = '';
    return u.href;
  } catch {
    return url;
  }
}
