/**
 * Declaration of `web_search` (NW2, NW4, NW5; issue 31 item 3; SEED-GAP NW6
 * decided in docs/web.md): a batch of queries sent to the session's search
 * backend (zuno.json `network.search`), results grouped per query in the
 * order given, each URL listed once across the batch. ReadOnly, Safe,
 * ParallelSafe; no strict ask (NW5). Offered only when the session has a
 * search backend. The body is activities/tools/web-search/. Deterministic.
 */
import { z } from 'zod';
import { summaryLine } from './summary.js';
import type { ToolDeclaration } from './types.js';

/** Most queries one call sends (a batch). */
export const WEB_SEARCH_MAX_QUERIES = 8;
/** Longest query, in UTF-16 code units. */
export const WEB_SEARCH_MAX_QUERY_CHARS = 400;
/** Most results listed per query. */
export const WEB_SEARCH_MAX_RESULTS = 10;
/** Results listed per query when `max_results` is absent. */
export const WEB_SEARCH_DEFAULT_RESULTS = 5;

/** Arguments of `web_search`. */
export const webSearchArgs = z.strictObject({
  queries: z
    .array(
      z
        .string()
        .trim()
        .min(1, 'a query must not be empty')
        .max(WEB_SEARCH_MAX_QUERY_CHARS, `a query is at most ${WEB_SEARCH_MAX_QUERY_CHARS} characters`),
    )
    .min(1)
    .max(WEB_SEARCH_MAX_QUERIES)
    .describe(
      `The search queries, 1 to ${WEB_SEARCH_MAX_QUERIES}, each a short phrase as typed into a search engine; results come back grouped per query in this order.`,
    ),
  max_results: z
    .number()
    .int()
    .min(1)
    .max(WEB_SEARCH_MAX_RESULTS)
    .optional()
    .describe(`Most results listed per query (default ${WEB_SEARCH_DEFAULT_RESULTS}).`),
});
/** Parsed arguments of `web_search`. */
export type WebSearchArgs = z.infer<typeof webSearchArgs>;

/**
 * `web_search` (see module doc). The summary names the number of queries
 * and the first query, cut to one short line (the queries are the model's
 * own arguments; no backend, key or wire URL is known here).
 */
export const webSearchDeclaration: ToolDeclaration<WebSearchArgs> = {
  name: 'web_search',
  effect: 'ReadOnly',
  replay: 'Safe',
  concurrency: 'ParallelSafe',
  args: webSearchArgs,
  summarize: (a) => {
    const more = a.queries.length > 1 ? ` (+${a.queries.length - 1} more)` : '';
    return summaryLine(`web_search: ${summaryLine(a.queries[0] ?? '', 60)}${more}`);
  },
};
