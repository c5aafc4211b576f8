/**
 * What a session knows about the network tools (issue 31, NW1–NW6): zuno.json
 * `network` resolved at start and carried in `SessionMeta.network`. Pure types;
 * the guarded client is activities/network/, the config parser
 * client/network-config.ts (docs/web.md).
 */

/**
 * A `web_search` backend (NW4; SEED-GAP NW6 decided in docs/web.md): one
 * single-query provider the tool batches over. `searxng`: a SearXNG
 * instance's JSON API (`GET <url>/search?q=…&format=json`).
 */
export interface WebSearchBackendConfig {
  kind: 'searxng';
  /** Base URL of the instance, http(s), no query, no credentials. */
  url: string;
  /** Name of the environment variable holding an API key sent as a bearer token (never the key itself: it stays out of history). */
  keyEnv?: string;
  /** Requests per minute the tool sends at most (a token bucket). */
  ratePerMinute: number;
  /** Queries of one call in flight at once. */
  concurrency: number;
}

/** zuno.json `network` as a session carries it. */
export interface NetworkSessionConfig {
  /**
   * `network.allow_private`: the only private addresses, CIDRs and host names
   * the guarded client may reach (NW3), as written (checked at start).
   */
  allowPrivate: string[];
  /** `network.search`: absent — `web_search` is not offered, and says why when called. */
  search?: WebSearchBackendConfig;
}
