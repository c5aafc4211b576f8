/**
 * The embedded default Temporal (`zuno dev up/status/down`) on free ports in
 * a temp ZUNO_HOME, never on the default 7233 (a developer's own server may
 * hold it). Proves the server starts, is reused by a second `dev up` and by
 * `zuno run` (no TEMPORAL_ADDRESS), and stops.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pidAlive, portOpen } from '../../worker/dev-server.js';
import { freePort } from '../helpers/dev-server.js';
import { makeHome, makeWorkspace, runZuno, tempDir, writeJson } from './helpers.js';

let home: string;
let port: number;
let uiPort: number;
/** pid of the dev server `dev up` started (for the afterAll safety net). */
let serverPid: number | undefined;

beforeAll(async () => {
  port = await freePort();
  uiPort = await freePort();
  while (uiPort === port) uiPort = await freePort();
  ({ home } = makeHome({
    temporalYaml: ['server:', '  mode: dev', 'dev:', `  port: ${port}`, `  uiPort: ${uiPort}`, ''].join('\n'),
  }));
});

afterAll(async () => {
  if (!home) return;
  await runZuno(['dev', 'down'], { home });
  // Safety net: never leave the server this file started running.
  if (serverPid !== undefined && pidAlive(serverPid)) {
    try {
      process.kill(serverPid, 'SIGKILL');
    } catch {
      // gone meanwhile
    }
  }
}, 60_000);

/** The state file `dev up` writes. */
function devState(): { pid: number; address: string; uiUrl: string; dbFile: string } {
  return JSON.parse(readFileSync(join(home, 'dev-server.json'), 'utf8')) as {
    pid: number;
    address: string;
    uiUrl: string;
    dbFile: string;
  };
}

describe('zuno dev up / status / down (embedded dev server on free ports)', () => {
  const address = () => `127.0.0.1:${port}`;

  it('dev status before anything: not running', async () => {
    const r = await runZuno(['dev', 'status'], { home });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toMatch(/^not running \(state dir /);
  });

  it('dev up starts the server', async () => {
    expect(await portOpen('127.0.0.1', port)).toBe(false);
    const r = await runZuno(['dev', 'up'], { home, timeoutMs: 90_000 });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`Temporal dev server ${address()} (started)\nWeb UI http://127.0.0.1:${uiPort}\n`);
    const state = devState();
    serverPid = state.pid;
    expect(state).toMatchObject({ address: address(), uiUrl: `http://127.0.0.1:${uiPort}` });
    expect(state.dbFile).toBe(join(home, 'temporal.db'));
    expect(pidAlive(state.pid)).toBe(true);
    expect(await portOpen('127.0.0.1', port)).toBe(true);
  }, 120_000);

  it('dev status: running, with pid, address, UI and db', async () => {
    const r = await runZuno(['dev', 'status'], { home });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(
      `running pid ${serverPid} at ${address()}, Web UI http://127.0.0.1:${uiPort}, db ${join(home, 'temporal.db')}\n`,
    );
  });

  it('a second dev up reuses the running server', async () => {
    const r = await runZuno(['dev', 'up'], { home });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`Temporal dev server ${address()} (already running)\nWeb UI http://127.0.0.1:${uiPort}\n`);
    expect(devState().pid).toBe(serverPid);
  });

  it('zuno run without TEMPORAL_ADDRESS uses the embedded server', async () => {
    const ws = makeWorkspace();
    const script = writeJson(tempDir('zuno-cli-script-'), 'script.json', { replies: [{ text: 'embedded ok' }] });
    const r = await runZuno(['run', 'say ok', '--dir', ws, '--script', script], { home });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('embedded ok\n');
    expect(r.stderr.split('\n')[0]).toBe(`using Temporal dev server ${address()} — Web UI http://127.0.0.1:${uiPort}`);
    expect(devState().pid).toBe(serverPid);
  });

  it('dev down stops it; status and a second down say so', async () => {
    const r = await runZuno(['dev', 'down'], { home, timeoutMs: 30_000 });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('stopped the Temporal dev server\n');
    expect(await portOpen('127.0.0.1', port)).toBe(false);
    const status = await runZuno(['dev', 'status'], { home });
    expect(status.code).toBe(1);
    expect(status.stdout).toMatch(/^not running \(state dir /);
    const again = await runZuno(['dev', 'down'], { home });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toBe('no Temporal dev server was running\n');
  }, 60_000);
});
