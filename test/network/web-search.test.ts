/**
 * `web_search` against a fake SearXNG on loopback (issue 31 item 3; NW2,
 * NW4): the batch runs at most `concurrency` queries at once, its results
 * come back in the order of the queries whatever order the backend answers
 * in, a URL is listed once across the batch, a failing query is reported in
 * its own section while the others return, the key reaches the backend as a
 * bearer token and nowhere else, the rate limit's bucket holds the third
 * request until its clock moves, cancellation stops the batch, and the
 * session's allowlist applies. The rate-limit tests drive a hand-moved
 * clock: nothing depends on how fast the machine is.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { NetworkSessionConfig } from '../../core/network.js';
import type { ToolResult } from '../../core/tools/types.js';
import { PublicHttpClient } from '../../activities/network/public-http-client.js';
import { SearxngBackend, TokenBucket, type Clock } from '../../activities/network/search/index.js';
import { runSearchBatch } from '../../activities/tools/web-search/batch.js';
import { toolImplementations } from '../../activities/tools/index.js';
import type { ToolContext } from '../../activities/tools/context.js';
import { startFakeSearxng, until, type FakeSearxng } from './searxng-fake.js';

const KEY_ENV = 'ZUNO_TEST_WEB_SEARCH_KEY';
const KEY = 'sk-test-5f1e0c9a-secret';
const fakes: FakeSearxng[] = [];
afterEach(() => {
  delete process.env[KEY_ENV];
});
afterAll(async () => {
  for (const f of fakes) await f.close();
});

async function fake(...args: Parameters<typeof startFakeSearxng>): Promise<FakeSearxng> {
  const f = await startFakeSearxng(...args);
  fakes.push(f);
  return f;
}

/** A session's network settings for the fake at `path` under its base URL (a path per test: a bucket per test). */
function network(
  f: FakeSearxng,
  path: string,
  o: { rate?: number; concurrency?: number; keyEnv?: string; allow?: string[] } = {},
): NetworkSessionConfig {
  return {
    allowPrivate: o.allow ?? ['127.0.0.1'],
    search: {
      kind: 'searxng',
      url: `${f.url}/${path}`,
      ratePerMinute: o.rate ?? 600,
      concurrency: o.concurrency ?? 2,
      ...(o.keyEnv ? { keyEnv: o.keyEnv } : {}),
    },
  };
}

function run(args: unknown, net: NetworkSessionConfig | undefined, signal?: AbortSignal): Promise<ToolResult> {
  const ctx: ToolContext = {
    workspace: '/nonexistent-workspace',
    sessionId: 'ses_websearch',
    rowId: 'tc_0_0_0',
    callId: 'c1',
    ...(net ? { network: net } : {}),
    ...(signal ? { signal } : {}),
  };
  return toolImplementations.web_search!.run(args, ctx);
}

/** A clock the test moves: sleepers wake when `advance` passes their deadline. */
function manualClock(): Clock & { advance(ms: number): void; sleepers(): number } {
  let now = 0;
  let sleepers: { at: number; wake(): void }[] = [];
  return {
    now: () => now,
    sleep: (ms, signal) =>
      new Promise<void>((resolve, reject) => {
        const s = { at: now + ms, wake: resolve };
        sleepers.push(s);
        signal?.addEventListener('abort', () => {
          sleepers = sleepers.filter((x) => x !== s);
          reject(signal.reason as Error);
        });
      }),
    advance(ms) {
      now += ms;
      const due = sleepers.filter((s) => s.at <= now);
      sleepers = sleepers.filter((s) => s.at > now);
      for (const s of due) s.wake();
    },
    sleepers: () => sleepers.length,
  };
}

describe('web_search batches (NW2)', () => {
  it('runs at most `concurrency` queries at once and lists every query in order', async () => {
    const f = await fake({});
    const queries = ['q1', 'q2', 'q3', 'q4', 'q5'];
    const result = run({ queries }, network(f, 'conc', { concurrency: 2 }));
    let answered = 0;
    while (answered < queries.length) {
      const expected = Math.min(2, queries.length - answered);
      await until(() => f.pending.length === expected, `${expected} requests in flight`);
      // A third request would arrive in this pause if the batch ignored its concurrency.
      await new Promise((r) => setTimeout(r, 100));
      expect(f.inFlight()).toBe(expected);
      answered += expected;
      f.release();
    }
    const r = await result;
    expect(f.maxInFlight()).toBe(2);
    expect(r.isError).toBe(false);
    expect(r.output.match(/^## \d+\. .*$/gm)).toEqual(queries.map((q, i) => `## ${i + 1}. ${q}`));
  });

  it('keeps query order whatever order the backend answers in, de-duplicates URLs, and reports a failure per query', async () => {
    const f = await fake({
      alpha: {
        results: [
          { url: 'https://a.example/one', title: 'One', content: 'first page' },
          { url: 'https://a.example/two#intro', title: 'Two' },
          { url: 'https://A.example:443/three', title: 'Three', content: 'third\n  page' },
        ],
      },
      beta: {
        results: [
          { url: 'https://a.example/two', title: 'Two again' },
          { url: 'https://b.example/four', title: 'Four' },
          { url: 'https://a.example/three', title: 'Three again' },
        ],
      },
      broken: { status: 500 },
      gamma: {
        results: [
          { url: 'https://a.example/one#x', title: 'One again' },
          { url: 'ftp://c.example/skip', title: 'not http' },
          { url: 'https://c.example/five', title: 'Five' },
        ],
      },
    });
    process.env[KEY_ENV] = KEY;
    const result = run(
      { queries: ['alpha', 'beta', 'broken', 'gamma'] },
      network(f, 'order', { concurrency: 4, keyEnv: KEY_ENV }),
    );
    await until(() => f.pending.length === 4, 'the whole batch in flight');
    // Answered last to first: the output must not follow completion order.
    for (const q of ['gamma', 'broken', 'beta', 'alpha']) f.release(q);
    const r = await result;

    expect(r.isError).toBe(false);
    expect(r.output).toBe(
      [
        'web_search: 4 queries, 5 result(s), 3 repeated URL(s) omitted, 1 failed.',
        '## 1. alpha\n1. One\n   https://a.example/one\n   first page\n2. Two\n   https://a.example/two#intro\n3. Three\n   https://A.example:443/three\n   third page',
        '## 2. beta\n1. Four\n   https://b.example/four\n(2 result(s) already listed above omitted)',
        `## 3. broken\nfailed: searxng http://127.0.0.1:${f.port}/order/search: HTTP 500 (web_search_backend_failed)`,
        '## 4. gamma\n1. Five\n   https://c.example/five\n(1 result(s) already listed above omitted)',
      ].join('\n\n'),
    );
    expect(r.data).toMatchObject({
      queries: 4,
      results: 5,
      duplicates: 3,
      failed: 1,
      perQuery: [
        { results: 3, duplicates: 0 },
        { results: 1, duplicates: 2 },
        {
          failure: {
            provider: 'searxng',
            scheme: 'http',
            host: `127.0.0.1:${f.port}`,
            path: '/order/search',
            status: 500,
            category: 'web_search_backend_failed',
          },
        },
        { results: 1, duplicates: 1 },
      ],
    });
    // The key went to the backend as a bearer token, with the JSON format asked for…
    expect(f.requests.map((q) => [q.query, q.path, q.format, q.authorization]).sort()).toEqual(
      ['alpha', 'beta', 'broken', 'gamma'].map((q) => [q, '/order/search', 'json', `Bearer ${KEY}`]),
    );
    // …and is nowhere in the result, nor is the keyed wire URL.
    const all = JSON.stringify(r);
    expect(all).not.toContain(KEY);
    expect(all).not.toMatch(/Bearer|authorization|format=json|[?&]q=/i);
  });

  it('max_results cuts each query; an empty answer says so; every query failing is an error result', async () => {
    const many = { results: Array.from({ length: 8 }, (_, i) => ({ url: `https://m.example/${i}`, title: `M${i}` })) };
    const f = await fake({ many, none: { results: [] }, bad: { status: 200, body: 'not json' } }, { hold: false });
    const r = await run({ queries: ['many', 'none'], max_results: 3 }, network(f, 'max'));
    expect(r.output).toContain('## 1. many\n1. M0\n   https://m.example/0\n2. M1\n   https://m.example/1\n3. M2\n');
    expect(r.output).not.toContain('M3');
    expect(r.output).toContain('## 2. none\n(no results)');
    const failed = await run({ queries: ['bad'] }, network(f, 'max'));
    expect(failed).toMatchObject({ isError: true, errorCode: 'web_search_backend_failed' });
    expect(failed.output).toContain(`failed: searxng http://127.0.0.1:${f.port}/max/search: HTTP 200`);
  });
});

describe('web_search keys, allowlist and cancellation (NW4)', () => {
  it('a key variable that is unset fails before anything is sent, naming the variable only', async () => {
    const f = await fake({}, { hold: false });
    const r = await run({ queries: ['x'] }, network(f, 'nokey', { keyEnv: KEY_ENV }));
    expect(r).toMatchObject({ isError: true, errorCode: 'web_search_key_missing' });
    expect(r.output).toContain(KEY_ENV);
    expect(f.requests).toEqual([]);
  });

  it('the key never follows a redirect to another origin', async () => {
    const target = await fake({ q: { results: [{ url: 'https://t.example/', title: 'T' }] } }, { hold: false });
    const front = await fake({}, { redirect: `${target.url}/moved/search` });
    process.env[KEY_ENV] = KEY;
    const r = await run({ queries: ['q'] }, network(front, 'front', { keyEnv: KEY_ENV }));
    expect(r.isError).toBe(false);
    expect(r.output).toContain('https://t.example/');
    expect(front.requests.map((q) => q.authorization)).toEqual([`Bearer ${KEY}`]);
    expect(target.requests.map((q) => [q.query, q.authorization])).toEqual([['q', undefined]]);
  });

  it("a loopback backend outside the session's allowlist is refused before a byte is sent", async () => {
    const f = await fake({}, { hold: false });
    const r = await run({ queries: ['a', 'b'] }, network(f, 'deny', { allow: [] }));
    expect(r).toMatchObject({ isError: true, errorCode: 'network_refused' });
    expect(r.output).toContain(`failed: searxng http://127.0.0.1:${f.port}/deny/search: (network_refused)`);
    expect(f.requests).toEqual([]);
  });

  it('cancellation aborts the query in flight and starts no other', async () => {
    const f = await fake({});
    const ac = new AbortController();
    const result = run({ queries: ['a', 'b', 'c'] }, network(f, 'cancel', { concurrency: 1 }), ac.signal);
    await until(() => f.pending.length === 1, 'the first query in flight');
    ac.abort();
    const r = await result;
    expect(r).toMatchObject({ isError: true, errorCode: 'cancelled' });
    expect(f.requests.map((q) => q.query)).toEqual(['a']);
  });

  it('without network.search the body says how to configure it', async () => {
    const r = await run({ queries: ['x'] }, { allowPrivate: [] });
    expect(r).toMatchObject({ isError: true, errorCode: 'web_search_unconfigured' });
    expect(r.output).toMatch(/network\.search.*zuno\.json.*docs\/web\.md/);
  });
});

describe('web_search rate limit (token bucket)', () => {
  it('a bucket of 2 lets two requests out and holds each next one until its token is due', async () => {
    const f = await fake({}, { hold: false });
    const clock = manualClock();
    const client = new PublicHttpClient({ allowPrivate: ['127.0.0.1'] });
    const backend = new SearxngBackend(network(f, 'rate').search!, client);
    const batch = runSearchBatch(['r0', 'r1', 'r2', 'r3'], {
      backend,
      bucket: new TokenBucket(1, 2, clock),
      concurrency: 4,
      maxResults: 5,
      maxWaitMs: 10 * 60_000,
    });
    // Two tokens at once; the third and fourth wait for theirs (one minute apart at 1/min).
    await until(() => f.requests.length === 2 && clock.sleepers() === 2, 'two requests and two waiting');
    expect(f.requests.map((q) => q.query).sort()).toEqual(['r0', 'r1']);
    clock.advance(59_999);
    expect(clock.sleepers()).toBe(2);
    clock.advance(1);
    await until(() => f.requests.length === 3, 'the third request');
    expect(f.requests[2]!.query).toBe('r2');
    expect(clock.sleepers()).toBe(1);
    clock.advance(60_000);
    await until(() => f.requests.length === 4, 'the fourth request');
    expect(f.requests[3]!.query).toBe('r3');
    const outcomes = await batch;
    expect(outcomes.map((o) => o.query)).toEqual(['r0', 'r1', 'r2', 'r3']);
    expect(outcomes.every((o) => 'results' in o)).toBe(true);
    await client.close();
  });

  it('a query whose token is further away than the wait limit is reported rate-limited, not sent', async () => {
    const f = await fake({}, { hold: false });
    const clock = manualClock();
    const client = new PublicHttpClient({ allowPrivate: ['127.0.0.1'] });
    const outcomes = await runSearchBatch(['s0', 's1', 's2'], {
      backend: new SearxngBackend(network(f, 'wait').search!, client),
      bucket: new TokenBucket(1, 1, clock),
      concurrency: 1,
      maxResults: 5,
      maxWaitMs: 30_000,
    });
    expect(f.requests.map((q) => q.query)).toEqual(['s0']);
    expect(clock.sleepers()).toBe(0);
    expect(outcomes.map((o) => ('failure' in o ? o.failure.category : 'ok'))).toEqual([
      'ok',
      'web_search_rate_limited',
      'web_search_rate_limited',
    ]);
    await client.close();
  });

  it('cancellation reaches a query waiting for its token: nothing more is sent', async () => {
    const f = await fake({}, { hold: false });
    const clock = manualClock();
    const client = new PublicHttpClient({ allowPrivate: ['127.0.0.1'] });
    const ac = new AbortController();
    const batch = runSearchBatch(['w0', 'w1', 'w2'], {
      backend: new SearxngBackend(network(f, 'abort').search!, client),
      bucket: new TokenBucket(1, 1, clock),
      concurrency: 1,
      maxResults: 5,
      maxWaitMs: 10 * 60_000,
      signal: ac.signal,
    });
    await until(() => f.requests.length === 1 && clock.sleepers() === 1, 'the second query waiting for its token');
    ac.abort();
    const outcomes = await batch;
    expect(outcomes.map((o) => ('failure' in o ? o.failure.category : 'ok'))).toEqual(['ok', 'cancelled', 'cancelled']);
    expect(clock.sleepers()).toBe(0);
    clock.advance(10 * 60_000);
    expect(f.requests.map((q) => q.query)).toEqual(['w0']);
    await client.close();
  });

  it('a backend answering 429 is rate-limited for that query only', async () => {
    const f = await fake(
      { busy: { status: 429 }, fine: { results: [{ url: 'https://f.example/' }] } },
      { hold: false },
    );
    const r = await run({ queries: ['busy', 'fine'] }, network(f, 'r429'));
    expect(r.isError).toBe(false);
    expect(r.output).toContain('HTTP 429 (web_search_rate_limited)');
    expect(r.output).toContain('1. (untitled)\n   https://f.example/');
  });
});
