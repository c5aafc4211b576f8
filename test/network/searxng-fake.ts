/**
 * A fake SearXNG instance for the `web_search` tests: a real HTTP server on
 * 127.0.0.1 answering `GET …/search?q=…&format=json`. Each request is
 * recorded (query, authorization header, path) and held until the test
 * releases it, unless the server answers at once (`hold: false`); the
 * answer for a query comes from `answers` (a result list, or a status).
 * It counts the requests in flight and their most at once.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the fake answers for one query: results (`content` is the snippet), or an HTTP status with a body. */
export type FakeAnswer =
  { results: { url: string; title?: string; content?: string }[] } | { status: number; body?: string };

/** One request the fake received. */
export interface FakeRequest {
  query: string;
  path: string;
  format: string | null;
  authorization: string | undefined;
}

/** A fake SearXNG server (see module doc). */
export interface FakeSearxng {
  url: string;
  port: number;
  requests: FakeRequest[];
  /** Requests received and not answered yet, in arrival order. */
  pending: { query: string; release(): void }[];
  inFlight(): number;
  maxInFlight(): number;
  /** Answers held requests (all, or those of `query`). */
  release(query?: string): void;
  close(): Promise<void>;
}

/**
 * Starts the fake.
 * @param answers per query; a query without one gets an empty result list.
 * @param opts.hold hold every request until released (default true).
 * @param opts.redirect answer every request with a 302 to this URL (query string kept).
 */
export async function startFakeSearxng(
  answers: Record<string, FakeAnswer>,
  opts: { hold?: boolean; redirect?: string } = {},
): Promise<FakeSearxng> {
  const requests: FakeRequest[] = [];
  const pending: { query: string; release(): void }[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const answer = (q: string, res: ServerResponse) => {
    const a = answers[q] ?? { results: [] };
    if ('status' in a) res.writeHead(a.status, { 'content-type': 'text/plain' }).end(a.body ?? 'error');
    else res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ query: q, ...a }));
  };
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const u = new URL(req.url ?? '/', 'http://fake');
    const query = u.searchParams.get('q') ?? '';
    requests.push({
      query,
      path: u.pathname,
      format: u.searchParams.get('format'),
      authorization: req.headers.authorization,
    });
    if (opts.redirect) {
      res.writeHead(302, { location: `${opts.redirect}${u.search}` }).end();
      return;
    }
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    const release = () => {
      const i = pending.findIndex((p) => p.release === release);
      if (i >= 0) pending.splice(i, 1);
      inFlight--;
      answer(query, res);
    };
    if (opts.hold === false) release();
    else pending.push({ query, release });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    pending,
    inFlight: () => inFlight,
    maxInFlight: () => maxInFlight,
    release(query) {
      for (const p of [...pending]) if (query === undefined || p.query === query) p.release();
    },
    close: () =>
      new Promise<void>((r) => {
        for (const p of [...pending]) p.release();
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** Resolves once `cond()` holds (polled every 5 ms), or rejects after `ms` naming `what`. */
export async function until(cond: () => boolean, what: string, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}
