/**
 * The `web_search` backend contract (NW4; issue 31 item 3): a single-query
 * provider the tool batches over. A backend answers one query with its
 * results in its own ranking order, or fails with a {@link SearchFailure}
 * whose diagnostics carry only provider, scheme, host, path, status and
 * error category — never a key, an authorization header, the query or the
 * keyed wire URL.
 */
import type { ErrorCode } from '../../../core/error-codes.js';

/** One search result as the tool lists it. */
export interface SearchResult {
  title: string;
  /** An http(s) URL. */
  url: string;
  /** The backend's excerpt of the page (may be empty). */
  snippet: string;
}

/** What a failure may say about where it happened (NW4: these fields and nothing else). */
export interface SearchDiagnostic {
  /** The backend kind (`searxng`). */
  provider: string;
  /** `http` or `https`. */
  scheme: string;
  /** Host and port of the backend. */
  host: string;
  /** The request path, without its query. */
  path: string;
  /** The HTTP status, when the backend answered. */
  status?: number;
  /** The error category: an error code from core/error-codes.ts. */
  category: ErrorCode;
}

/** A backend's typed failure of one query (see {@link SearchDiagnostic}). */
export class SearchFailure extends Error {
  constructor(readonly diagnostic: SearchDiagnostic) {
    super(describeFailure(diagnostic));
    this.name = 'SearchFailure';
  }
}

/** One line naming a failure by its diagnostic fields only, e.g. `searxng https://s.example/search: HTTP 500 (web_search_backend_failed)`. */
export function describeFailure(d: SearchDiagnostic): string {
  const status = d.status !== undefined ? `HTTP ${d.status} ` : '';
  return `${d.provider} ${d.scheme}://${d.host}${d.path}: ${status}(${d.category})`;
}

/** A single-query search provider. */
export interface SearchBackend {
  /** Where the backend's requests go, as diagnostics may name it (provider, scheme, host, path). */
  readonly where: Omit<SearchDiagnostic, 'status' | 'category'>;
  /**
   * Searches one query.
   * @returns the results in the backend's order (possibly more than the tool lists).
   * @throws SearchFailure for every failure (transport, status, body); an abort by `signal` too.
   */
  search(query: string, signal?: AbortSignal): Promise<SearchResult[]>;
}
