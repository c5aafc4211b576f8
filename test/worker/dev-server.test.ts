/**
 * ensureDevServer / stopDevServer against the real pinned `temporal` binary on
 * free ports in a temp home (issue 25 item 4): a slow port is probed again
 * instead of being judged foreign, a live server the record no longer names
 * (dead recorded pid, or no record) is adopted with its real pid, a foreign
 * program on the port is refused, and a recorded pid that now runs another
 * program is never killed.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ZunoError } from '../../core/errors.js';
import { findDevServerPids, type PortProbe, tcpProbe } from '../../worker/dev-server-probe.js';
import {
  devServerLockPath,
  devServerStatePath,
  type DevServerState,
  ensureDevServer,
  pidAlive,
  stopDevServer,
} from '../../worker/dev-server.js';
import { parseTemporalConfig, type TemporalConfig } from '../../worker/temporal-config.js';
import { freePort, TEMPORAL_BIN } from '../helpers/dev-server.js';

let home: string;
let cfg: TemporalConfig;
let dbFile: string;
let serverPid: number | undefined;

/** A dev-mode temporal.yaml on free ports (never the default 7233). */
async function devConfig(): Promise<TemporalConfig> {
  const port = await freePort();
  let uiPort = await freePort();
  while (uiPort === port) uiPort = await freePort();
  const yaml = ['server:', '  mode: dev', 'dev:', `  port: ${port}`, `  uiPort: ${uiPort}`, ''].join('\n');
  return parseTemporalConfig(yaml, 'test temporal.yaml');
}

const ensure = (extra: Partial<Parameters<typeof ensureDevServer>[0]> = {}) =>
  ensureDevServer({ cfg, stateDir: home, root: home, temporalBin: TEMPORAL_BIN, readyTimeoutMs: 90_000, ...extra });

const recorded = (): DevServerState => JSON.parse(readFileSync(devServerStatePath(home), 'utf8')) as DevServerState;

/** The pid of a process that has exited (and been reaped). */
const deadPid = (): number => spawnSync(process.execPath, ['-e', '']).pid!;

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'zuno-devserver-'));
  cfg = await devConfig();
  dbFile = join(home, 'temporal.db');
});

afterAll(async () => {
  await stopDevServer(home).catch(() => false);
  // Safety net: the server this file started, by pid.
  for (const pid of [serverPid, ...findDevServerPids(dbFile)]) {
    if (pid !== undefined && pidAlive(pid)) process.kill(pid, 'SIGKILL');
  }
  rmSync(home, { recursive: true, force: true });
}, 60_000);

describe('ensureDevServer (real temporal start-dev)', () => {
  it('starts one server and records its pid atomically; the lock is released', async () => {
    const h = await ensure();
    serverPid = h.pid;
    expect(h.started).toBe(true);
    expect(recorded()).toMatchObject({ pid: h.pid, dbFile, address: `127.0.0.1:${cfg.dev.port}` });
    expect(findDevServerPids(dbFile, cfg.dev.port)).toEqual([h.pid]);
    expect(existsSync(devServerLockPath(home))).toBe(false);
  }, 120_000);

  it('the first probes time out (a loaded machine): the live server is still reused, not judged foreign', async () => {
    let probes = 0;
    const slowFirst: PortProbe = (host, port, timeoutMs) =>
      ++probes <= 2 ? Promise.resolve('silent') : tcpProbe(host, port, timeoutMs);
    const h = await ensure({ probe: { probe: slowFirst, backoffMs: 10 } });
    expect(h).toMatchObject({ started: false, pid: serverPid });
    expect(probes).toBeGreaterThanOrEqual(3);
    expect(recorded().pid).toBe(serverPid);
  });

  it("the recorded pid is dead but this home's server answers: adopted, the record gets its real pid", async () => {
    writeFileSync(devServerStatePath(home), JSON.stringify({ ...recorded(), pid: deadPid() }));
    const h = await ensure();
    expect(h).toMatchObject({ started: false, pid: serverPid });
    expect(recorded().pid).toBe(serverPid);
  });

  it('no record at all but the server runs: adopted with its real pid', async () => {
    rmSync(devServerStatePath(home));
    const h = await ensure();
    expect(h).toMatchObject({ started: false, pid: serverPid });
    expect(recorded()).toMatchObject({ pid: serverPid, dbFile });
  });

  it('a foreign program on the port: dev_server_port_busy, no record written', async () => {
    const other = mkdtempSync(join(tmpdir(), 'zuno-devserver-other-'));
    const foreignCfg = await devConfig();
    const server: Server = createServer((s) => s.destroy());
    await new Promise<void>((r) => server.listen(foreignCfg.dev.port, '127.0.0.1', r));
    try {
      const err = await ensureDevServer({
        cfg: foreignCfg,
        stateDir: other,
        root: other,
        temporalBin: TEMPORAL_BIN,
        probe: { backoffMs: 10 },
      }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ZunoError);
      expect((err as ZunoError).code).toBe('dev_server_port_busy');
      expect(existsSync(devServerStatePath(other))).toBe(false);
      expect(existsSync(devServerLockPath(other))).toBe(false);
    } finally {
      await new Promise((r) => server.close(r));
      rmSync(other, { recursive: true, force: true });
    }
  });

  it('stopDevServer never kills a recorded pid that now runs another program', async () => {
    const other = mkdtempSync(join(tmpdir(), 'zuno-devserver-reused-'));
    const bystander = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 120000)'], { stdio: 'ignore' });
    try {
      const state: DevServerState = {
        pid: bystander.pid!,
        address: '127.0.0.1:1',
        uiUrl: 'http://127.0.0.1:2',
        dbFile: join(other, 'temporal.db'),
        startedAtMs: 0,
      };
      writeFileSync(devServerStatePath(other), JSON.stringify(state));
      expect(await stopDevServer(other)).toBe(false);
      expect(pidAlive(bystander.pid!)).toBe(true);
      expect(existsSync(devServerStatePath(other))).toBe(false);
    } finally {
      bystander.kill('SIGKILL');
      rmSync(other, { recursive: true, force: true });
    }
  });

  it("stopDevServer stops this home's server", async () => {
    expect(await stopDevServer(home)).toBe(true);
    expect(findDevServerPids(dbFile)).toEqual([]);
    expect(existsSync(devServerStatePath(home))).toBe(false);
  }, 60_000);
});
