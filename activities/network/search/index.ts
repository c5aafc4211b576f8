/**
 * The `web_search` backends (NW4; issue 31 item 3): the single-query
 * contract, the SearXNG implementation and the rate limit's token bucket.
 */
export {
  SearchFailure,
  describeFailure,
  type SearchBackend,
  type SearchDiagnostic,
  type SearchResult,
} from './backend.js';
export { SearxngBackend } from './searxng.js';
export { TokenBucket, systemClock, type Clock } from './token-bucket.js';
