/**
 * The text a URL subject is matched as (issue 31, NW5; docs/web.md
 * "Permission rules"): the URL as the WHATWG parser normalizes it, cut to
 * `scheme://host[:port]/path` — scheme and host lower-cased, a default port
 * dropped, the path percent-encoded, no credentials, query or fragment. So
 * `HTTPS://Docs.Example.com:443/a b?key=1` is `https://docs.example.com/a%20b`,
 * and a rule pattern such as `https://docs.example.com/*` matches it. Pure:
 * `URL` is a global of the workflow sandbox too.
 */
import { urlShown } from '../url-text.js';

/**
 * The matched form of `url` (see module doc).
 * @param url the URL as the model wrote it.
 * @returns `scheme://host[:port]/path`; text that does not parse as a URL is cut before its first `?` or `#`
 *   (never thrown: such a call is refused by its argument schema anyway).
 */
export function urlSubjectText(url: string): string {
  return urlShown(url);
}
