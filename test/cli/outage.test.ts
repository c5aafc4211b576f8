/**
 * Issue 25 item 5: `zuno run` rides out a Temporal outage. A real dev server
 * of this file's own (persistent db file) is stopped while `zuno run`
 * follows a session whose shell call is running, and started again on the
 * same port and db file 60 s later: the run says so once, goes on and
 * completes. A server that never comes back makes the follower give up
 * with one typed line naming the re-attach command.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openProjectionStore } from '../../activities/projection/open.js';
import { startTestDevServer, type TestDevServer } from '../helpers/dev-server.js';
import { waitFor } from '../helpers/worker-process.js';
import {
  expectNoStack,
  expectNoStackInAnyRun,
  makeHome,
  makeWorkspace,
  runZuno,
  tempDir,
  writeJson,
} from './helpers.js';

const servers: TestDevServer[] = [];
afterAll(async () => {
  for (const s of servers) await s.kill();
});

/** Waits until the session of `home` stored a `tool.started` event; returns its id. */
async function toolStarted(home: string): Promise<string> {
  const store = await openProjectionStore({ zunoDir: home });
  try {
    return await waitFor(
      async () => {
        const [s] = await store.listSessions({ limit: 1 });
        if (!s) return undefined;
        const events = await store.listEvents(s.id, 0, 100);
        return events.some((e) => e.type === 'tool.started') ? s.id : undefined;
      },
      120_000,
      'the shell call to start',
    );
  } finally {
    await store.close();
  }
}

/** A scripted run: one shell call of `command`, then the answer `done`. */
function shellScript(command: string): string {
  return writeJson(tempDir('zuno-outage-script-'), 'script.json', {
    replies: [{ toolCalls: [{ name: 'shell', arguments: { command } }] }, { text: 'done' }],
  });
}

describe('zuno run while the Temporal server is down', () => {
  it('the server stops for 60 s during a shell call: the run says so once, goes on and exits 0', async () => {
    const server = await startTestDevServer(join(tempDir('zuno-outage-db-'), 'temporal.db'));
    servers.push(server);
    const { home } = makeHome({ address: server.address });
    const run = runZuno(['run', 'wait a while', '--dir', makeWorkspace(), '--script', shellScript('sleep 30')], {
      home,
      timeoutMs: 400_000,
    });
    const sessionId = await toolStarted(home);
    await server.kill();
    await new Promise((r) => setTimeout(r, 60_000));
    await server.start();
    const r = await run;
    expect({ code: r.code, timedOut: r.timedOut }, r.stderr).toEqual({ code: 0, timedOut: false });
    expect(r.stdout).toContain('done');
    expect(r.stderr.match(/Temporal at \S+ unreachable, retrying…/g), r.stderr).toHaveLength(1);
    expect(r.stderr.match(/Temporal reachable again/g), r.stderr).toHaveLength(1);
    expect(r.stderr.indexOf('unreachable')).toBeLessThan(r.stderr.indexOf('reachable again'));
    // The in-process worker's own retries (hundreds of lines a minute) are not shown: the follower said it once.
    expect(r.stderr, r.stderr).not.toMatch(/gRPC call \w+ retried|Error when recording heartbeat/);
    expectNoStack(r);
    const store = await openProjectionStore({ zunoDir: home });
    try {
      expect((await store.getSession(sessionId))?.status).toBe('completed');
    } finally {
      await store.close();
    }
  }, 420_000);

  it('the server does not come back: the run gives up with temporal_unreachable and the command to re-attach', async () => {
    const server = await startTestDevServer(join(tempDir('zuno-outage-db-'), 'temporal.db'));
    servers.push(server);
    const { home } = makeHome({ address: server.address });
    const run = runZuno(['run', 'wait a while', '--dir', makeWorkspace(), '--script', shellScript('sleep 300')], {
      home,
      env: { ZUNO_TEMPORAL_OUTAGE_MS: '5000' },
      timeoutMs: 300_000,
    });
    const sessionId = await toolStarted(home);
    await server.kill();
    const r = await run;
    expect(r.timedOut, r.stderr).toBe(false);
    expect(r.code, r.stderr).toBe(1);
    const line = r.stderr.split('\n').find((l) => l.startsWith('zuno: temporal_unreachable: '));
    expect(line, r.stderr).toBeDefined();
    expect(line).toContain(server.address);
    expect(line).toContain(`\`zuno session follow ${sessionId}\``);
    expect(r.stderr.match(/unreachable, retrying…/g), r.stderr).toHaveLength(1);
    expectNoStack(r);
  }, 320_000);

  it('no run of this file printed `unexpected error` or a stack frame', () => {
    expect(expectNoStackInAnyRun()).toBeGreaterThan(0);
  });
});
