/**
 * The SSRF table of the guarded web client (NW1, NW3; issue 31 item 1),
 * against a real HTTP server on loopback and a stub resolver (no public
 * DNS): every special-purpose address in literal, hex, decimal, octal and
 * IPv6-wrapped forms, names resolving to private or mixed addresses,
 * redirects to private hops, too many redirects, a body past the cap, a
 * trickle past the time limit, malformed URLs and proxies — each refused
 * with its phase before a byte reaches the server. The loopback server is
 * reachable only when allowlisted.
 */
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import type { LookupAddress } from 'node:dns';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NetworkError } from '../../activities/network/errors.js';
import { PublicHttpClient, type FetchLimits } from '../../activities/network/public-http-client.js';

let server: Server;
let port = 0;
let hits: string[] = [];
let hosts: string[] = [];

/** A CONNECT proxy on loopback that records each tunnel's target (`host:port`). */
async function connectProxy(): Promise<{ url: string; port: number; connects: string[]; close(): Promise<void> }> {
  const connects: string[] = [];
  const proxy = createServer();
  const sockets = new Set<Socket>();
  proxy.on('connect', (req, client: Socket, head: Buffer) => {
    connects.push(req.url ?? '');
    const [host, p] = (req.url ?? '').split(':');
    const upstream = connect(Number(p), host!, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client).pipe(upstream);
    });
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => undefined);
      s.on('close', () => sockets.delete(s));
    }
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  const p = (proxy.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${p}`,
    port: p,
    connects,
    close: () =>
      new Promise((r) => {
        for (const s of sockets) s.destroy();
        proxy.close(() => r());
      }),
  };
}

beforeAll(async () => {
  server = createServer((req, res) => {
    hits.push(req.url ?? '');
    hosts.push(req.headers.host ?? '');
    const u = new URL(req.url ?? '/', 'http://x');
    if (u.pathname === '/ok') return res.end('hello');
    if (u.pathname === '/to') {
      res.writeHead(302, { location: u.searchParams.get('url')! });
      return res.end();
    }
    if (u.pathname === '/chain') {
      const n = Number(u.searchParams.get('n'));
      res.writeHead(302, { location: n > 0 ? `/chain?n=${n - 1}` : '/ok' });
      return res.end();
    }
    if (u.pathname === '/big') return res.end(Buffer.alloc(64 * 1024, 'x'));
    if (u.pathname === '/trickle') {
      res.writeHead(200);
      const t = setInterval(() => res.write('.'), 50);
      res.on('close', () => clearInterval(t));
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise((r) => server.close(r)));

const names: Record<string, string[]> = {
  'allowed.test': ['127.0.0.1'],
  'loop.test': ['127.0.0.1'],
  'private.test': ['10.0.0.7'],
  'metadata.test': ['169.254.169.254'],
  'mixed.test': ['93.184.216.34', '127.0.0.1'],
  'mapped.test': ['::ffff:7f00:1'],
};
const stub = async (hostname: string): Promise<LookupAddress[]> => {
  const list = names[hostname];
  if (!list) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
  return list.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
};
const limits: FetchLimits = { maxBytes: 16 * 1024, totalTimeoutMs: 10_000, idleTimeoutMs: 5_000 };
const client = (allowPrivate: string[] = ['allowed.test'], env: NodeJS.ProcessEnv = {}) =>
  new PublicHttpClient({ resolver: stub, allowPrivate, env });

/** The NetworkError a fetch ends with (fails the test when it succeeds). */
async function refusal(c: PublicHttpClient, url: string, l: FetchLimits = limits): Promise<NetworkError> {
  const err = await c.fetch(url, l).then(
    () => new Error(`${url} was fetched`),
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(NetworkError);
  return err as NetworkError;
}

describe('literal special-purpose addresses are refused before anything is sent', () => {
  const literal = () => [
    ['127.0.0.1', 'loopback'],
    ['0x7f.1', 'loopback'],
    ['2130706433', 'loopback'],
    ['0177.0.0.1', 'loopback'],
    ['0x7f000001', 'loopback'],
    ['[::1]', 'loopback'],
    ['[::ffff:7f00:1]', 'ipv4Mapped:loopback'],
    ['[::ffff:127.0.0.1]', 'ipv4Mapped:loopback'],
    ['[::7f00:1]', 'ipv4Compatible:loopback'],
    ['[64:ff9b::7f00:1]', 'rfc6052:loopback'],
    ['[64:ff9b::a9fe:a9fe]', 'rfc6052:linkLocal'],
    ['169.254.169.254', 'linkLocal'],
    ['0xa9.0xfe.0xa9.0xfe', 'linkLocal'],
    ['10.0.0.1', 'private'],
    ['192.168.1.1', 'private'],
    ['172.16.0.1', 'private'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['224.0.0.1', 'multicast'],
    ['0.0.0.0', 'unspecified'],
    ['192.0.2.1', 'reserved'],
    ['[fe80::1]', 'linkLocal'],
    ['[fc00::1]', 'uniqueLocal'],
    ['[2001:db8::1]', 'reserved'],
    ['[2002:7f00:1::]', '6to4'],
  ];
  it.each(literal())('%s → %s', async (host, addressClass) => {
    hits = [];
    const err = await refusal(client(), `http://${host}:${port}/ok?key=SECRET`);
    expect(err).toMatchObject({ code: 'network_refused', phase: 'url', addressClass });
    expect(err.message).not.toContain('SECRET');
    expect(hits).toEqual([]);
  });
});

describe('names, redirects, caps and URLs', () => {
  it.each([
    ['loop.test', 'loopback'],
    ['private.test', 'private'],
    ['metadata.test', 'linkLocal'],
    ['mixed.test', 'loopback'],
    ['mapped.test', 'ipv4Mapped:loopback'],
  ])('a name resolving to %s is refused at resolve (%s)', async (name, addressClass) => {
    hits = [];
    const err = await refusal(client(), `http://${name}:${port}/ok`);
    expect(err).toMatchObject({ code: 'network_refused', phase: 'resolve', addressClass });
    expect(hits).toEqual([]);
  });

  it('the loopback server is reachable only when allowlisted (by name or by CIDR)', async () => {
    const byName = await client().fetch(`http://allowed.test:${port}/ok`, limits);
    expect([byName.status, byName.body.toString()]).toEqual([200, 'hello']);
    const byCidr = await client(['127.0.0.0/8']).fetch(`http://127.0.0.1:${port}/ok`, limits);
    expect(byCidr.body.toString()).toBe('hello');
    expect((await refusal(client([]), `http://allowed.test:${port}/ok`)).phase).toBe('resolve');
  });

  it('a redirect to a private hop is refused at that hop: only the redirecting request reached the server', async () => {
    for (const target of [`http://loop.test:${port}/ok`, `http://127.0.0.1:${port}/ok`, 'http://[::ffff:a9fe:a9fe]/']) {
      hits = [];
      const err = await refusal(client(), `http://allowed.test:${port}/to?url=${encodeURIComponent(target)}`);
      expect(err).toMatchObject({ code: 'network_refused', phase: 'redirect' });
      expect(hits).toHaveLength(1);
    }
  });

  it('5 redirects are followed, a 6th is refused', async () => {
    const five = await client().fetch(`http://allowed.test:${port}/chain?n=4`, limits);
    expect([five.body.toString(), five.redirects]).toEqual(['hello', 5]);
    const six = await refusal(client(), `http://allowed.test:${port}/chain?n=5`);
    expect(six).toMatchObject({ code: 'network_redirect_refused', phase: 'redirect' });
  });

  it('a body past the cap and a trickle past the time limit end in the read phase', async () => {
    const big = await refusal(client(), `http://allowed.test:${port}/big`);
    expect(big).toMatchObject({ code: 'network_response_too_large', phase: 'read' });
    const slow = await refusal(client(), `http://allowed.test:${port}/trickle`, {
      ...limits,
      maxBytes: 1024 * 1024,
      totalTimeoutMs: 500,
    });
    expect(slow).toMatchObject({ code: 'network_timeout', phase: 'read' });
  });

  it.each([
    ['not a url', 'network_url_invalid'],
    [`ftp://allowed.test:${port}/`, 'network_url_invalid'],
    [`http://user:pw@allowed.test:${port}/ok`, 'network_url_invalid'],
    [`http://nowhere.test:${port}/ok`, 'network_resolve_failed'],
  ])('%s → %s', async (url, code) => {
    const err = await refusal(client(), url);
    expect(err.code).toBe(code);
    expect(err.message).not.toContain('pw');
  });

  it('a proxy that applies is used: it tunnels to the validated address, the Host header keeps the name', async () => {
    const proxy = await connectProxy();
    try {
      hosts = [];
      const proxied = client(['allowed.test'], { HTTP_PROXY: proxy.url });
      const res = await proxied.fetch(`http://allowed.test:${port}/ok`, limits);
      expect(res.body.toString()).toBe('hello');
      expect(proxy.connects).toEqual([`127.0.0.1:${port}`]); // the address, never the name
      expect(hosts).toEqual([`allowed.test:${port}`]);
      // A name resolving to a private address is refused before the proxy hears of it.
      const refused = await refusal(client([], { HTTP_PROXY: proxy.url }), `http://private.test:${port}/ok`);
      expect(refused).toMatchObject({ code: 'network_refused', phase: 'resolve', addressClass: 'private' });
      expect(proxy.connects).toHaveLength(1);
      const direct = client(['allowed.test'], { HTTP_PROXY: proxy.url, NO_PROXY: 'allowed.test' });
      expect((await direct.fetch(`http://allowed.test:${port}/ok`, limits)).body.toString()).toBe('hello');
      expect(proxy.connects).toHaveLength(1); // NO_PROXY: direct
    } finally {
      await proxy.close();
    }
  });

  it('a proxy that cannot be reached fails the request: it never goes direct', async () => {
    const gone = await connectProxy();
    await gone.close();
    hits = [];
    const proxied = client(['allowed.test'], { HTTP_PROXY: `http://user:s3cret@127.0.0.1:${gone.port}` });
    const err = await refusal(proxied, `http://allowed.test:${port}/ok?key=abc`);
    expect(err).toMatchObject({ code: 'network_proxy_failed', phase: 'connect' });
    expect(err.message).not.toMatch(/s3cret|key=abc/);
    expect(hits).toEqual([]);
  });

  it('a rebinding resolver cannot swap a private address in: only the address validated is connected', async () => {
    let calls = 0;
    const rebinding = new PublicHttpClient({
      resolver: async () => [{ address: calls++ === 0 ? '1.2.3.4' : '127.0.0.1', family: 4 }],
    });
    hits = [];
    const err = await refusal(rebinding, `http://rebind.test:${port}/ok`, { ...limits, totalTimeoutMs: 2_000 });
    // It went to 1.2.3.4 (unreachable here) and never to the loopback server.
    expect(['connect', 'read']).toContain(err.phase);
    expect(calls).toBe(1);
    expect(hits).toEqual([]);
  });
});
