/**
 * The typed failure of a guarded web request (NW1, NW3, NW4; issue 31): its
 * error code, the phase that failed, the refusing address class when one did,
 * and the elapsed time. Its message names the URL by scheme, host and path
 * only — never a query string, a header or a key.
 */
import type { ErrorCode } from '../../core/error-codes.js';
import { urlWithoutQuery } from '../../core/url-text.js';

/** Where a guarded request stopped. */
export type NetworkPhase = 'url' | 'resolve' | 'connect' | 'redirect' | 'read';

/** A guarded request's failure (see module doc). */
export class NetworkError extends Error {
  constructor(
    readonly code: ErrorCode,
    readonly phase: NetworkPhase,
    message: string,
    readonly elapsedMs: number,
    readonly addressClass?: string,
  ) {
    super(message);
    this.name = 'NetworkError';
  }
}

/** A URL as diagnostics may show it: scheme, host, port and path; no credentials, query or fragment. */
export function safeUrl(url: URL | string): string {
  return urlWithoutQuery(url) ?? '(malformed URL)';
}
