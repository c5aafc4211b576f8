/**
 * A URL as Zuno shows, summarizes, matches and reports it (NW4; issue 31):
 * `scheme://host[:port]/path` as the WHATWG parser normalizes it — no
 * credentials, query or fragment, so no key a query carries reaches a
 * diagnostic, a summary or a permission rule. Pure: `URL` is a global of the
 * workflow sandbox too.
 */

/** `scheme://host[:port]/path` of `url`, or null when it does not parse as a URL. */
export function urlWithoutQuery(url: string | URL): string | null {
  try {
    const u = typeof url === 'string' ? new URL(url) : url;
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return null;
  }
}

/** {@link urlWithoutQuery}, or — for text that does not parse — the text cut before its first `?` or `#`. */
export function urlShown(url: string): string {
  return urlWithoutQuery(url) ?? url.split(/[?#]/, 1)[0] ?? '';
}
