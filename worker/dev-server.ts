import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { ZunoError } from '../core/errors.js';
import {
  devServerOwnership,
  findDevServerPids,
  type PortState,
  probePort,
  type ProbeOptions,
} from './dev-server-probe.js';
import { type LockWaitOptions, withHomeLock } from './home-lock.js';
import type { TemporalConfig } from './temporal-config.js';

export { portOpen } from './dev-server-probe.js';
export { pidAlive } from './process-info.js';

/** What `<home>/dev-server.json` records about the dev server Zuno started (or adopted). */
export interface DevServerState {
  pid: number;
  address: string;
  uiUrl: string;
  /** Absolute path of the server's `--db-filename`: what ties the server to this home. */
  dbFile: string;
  /** When this home started (or adopted) it, ms since the epoch. */
  startedAtMs: number;
}

/** Result of {@link ensureDevServer}. */
export interface DevServerHandle extends DevServerState {
  /** true when this call started the server, false when it reused a running one. */
  started: boolean;
}

/** Path of the state file describing the dev server this state dir owns. */
export function devServerStatePath(stateDir: string): string {
  return join(stateDir, 'dev-server.json');
}

/** Path of the lock file that serialises starting and stopping the dev server of this state dir. */
export function devServerLockPath(stateDir: string): string {
  return join(stateDir, 'dev-server.lock');
}

/** Reads the dev-server state file, or null when absent/corrupt. */
export function readDevServerState(stateDir: string): DevServerState | null {
  try {
    return JSON.parse(readFileSync(devServerStatePath(stateDir), 'utf8')) as DevServerState;
  } catch {
    return null;
  }
}

/** Writes the state file atomically (temp file + rename): a reader sees the old record or the new one, never half. */
export function writeDevServerState(stateDir: string, state: DevServerState): void {
  const path = devServerStatePath(stateDir);
  const tmp = `${path}.tmp-${process.pid}`;
  writeFileSync(tmp, `${JSON.stringify(state, null, 2)}\n`);
  renameSync(tmp, path);
}

/** Options of {@link ensureDevServer}. */
export interface EnsureDevServerOptions {
  cfg: TemporalConfig;
  stateDir: string;
  /** Resolves relative paths of temporal.yaml (`dev.dbFile`). */
  root: string;
  temporalBin: string;
  /** How long a server may take to accept connections, ms (default 30 000). */
  readyTimeoutMs?: number;
  /** How the frontend port is probed before it is judged ({@link probePort}). */
  probe?: ProbeOptions;
  /** How long to wait for another command that is starting the server ({@link withHomeLock}). */
  lock?: LockWaitOptions;
}

/**
 * Embedded default Temporal (DESIGN.md §1): one dev server per home, whatever
 * number of commands ask at once.
 *
 * 1. Without a lock: the server recorded in `dev-server.json` is reused when
 *    its pid runs `temporal server start-dev` on this home's db file and port
 *    (read from `/proc/<pid>/cmdline`; without /proc a live pid is trusted)
 *    and the port answers. A slow port is probed again with back-off
 *    ({@link probePort}), never judged from one timeout.
 * 2. Else under the home's lock (`dev-server.lock`, {@link withHomeLock}): the
 *    record is read again (another command may have started the server); a
 *    running server on this db file and port that the record does not name
 *    (record lost, or its pid dead) is adopted and recorded with its real
 *    pid; else, when nothing listens on the port, `temporal server start-dev`
 *    is started detached with a persistent db file and temporal.yaml's search
 *    attributes, and recorded (atomically) once its port accepts connections
 *    (≤ `readyTimeoutMs`).
 * @throws ZunoError `dev_server_port_busy` when a process that is not this home's
 *   server holds (or silently blocks) the port, `dev_server_failed` when the
 *   server exits, never becomes ready or stops answering (with the log tail),
 *   `home_lock_timeout` when another command holds the lock for too long.
 */
export async function ensureDevServer(opts: EnsureDevServerOptions): Promise<DevServerHandle> {
  const { cfg, stateDir } = opts;
  const dbFile = resolve(opts.root, cfg.dev.dbFile);
  const reused = await reuseRecorded(opts, dbFile);
  if (reused) return reused;
  mkdirSync(stateDir, { recursive: true });
  return withHomeLock(
    devServerLockPath(stateDir),
    async () => (await reuseRecorded(opts, dbFile)) ?? (await adoptRunning(opts, dbFile)) ?? startServer(opts, dbFile),
    opts.lock,
  );
}

/** The recorded server when it is this home's and its port answers; else null. */
async function reuseRecorded(opts: EnsureDevServerOptions, dbFile: string): Promise<DevServerHandle | null> {
  const { ip, port } = opts.cfg.dev;
  const existing = readDevServerState(opts.stateDir);
  if (!existing) return null;
  const owner = devServerOwnership(existing.pid, dbFile, port);
  if (owner !== 'ours' && owner !== 'assumed') return null;
  return (await probePort(ip, port, opts.probe)) === 'open' ? { ...existing, started: false } : null;
}

/**
 * A running `start-dev` on this db file and port that the record does not
 * name: recorded with its real pid and reused. null when there is none.
 */
async function adoptRunning(opts: EnsureDevServerOptions, dbFile: string): Promise<DevServerHandle | null> {
  const { ip, port, uiPort } = opts.cfg.dev;
  const [pid] = findDevServerPids(dbFile, port);
  if (pid === undefined) return null;
  const state: DevServerState = {
    pid,
    address: `${ip}:${port}`,
    uiUrl: `http://${ip}:${uiPort}`,
    dbFile,
    startedAtMs: Date.now(),
  };
  const answered = await waitUntilOpen(ip, port, opts, () => devServerOwnership(pid, dbFile, port) === 'dead');
  if (answered !== 'open') {
    throw new ZunoError(
      'dev_server_failed',
      `process ${pid} runs this home's Temporal dev server (db ${dbFile}) but ${state.address} ` +
        `${answered === 'exited' ? 'it exited before answering' : 'does not answer'}; stop it (kill ${pid}) and try again`,
    );
  }
  writeDevServerState(opts.stateDir, state);
  return { ...state, started: false };
}

/** Starts `temporal server start-dev` when the port is free; records it once it accepts connections. */
async function startServer(opts: EnsureDevServerOptions, dbFile: string): Promise<DevServerHandle> {
  const { cfg, stateDir } = opts;
  const { ip, port, uiPort, logLevel } = cfg.dev;
  const address = `${ip}:${port}`;
  const onPort = await probePort(ip, port, opts.probe);
  if (onPort !== 'closed') {
    throw new ZunoError(
      'dev_server_port_busy',
      `port ${address} ${onPort === 'open' ? 'is taken by' : 'does not answer, yet is held by'} a process that is not ` +
        `this Zuno home's dev server (${stateDir}, db ${dbFile}) — another ZUNO_HOME's dev server, or another ` +
        'program. Point Zuno at it with server.mode: external (or TEMPORAL_ADDRESS), or change dev.port in temporal.yaml.',
    );
  }
  mkdirSync(dirname(dbFile), { recursive: true });
  const logPath = join(stateDir, 'dev-server.log');
  const args = ['server', 'start-dev', '--db-filename', dbFile, '--ip', ip, '--port', String(port)];
  args.push('--ui-port', String(uiPort), '--log-level', logLevel, '--ui-disable-news-fetch');
  for (const [name, type] of Object.entries(cfg.searchAttributes)) args.push('--search-attribute', `${name}=${type}`);
  const logFd = openSync(logPath, 'a');
  const child = spawn(opts.temporalBin, args, { detached: true, stdio: ['ignore', logFd, logFd] });
  closeSync(logFd);
  let exited: number | null = null;
  child.once('exit', (code) => {
    exited = code ?? -1;
  });
  child.unref();
  const state: DevServerState = {
    pid: child.pid!,
    address,
    uiUrl: `http://${ip}:${uiPort}`,
    dbFile,
    startedAtMs: Date.now(),
  };
  const ready = await waitUntilOpen(ip, port, opts, () => exited !== null);
  if (ready === 'open') {
    writeDevServerState(stateDir, state);
    return { ...state, started: true };
  }
  if (exited === null) child.kill('SIGKILL');
  const tail = existsSync(logPath) ? readFileSync(logPath, 'utf8').split('\n').slice(-8).join('\n') : '';
  throw new ZunoError(
    'dev_server_failed',
    `the Temporal dev server (${opts.temporalBin}) ${exited !== null ? `exited with code ${exited}` : 'did not become ready'}; log ${logPath}:\n${tail}`,
  );
}

/**
 * Probes ip:port every 200 ms until it accepts a connection, `gone()` says
 * the server ended, or `readyTimeoutMs` passes (a probe that times out counts
 * as not yet: each probe is bounded by the configured probe timeout).
 */
async function waitUntilOpen(
  ip: string,
  port: number,
  opts: EnsureDevServerOptions,
  gone: () => boolean,
): Promise<PortState | 'exited'> {
  const deadline = Date.now() + (opts.readyTimeoutMs ?? 30_000);
  let last: PortState = 'closed';
  while (Date.now() < deadline) {
    if (gone()) return 'exited';
    last = await probePort(ip, port, { ...opts.probe, attempts: 1 });
    if (last === 'open') return last;
    await new Promise((r) => setTimeout(r, 200));
  }
  return last;
}

/**
 * Stops the dev server recorded in the state dir (SIGTERM, then SIGKILL after
 * `graceMs`, default 10000) and removes the state file, under the home's
 * dev-server lock (so it never races a command that is starting it). A
 * recorded pid that now runs another program (pid reuse; known from
 * /proc/<pid>/cmdline) is left alone. Returns false when there was none running.
 * @throws ZunoError `home_lock_timeout` when another command holds the lock for too long.
 */
export async function stopDevServer(stateDir: string, graceMs = 10_000, lock?: LockWaitOptions): Promise<boolean> {
  if (!existsSync(devServerStatePath(stateDir))) return false;
  return withHomeLock(
    devServerLockPath(stateDir),
    async () => {
      const state = readDevServerState(stateDir);
      rmSync(devServerStatePath(stateDir), { force: true });
      if (!state) return false;
      const running = () => ['ours', 'assumed'].includes(devServerOwnership(state.pid, state.dbFile));
      if (!running()) return false;
      process.kill(state.pid, 'SIGTERM');
      const deadline = Date.now() + graceMs;
      while (Date.now() < deadline && running()) await new Promise((r) => setTimeout(r, 100));
      if (running()) process.kill(state.pid, 'SIGKILL');
      return true;
    },
    lock,
  );
}
