import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { expectTypedFailure, makeHome, runZuno, tempDir, useTestTemporal, writeJson, goalOf } from './helpers.js';

/**
 * `zuno goal start --watch` from the command line (issue 31): a watch every
 * check would fail is refused before anything starts; Ctrl-C while the goal
 * waits leaves it waiting under the host worker service (waiting is not
 * working); its session takes no prompt before the watch reports.
 */
const temporal = useTestTemporal();
let registry: Server;
let url = '';
let checks = 0;
const homes: string[] = [];

beforeAll(async () => {
  registry = createServer((_req, res) => {
    checks += 1;
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ 'dist-tags': { latest: '1.0.0' } })); // never publishes
  });
  await new Promise<void>((r) => registry.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(registry.address() as AddressInfo).port}/pkg`;
});
afterAll(async () => {
  for (const home of homes) await runZuno(['worker', 'stop'], { home, timeoutMs: 60_000 });
  registry.close();
});

const SCRIPT = { replies: [{ text: 'Out.' }] };

/** `zuno goal start` of a goal that waits for pkg 2.0.0 at `watchUrl`. */
function watchStart(ws: string, script: string, watchUrl: string): string[] {
  const until = 'json:dist-tags.latest=2.0.0';
  return ['goal', 'start', 'Wait for pkg 2', '--dir', ws, '--script', script, '--watch', watchUrl, '--until', until];
}

describe('zuno goal start --watch', () => {
  it('refuses a watch on a private address the allowlist does not name, before anything starts', async () => {
    const { home } = makeHome({ address: temporal.address });
    const ws = tempDir('zuno-watch-cli-ws-');
    const script = writeJson(tempDir('zuno-watch-cli-'), 'script.json', SCRIPT);
    const before = checks;
    const r = await runZuno(watchStart(ws, script, `${url}?token=s3cret`), { home });
    const message = expectTypedFailure(r, 'network_refused');
    expect(message).toContain('127.0.0.1 is loopback, not a public address');
    expect(message).toContain('"network": {"allow_private": ["127.0.0.1"]}');
    expect(message).not.toContain('s3cret');
    expect(checks).toBe(before);
    expect(JSON.parse((await runZuno(['goal', 'list', '--json'], { home })).stdout)).toEqual([]);
  }, 120_000);

  it('Ctrl-C while it waits leaves it waiting under the host worker; its session takes no prompt yet', async () => {
    const { home } = makeHome({ address: temporal.address });
    homes.push(home);
    const ws = tempDir('zuno-watch-cli-ws-');
    writeJson(ws, 'zuno.json', { network: { allow_private: ['127.0.0.1'] } });
    const script = writeJson(tempDir('zuno-watch-cli-'), 'script.json', SCRIPT);
    let child: ChildProcess | undefined;
    const before = checks;
    const started = runZuno([...watchStart(ws, script, url), '--every', '1s'], {
      home,
      timeoutMs: 120_000,
      env: { ZUNO_WORKER: 'service' },
      onSpawn: (c) => (child = c),
    });
    await vi.waitFor(() => expect(checks).toBeGreaterThanOrEqual(before + 2), { timeout: 90_000, interval: 200 });
    child!.kill('SIGINT');
    const r = await started;
    expect({ code: r.code, timedOut: r.timedOut }, r.stderr).toEqual({ code: 130, timedOut: false });
    const id = goalOf(r);
    expect(r.stderr).toContain('no turn runs and no token is spent until it reports');
    expect(r.stderr).toContain(`stopped following goal ${id}: it keeps waiting on its release watch`);
    expect(r.stderr).not.toContain('unreachable');
    // Still waiting, still checked by the host worker after the command is gone.
    const after = checks;
    await vi.waitFor(() => expect(checks).toBeGreaterThanOrEqual(after + 2), { timeout: 60_000, interval: 200 });
    const shown = JSON.parse((await runZuno(['goal', 'show', id, '--json'], { home })).stdout) as {
      goal: { sessionId: string; state: { status: string } };
    };
    expect(shown.goal.state.status).toBe('waiting_watch');
    const early = await runZuno(['run', '--session', shown.goal.sessionId, '--script', script, 'go now'], {
      home,
      env: { ZUNO_WORKER: 'service' },
    });
    expect(expectTypedFailure(early, 'session_not_started')).toContain(`belongs to goal ${id}`);
    expect((await runZuno(['goal', 'cancel', id], { home })).code).toBe(0);
  }, 240_000);
});
