/**
 * Issue 29 item 2 (HTTP): what `zuno serve` says and refuses at its edges —
 * a non-loopback host is printed as a warning, a client past its rate limit
 * is answered 429 `rate_limited` with Retry-After (docs/http.md, Limits),
 * `--help` names the options and defaults, a port in use and a bad script are
 * typed failures, SIGTERM stops the server cleanly.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { RATE_BURST } from '../../client/http/limits.js';
import { makeHome, runZuno, useTestTemporal } from '../cli/helpers.js';
import { call, startServe, type Served } from './serve-helpers.js';

const temporal = useTestTemporal();
let served: Served;
let home: string;

beforeAll(async () => {
  ({ home } = makeHome({ address: temporal.address }));
  served = await startServe(home, ['--host', '0.0.0.0']);
}, 180_000);

afterAll(async () => {
  await served?.stop();
}, 60_000);

it('a host that is not loopback is served only when asked for, and printed as a warning', () => {
  expect(served.stderr()).toMatch(/warning: listening on 0\.0\.0\.0, which is not loopback/);
  expect(served.url).toMatch(/^http:\/\/0\.0\.0\.0:\d+$/);
});

it(`a client past its burst (${RATE_BURST}) gets 429 rate_limited with Retry-After`, async () => {
  const statuses: number[] = [];
  let limited: Response | undefined;
  // Batches of 40 at once (under the 64-connection limit) outrun the refill of 20 a second however slow the machine.
  while (!limited && statuses.length < 2000) {
    const batch = await Promise.all(Array.from({ length: 40 }, () => call(served, 'GET', '/sessions?limit=1')));
    for (const r of batch) {
      statuses.push(r.status);
      if (r.status === 429 && !limited) limited = r;
      else await r.arrayBuffer();
    }
  }
  expect(limited, `statuses: ${statuses.join(',')}`).toBeDefined();
  expect(Number(limited!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  expect(((await limited!.json()) as { error: { code: string } }).error.code).toBe('rate_limited');
  expect(statuses.filter((s) => s === 200).length).toBeGreaterThanOrEqual(RATE_BURST - 1);
});

it('--help names the options with their defaults; a port in use and a bad script are typed failures; SIGTERM stops the server with exit 0', async () => {
  const help = await runZuno(['serve', '--help'], { home });
  expect(help.code).toBe(0);
  for (const words of [
    '--port <n>',
    'default 9866',
    '--host <host>',
    'default 127.0.0.1',
    '--script <file>',
    '--print-token',
  ])
    expect(help.stdout).toContain(words);
  const port = new URL(served.url).port;
  const taken = await runZuno(['serve', '--port', port], { home });
  expect(taken.code).toBe(1);
  expect(taken.stderr).toMatch(
    new RegExp(`^zuno: port_unavailable: cannot listen on 127\\.0\\.0\\.1:${port}: EADDRINUSE`, 'm'),
  );
  const badScript = await runZuno(['serve', '--port', '0', '--script', '/nonexistent/script.json'], { home });
  expect(badScript.code).toBe(1);
  expect(badScript.stderr).toMatch(/^zuno: script_invalid: /m);
  const stopped = await served.stop();
  expect(stopped.code, stopped.stderr).toBe(0);
  expect(stopped.stderr).not.toMatch(/unexpected error/);
});
