/**
 * NW3: whether the process's proxy variables apply to a URL — `HTTPS_PROXY`
 * for https, `HTTP_PROXY` for http, `ALL_PROXY` for both (either case),
 * unless `NO_PROXY` names the host (exact, a `.suffix`/suffix of the host, or
 * `*`). The guarded client refuses such a URL rather than bypass the proxy.
 */

/** The proxy URL that applies to `url` in `env`, or undefined. */
export function proxyFor(url: URL, env: NodeJS.ProcessEnv): string | undefined {
  const get = (name: string) => env[name] ?? env[name.toLowerCase()];
  const proxy = (url.protocol === 'https:' ? get('HTTPS_PROXY') : get('HTTP_PROXY')) ?? get('ALL_PROXY');
  if (!proxy) return undefined;
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const noProxy = (get('NO_PROXY') ?? '')
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  for (const entry of noProxy) {
    if (entry === '*') return undefined;
    const bare = entry.replace(/^\*?\./, '').replace(/:\d+$/, '');
    if (host === bare || host.endsWith(`.${bare}`)) return undefined;
  }
  return proxy;
}
