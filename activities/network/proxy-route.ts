/**
 * NW3: a request through the process's proxy (HTTP_PROXY, HTTPS_PROXY,
 * ALL_PROXY; proxy-env.ts decides which applies). The name is resolved and
 * validated here, exactly as a direct connection's (guarded-lookup.ts); the
 * proxy is then asked to tunnel (`CONNECT <validated address>:<port>`) to
 * that address, never to the name — the proxy cannot resolve it to anything
 * else — while the request keeps the original `Host` header and TLS server
 * name, so certificates are checked against the name. A proxy that cannot be
 * reached or refuses the tunnel fails the request `network_proxy_failed`:
 * it is never sent directly instead.
 */
import type { LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import { ProxyAgent } from 'undici';
import type { Cidr } from './address-class.js';
import { validatedAddresses, type Resolver } from './guarded-lookup.js';

/** Where one proxied request goes: the URL with the validated address as host, and its dispatcher. */
export interface ProxyRoute {
  /** The request URL with the host replaced by the validated address (the port kept). */
  target: URL;
  /** The original `host[:port]`, sent as the `Host` header. */
  host: string;
  agent: ProxyAgent;
}

/**
 * The route of `url` through `proxy`: the name resolved and validated, the
 * first address taken, a proxy agent tunnelling to it (TLS server name =
 * the name).
 * @throws AddressRefused / a resolver error, as a direct connection would.
 */
export async function proxyRoute(
  url: URL,
  proxy: string,
  resolver: Resolver,
  allow: { cidrs: readonly Cidr[]; hosts: readonly string[] },
): Promise<ProxyRoute> {
  const name = url.hostname.replace(/^\[|\]$/g, '');
  const address: LookupAddress = isIP(name)
    ? { address: name, family: isIP(name) }
    : (await validatedAddresses(resolver, allow, name))[0]!;
  const target = new URL(url.href);
  target.hostname = address.family === 6 ? `[${address.address}]` : address.address;
  const agent = new ProxyAgent({
    uri: proxy,
    proxyTunnel: true,
    ...(isIP(name) ? {} : { requestTls: { servername: name } }),
  });
  return { target, host: url.host, agent };
}

/** `scheme://host:port` of a proxy URL: no credentials (they may be in the variable). */
export function proxyShown(proxy: string): string {
  try {
    const u = new URL(proxy);
    return `${u.protocol}//${u.host}`;
  } catch {
    return 'the configured proxy';
  }
}
