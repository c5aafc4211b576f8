import { createServer } from 'node:net';
import { describe, expect, inject, it } from 'vitest';
import { makeHome, runZuno } from './helpers.js';

/**
 * `zuno dev status` in external mode (issue 33): it names the external
 * server Zuno uses, says this home manages no dev server, and whether the
 * server answers — through the real CLI against the suite's real Temporal
 * server and against a port nothing listens on.
 */

/** A loopback port that was free a moment ago and is closed now. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

describe('zuno dev status in external mode', () => {
  it('TEMPORAL_ADDRESS: names the server and its namespace, and that it answers (exit 0); --json too', async () => {
    const address = inject('temporalAddress');
    const { home } = makeHome();
    const env = { TEMPORAL_ADDRESS: address };
    const r = await runZuno(['dev', 'status'], { home, env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(
      `Zuno uses the external Temporal server ${address} (namespace default; set by TEMPORAL_ADDRESS): it answers\n` +
        'no dev server is managed by this home (zuno dev up starts none while the external server is configured)\n',
    );
    const json = await runZuno(['dev', 'status', '--json'], { home, env });
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual({
      mode: 'external',
      address,
      namespace: 'default',
      source: 'env TEMPORAL_ADDRESS',
      temporalYaml: `${home}/temporal.yaml`,
      answers: true,
    });
  });

  it('temporal.yaml server.mode external with nothing listening: it does not answer (exit 1), namespace from the file', async () => {
    const address = `127.0.0.1:${await closedPort()}`;
    const { home } = makeHome({
      temporalYaml: [
        'server:',
        '  mode: external',
        `  address: ${address}`,
        '  namespace: team',
        '  connectTimeoutMs: 1000',
        '',
      ].join('\n'),
    });
    const r = await runZuno(['dev', 'status'], { home });
    expect(r.code, r.stderr).toBe(1);
    const [first, second] = r.stdout.split('\n');
    expect(first).toMatch(
      new RegExp(
        `^Zuno uses the external Temporal server ${address} \\(namespace team; server\\.mode: external in ${home}/temporal\\.yaml\\): it does not answer: .+`,
      ),
    );
    expect(second).toBe(
      'no dev server is managed by this home (zuno dev up starts none while the external server is configured)',
    );
    const json = JSON.parse((await runZuno(['dev', 'status', '--json'], { home })).stdout);
    expect(json).toMatchObject({
      mode: 'external',
      address,
      namespace: 'team',
      source: expect.stringMatching(/^temporal\.yaml \//),
      answers: false,
    });
    expect(json.error).toContain(address);
  });

  it('dev mode keeps its answer; --json says not running', async () => {
    const { home } = makeHome();
    const json = await runZuno(['dev', 'status', '--json'], { home });
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({ mode: 'dev', running: false, stateDir: home });
  });
});
