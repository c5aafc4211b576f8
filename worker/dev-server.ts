import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { ZunoError } from '../core/errors.js';
import type { TemporalConfig } from './temporal-config.js';

/** What `.zuno/dev-server.json` records about the dev server Zuno started. */
export interface DevServerState {
  pid: number;
  address: string;
  uiUrl: string;
  dbFile: string;
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

/** Reads the dev-server state file, or null when absent/corrupt. */
export function readDevServerState(stateDir: string): DevServerState | null {
  try {
    return JSON.parse(readFileSync(devServerStatePath(stateDir), 'utf8')) as DevServerState;
  } catch {
    return null;
  }
}

/** true when a process with this pid exists and is not a zombie (containers often leave orphans unreaped). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  try {
    // Field 3 of /proc/<pid>/stat is the state; `Z` is a zombie. Absent on non-Linux: trust kill(0).
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return true;
  }
}

/** true when something accepts TCP connections at host:port within timeoutMs. */
export function portOpen(host: string, port: number, timeoutMs = 500): Promise<boolean> {
  return new Promise((resolvePromise) => {
    const socket = createConnection({ host, port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolvePromise(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/**
 * Embedded default Temporal (DESIGN.md §1): reuses the dev server this state
 * dir started if it is still alive and listening, else starts
 * `temporal server start-dev` detached with a persistent db file, registering
 * temporal.yaml's search attributes, and waits (≤ `readyTimeoutMs`, default
 * 30000) until its frontend port accepts connections.
 * `root` resolves relative paths of temporal.yaml (`dev.dbFile`).
 * @throws ZunoError `dev_server_port_busy` when another process holds the port,
 *   `dev_server_failed` when the server exits or never becomes ready (with the log tail).
 */
export async function ensureDevServer(opts: {
  cfg: TemporalConfig;
  stateDir: string;
  root: string;
  temporalBin: string;
  readyTimeoutMs?: number;
}): Promise<DevServerHandle> {
  const { cfg, stateDir } = opts;
  const { ip, port, uiPort, logLevel } = cfg.dev;
  const address = `${ip}:${port}`;
  const existing = readDevServerState(stateDir);
  if (existing && pidAlive(existing.pid) && (await portOpen(ip, port))) {
    return { ...existing, started: false };
  }
  if (await portOpen(ip, port)) {
    throw new ZunoError(
      'dev_server_port_busy',
      `port ${address} is taken by a process this Zuno home (${stateDir}) did not start — another ZUNO_HOME's ` +
        'dev server, or another program. Point Zuno at it with server.mode: external (or TEMPORAL_ADDRESS), ' +
        'or change dev.port in temporal.yaml.',
    );
  }
  const dbFile = resolve(opts.root, cfg.dev.dbFile);
  mkdirSync(dirname(dbFile), { recursive: true });
  mkdirSync(stateDir, { recursive: true });
  const logPath = join(stateDir, 'dev-server.log');
  const args = [
    'server',
    'start-dev',
    '--db-filename',
    dbFile,
    '--ip',
    ip,
    '--port',
    String(port),
    '--ui-port',
    String(uiPort),
    '--log-level',
    logLevel,
    '--ui-disable-news-fetch',
  ];
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
  const deadline = Date.now() + (opts.readyTimeoutMs ?? 30_000);
  while (Date.now() < deadline) {
    if (exited !== null) break;
    if (await portOpen(ip, port)) {
      writeFileSync(devServerStatePath(stateDir), `${JSON.stringify(state, null, 2)}\n`);
      return { ...state, started: true };
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  if (exited === null) child.kill('SIGKILL');
  const tail = existsSync(logPath) ? readFileSync(logPath, 'utf8').split('\n').slice(-8).join('\n') : '';
  throw new ZunoError(
    'dev_server_failed',
    `the Temporal dev server (${opts.temporalBin}) ${exited !== null ? `exited with code ${exited}` : 'did not become ready'}; log ${logPath}:\n${tail}`,
  );
}

/**
 * Stops the dev server recorded in the state dir (SIGTERM, then SIGKILL after
 * `graceMs`, default 10000) and removes the state file. Returns false when
 * there was none running.
 */
export async function stopDevServer(stateDir: string, graceMs = 10_000): Promise<boolean> {
  const state = readDevServerState(stateDir);
  rmSync(devServerStatePath(stateDir), { force: true });
  if (!state || !pidAlive(state.pid)) return false;
  process.kill(state.pid, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline && pidAlive(state.pid)) await new Promise((r) => setTimeout(r, 100));
  if (pidAlive(state.pid)) process.kill(state.pid, 'SIGKILL');
  return true;
}
