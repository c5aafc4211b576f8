/**
 * Endpoint URLs of a provider (PR6: the URL itself is never shown; only its
 * host goes into diagnostics, and everything secret-looking in it is scrubbed).
 */
import { ProviderError } from './errors.js';

/**
 * `{baseUrl}{path}`, keeping any query string of the base URL (e.g. Azure
 * `?api-version=`) after the path and dropping the fragment.
 *
 * @param baseUrl provider base URL up to the API version segment, e.g. `https://api.openai.com/v1`
 * @param path endpoint path starting with `/`, e.g. `/chat/completions`, `/responses`, `/messages`
 * @param providerId configured provider id, only for the error message
 * @throws ProviderError `provider_bad_request` (not retryable) for an unparseable
 *   or non-HTTP(S) base URL; the message never repeats the URL.
 */
export function endpointUrl(baseUrl: string, path: string, providerId?: string): URL {
  let u: URL;
  try {
    u = new URL(baseUrl);
  } catch {
    throw new ProviderError('provider_bad_request', {
      providerId,
      diagnostic: { reason: 'provider baseUrl is not a valid URL' },
    });
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') {
    throw new ProviderError('provider_bad_request', {
      providerId,
      diagnostic: { reason: `provider baseUrl must be http(s), got ${u.protocol}` },
    });
  }
  u.pathname = `${u.pathname.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
  u.hash = '';
  return u;
}

/**
 * Strings of `url` that must never appear in a diagnostic: userinfo and the
 * whole query string, raw and percent-decoded (a key is often passed as
 * `?api-key=…`). Empty parts are skipped.
 */
export function urlSecrets(url: URL): string[] {
  const out: string[] = [];
  for (const part of [url.username, url.password, url.search.slice(1)]) {
    if (part === '') continue;
    out.push(part);
    try {
      const decoded = decodeURIComponent(part);
      if (decoded !== part) out.push(decoded);
    } catch {
      // malformed percent-encoding: the raw form is scrubbed already
    }
  }
  return out;
}
