/**
 * `PublicHttpClient` (NW1, NW3; issue 31 item 1): the one guarded HTTP client
 * of the web tools. GET over http/https only, no credentials in the URL; a
 * literal address is checked before anything is sent; a name is resolved at
 * connect time and refused unless every address is public unicast
 * (guarded-lookup.ts), and the socket connects to exactly the validated
 * addresses; redirects are followed by hand (at most 5), each hop checked
 * again; the body is read up to a byte cap within a total and an idle time
 * limit. `network.allow_private` entries (CIDRs, addresses, host names) are
 * the only way to reach private addresses. A proxy variable that applies to
 * the URL is honoured: the proxy tunnels to the address validated here, and
 * a failing proxy fails the request — it never goes direct (proxy-route.ts,
 * NW3). Failures are
 * {@link NetworkError}s naming the phase, the refusing address class and the
 * elapsed time; no query string, header or key appears in them.
 */
import { Agent, type ProxyAgent, request } from 'undici';
import { proxyRoute, proxyShown } from './proxy-route.js';
import type { ErrorCode } from '../../core/error-codes.js';
import { classifyAddress, parseAllowlist, type Cidr } from './address-class.js';
import { NetworkError, safeUrl, type NetworkPhase } from './errors.js';
import { AddressRefused, guardedLookup, systemResolver, type Resolver } from './guarded-lookup.js';
import { proxyFor } from './proxy-env.js';

/** Most redirects one request follows (NW1). */
export const MAX_REDIRECTS = 5;

/** How a client is built. */
export interface PublicHttpOptions {
  /** Resolves names (default: the system resolver). Tests inject a stub: no public DNS. */
  resolver?: Resolver;
  /** `network.allow_private`: CIDRs, addresses or host names reachable although private. */
  allowPrivate?: readonly string[];
  /** The environment whose proxy variables apply (default `process.env`). */
  env?: NodeJS.ProcessEnv;
}

/** The limits of one request. */
export interface FetchLimits {
  /** Most body bytes read; a longer body fails `network_response_too_large`. */
  maxBytes: number;
  /** The whole request, redirects and body included, in ms. */
  totalTimeoutMs: number;
  /** Longest silence while waiting for headers or body bytes, in ms. */
  idleTimeoutMs: number;
  signal?: AbortSignal;
  headers?: Record<string, string>;
  /**
   * Asked for each redirect hop before it is followed (after the network
   * checks): a reason refuses the hop (`network_redirect_refused`), e.g.
   * the session's permission rules deny or ask for that URL. Absent: none.
   */
  checkRedirect?: (url: URL) => string | undefined;
}

/** A response read whole (within the cap). */
export interface PublicResponse {
  /** The final URL, after redirects. */
  url: string;
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  redirects: number;
  elapsedMs: number;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** The guarded client (see module doc). One per worker or tool context; {@link close} ends its connections. */
export class PublicHttpClient {
  private readonly agent: Agent;
  private readonly allow: { cidrs: Cidr[]; hosts: string[] };
  private readonly env: NodeJS.ProcessEnv;
  private readonly resolver: Resolver;

  constructor(opts: PublicHttpOptions = {}) {
    this.allow = parseAllowlist(opts.allowPrivate ?? []);
    this.env = opts.env ?? process.env;
    this.resolver = opts.resolver ?? systemResolver;
    this.agent = new Agent({ connect: { lookup: guardedLookup(this.resolver, this.allow) } });
  }

  /**
   * GETs `url` (see module doc).
   * @throws NetworkError with its phase: `url` (malformed, not http(s), credentials, a literal private address),
   *   `resolve`, `connect`, `redirect` (too many, or a hop refused), `read` (over the cap, timed out).
   */
  async fetch(url: string, limits: FetchLimits): Promise<PublicResponse> {
    const started = Date.now();
    const elapsed = () => Date.now() - started;
    const signal = AbortSignal.any(
      [AbortSignal.timeout(limits.totalTimeoutMs), ...(limits.signal ? [limits.signal] : [])].filter(Boolean),
    );
    const opened: ProxyAgent[] = [];
    try {
      return await this.follow(url, limits, signal, elapsed, opened);
    } finally {
      await Promise.all(opened.map((a) => a.close().catch(() => undefined)));
    }
  }

  /** The request and its redirects (see {@link fetch}); proxy agents it opens go to `opened`. */
  private async follow(
    url: string,
    limits: FetchLimits,
    signal: AbortSignal,
    elapsed: () => number,
    opened: ProxyAgent[],
  ): Promise<PublicResponse> {
    let current = this.checked(url, 'url', elapsed);
    const origin = current.origin;
    for (let hop = 0; ; hop++) {
      const phase: NetworkPhase = hop === 0 ? 'connect' : 'redirect';
      // A hop to another origin never carries the caller's credentials (an API key's Authorization header).
      const headers = current.origin === origin ? limits.headers : withoutCredentials(limits.headers);
      const proxy = proxyFor(current, this.env);
      const res = proxy
        ? await this.sendProxied(current, proxy, { ...limits, headers }, signal, phase, elapsed, opened)
        : await this.send(current, { ...limits, headers }, signal, phase, elapsed);
      const location = res.headers.location;
      if (REDIRECTS.has(res.statusCode) && typeof location === 'string') {
        await res.body.dump().catch(() => undefined);
        if (hop >= MAX_REDIRECTS) {
          const fail = `more than ${MAX_REDIRECTS} redirects (last ${safeUrl(current)})`;
          throw new NetworkError('network_redirect_refused', 'redirect', fail, elapsed());
        }
        current = this.checked(new URL(location, current).href, 'redirect', elapsed);
        const refused = limits.checkRedirect?.(current);
        if (refused)
          throw new NetworkError('network_redirect_refused', 'redirect', `${safeUrl(current)}: ${refused}`, elapsed());
        continue;
      }
      const body = await readCapped(res.body, limits.maxBytes, current, elapsed);
      return {
        url: current.href,
        status: res.statusCode,
        headers: flatHeaders(res.headers),
        body,
        redirects: hop,
        elapsedMs: elapsed(),
      };
    }
  }

  /** Closes the client's connections. */
  async close(): Promise<void> {
    await this.agent.close();
  }

  /** `url` parsed and checked before anything is sent: scheme, credentials, a literal address's class. */
  private checked(url: string, phase: 'url' | 'redirect', elapsed: () => number): URL {
    let u: URL;
    try {
      u = new URL(url);
    } catch {
      throw new NetworkError(
        phase === 'url' ? 'network_url_invalid' : 'network_redirect_refused',
        phase,
        'not a valid URL',
        elapsed(),
      );
    }
    const code: ErrorCode = phase === 'url' ? 'network_url_invalid' : 'network_redirect_refused';
    if (u.protocol !== 'http:' && u.protocol !== 'https:')
      throw new NetworkError(code, phase, `only http and https URLs are fetched (got ${u.protocol})`, elapsed());
    if (u.username !== '' || u.password !== '')
      throw new NetworkError(code, phase, 'a URL with credentials is refused', elapsed());
    // The WHATWG parser has already turned decimal, octal and hex IPv4 forms into dotted ones.
    const host = u.hostname.replace(/^\[|\]$/g, '');
    if (/^[0-9.]+$/.test(host) || host.includes(':')) {
      const v = classifyAddress(host, this.allow.cidrs);
      if (!v.ok) {
        const fail = `${safeUrl(u)}: ${host} is ${v.addressClass}, not a public address`;
        throw new NetworkError('network_refused', phase, fail, elapsed(), v.addressClass);
      }
    }
    return u;
  }

  /**
   * Sends one GET through `proxy` to the validated address (proxy-route.ts,
   * NW3); the proxy agent goes to `opened`. A refused or unresolvable name
   * fails as a direct request would; anything else the proxy route does
   * fails `network_proxy_failed` — never a direct connection instead.
   */
  private async sendProxied(
    url: URL,
    proxy: string,
    limits: FetchLimits,
    signal: AbortSignal,
    phase: NetworkPhase,
    elapsed: () => number,
    opened: ProxyAgent[],
  ) {
    let route: Awaited<ReturnType<typeof proxyRoute>>;
    try {
      route = await proxyRoute(url, proxy, this.resolver, this.allow);
    } catch (err) {
      throw transportError(err, url, phase, elapsed);
    }
    opened.push(route.agent);
    try {
      return await request(route.target, {
        dispatcher: route.agent,
        method: 'GET',
        headers: { 'user-agent': 'zuno-webfetch', ...limits.headers, host: route.host },
        signal,
        headersTimeout: limits.idleTimeoutMs,
        bodyTimeout: limits.idleTimeoutMs,
      });
    } catch (err) {
      const e = transportError(err, url, phase, elapsed);
      if (e.code === 'network_timeout') throw e;
      const cause = (err as { code?: string; message?: string }).code ?? (err as Error).message;
      const fail = `${safeUrl(url)} through the proxy ${proxyShown(proxy)}: ${String(cause).slice(0, 160)}`;
      throw new NetworkError('network_proxy_failed', phase, fail, elapsed());
    }
  }

  /** Sends one GET; a refusal by the guard or a transport failure becomes a NetworkError of `phase`. */
  private async send(url: URL, limits: FetchLimits, signal: AbortSignal, phase: NetworkPhase, elapsed: () => number) {
    try {
      return await request(url, {
        dispatcher: this.agent,
        method: 'GET',
        headers: { 'user-agent': 'zuno-webfetch', ...limits.headers },
        signal,
        headersTimeout: limits.idleTimeoutMs,
        bodyTimeout: limits.idleTimeoutMs,
      });
    } catch (err) {
      throw transportError(err, url, phase, elapsed);
    }
  }
}

/** A transport failure as a NetworkError: the guard's refusal, resolution, timeouts, connection failures. */
function transportError(err: unknown, url: URL, phase: NetworkPhase, elapsed: () => number): NetworkError {
  const e = err as Error & { code?: string; cause?: unknown };
  const refused = e instanceof AddressRefused ? e : e.cause instanceof AddressRefused ? e.cause : undefined;
  const where = safeUrl(url);
  if (refused) {
    const fail = `${where}: ${url.hostname} resolves to ${refused.address}, which is ${refused.addressClass}, not a public address`;
    return new NetworkError(
      'network_refused',
      phase === 'connect' ? 'resolve' : phase,
      fail,
      elapsed(),
      refused.addressClass,
    );
  }
  const code = e.code ?? (e.cause as { code?: string } | undefined)?.code;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN')
    return new NetworkError(
      'network_resolve_failed',
      phase === 'connect' ? 'resolve' : phase,
      `${where}: ${url.hostname} does not resolve`,
      elapsed(),
    );
  if (e.name === 'TimeoutError' || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_CONNECT_TIMEOUT')
    return new NetworkError('network_timeout', phase, `${where}: no answer in time`, elapsed());
  return new NetworkError('network_connect_failed', phase, `${where}: ${code ?? e.message}`, elapsed());
}

/** The body up to `max` bytes; past it, or stalled or out of time, a `read` NetworkError. */
async function readCapped(
  body: AsyncIterable<Buffer> & { destroy(err?: Error): unknown },
  max: number,
  url: URL,
  elapsed: () => number,
): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of body) {
      size += chunk.length;
      if (size > max) {
        body.destroy();
        throw new NetworkError(
          'network_response_too_large',
          'read',
          `${safeUrl(url)}: larger than ${max} bytes`,
          elapsed(),
        );
      }
      chunks.push(chunk);
    }
  } catch (err) {
    if (err instanceof NetworkError) throw err;
    throw new NetworkError(
      'network_timeout',
      'read',
      `${safeUrl(url)}: the body stopped or ran out of time`,
      elapsed(),
    );
  }
  return Buffer.concat(chunks);
}

/** `headers` without `authorization`, `proxy-authorization` and `cookie` (any case). */
function withoutCredentials(headers: Record<string, string> | undefined): Record<string, string> | undefined {
  if (!headers) return undefined;
  const secret = new Set(['authorization', 'proxy-authorization', 'cookie']);
  return Object.fromEntries(Object.entries(headers).filter(([k]) => !secret.has(k.toLowerCase())));
}

/** Response headers as one string each (repeated headers joined by `, `). */
function flatHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) if (v !== undefined) out[k] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}
