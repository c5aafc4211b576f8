import { createConnection } from 'node:net';
import { findProcesses, pidAlive, processArgv, procAvailable } from './process-info.js';

/**
 * What one TCP probe of a port found: `open` (a connection was accepted),
 * `closed` (refused: nothing listens — definitive on loopback), `silent`
 * (timed out or failed otherwise: busy machine, unknown — never judged from once).
 */
export type PortState = 'open' | 'closed' | 'silent';

/** One probe of host:port that gives up after `timeoutMs` ms. */
export type PortProbe = (host: string, port: number, timeoutMs: number) => Promise<PortState>;

/** How {@link probePort} retries; durations in ms. */
export interface ProbeOptions {
  /** Probes before the port is judged (default 5). */
  attempts?: number;
  /** Timeout of the first probe (default 1000); it doubles on each retry, up to 8000. */
  timeoutMs?: number;
  /** Pause before the first retry (default 200); it doubles on each retry. */
  backoffMs?: number;
  /** The single probe (default {@link tcpProbe}); tests inject slow answers through it. */
  probe?: PortProbe;
}

/** One TCP connect to host:port, classified as a {@link PortState}. */
export const tcpProbe: PortProbe = (host, port, timeoutMs) =>
  new Promise((resolvePromise) => {
    const socket = createConnection({ host, port });
    const done = (state: PortState) => {
      socket.destroy();
      resolvePromise(state);
    };
    socket.setTimeout(timeoutMs, () => done('silent'));
    socket.once('connect', () => done('open'));
    socket.once('error', (err: NodeJS.ErrnoException) => done(err.code === 'ECONNREFUSED' ? 'closed' : 'silent'));
  });

/** true when something accepts TCP connections at host:port within timeoutMs (one probe, no retry). */
export async function portOpen(host: string, port: number, timeoutMs = 500): Promise<boolean> {
  return (await tcpProbe(host, port, timeoutMs)) === 'open';
}

/**
 * Probes host:port until it is `open` or `closed`; a `silent` probe (timeout)
 * is retried with back-off and a longer timeout, so a busy machine is never
 * mistaken for an empty or a foreign port. Returns `silent` only when every
 * attempt timed out.
 */
export async function probePort(host: string, port: number, opts: ProbeOptions = {}): Promise<PortState> {
  const attempts = Math.max(1, opts.attempts ?? 5);
  const probe = opts.probe ?? tcpProbe;
  let timeoutMs = opts.timeoutMs ?? 1000;
  let backoffMs = opts.backoffMs ?? 200;
  for (let i = 1; ; i++) {
    const state = await probe(host, port, timeoutMs);
    if (state !== 'silent' || i >= attempts) return state;
    await new Promise((r) => setTimeout(r, backoffMs));
    timeoutMs = Math.min(timeoutMs * 2, 8000);
    backoffMs *= 2;
  }
}

/** The value of `--name VALUE` or `--name=VALUE` in an argument vector. */
function flagValue(argv: string[], name: string): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === name) return argv[i + 1];
    if (argv[i]!.startsWith(`${name}=`)) return argv[i]!.slice(name.length + 1);
  }
  return undefined;
}

/**
 * true when an argument vector is `temporal server start-dev` on this db file
 * (absolute path) and, when `port` is given, this frontend port — the server
 * of one Zuno home: the db file is what ties a server to a home. (Asking the
 * server over gRPC, e.g. GetSystemInfo, would only prove that *a* Temporal
 * server answers, not whose db it serves, nor its pid; the command line says both.)
 */
export function isDevServerArgv(argv: string[], dbFile: string, port?: number): boolean {
  const i = argv.indexOf('server');
  if (i < 0 || argv[i + 1] !== 'start-dev') return false;
  if (flagValue(argv, '--db-filename') !== dbFile) return false;
  return port === undefined || flagValue(argv, '--port') === String(port);
}

/**
 * Whether `pid` is the dev server of this db file (and port): `ours` when its
 * command line (`/proc/<pid>/cmdline`) says so, `dead` when it is gone,
 * `other` when the pid now runs something else (pid reuse), `assumed` when
 * it is alive but this system has no /proc to ask (then it is trusted, as a
 * pid recorded by this home).
 */
export function devServerOwnership(pid: number, dbFile: string, port?: number): 'ours' | 'dead' | 'other' | 'assumed' {
  if (!pidAlive(pid)) return 'dead';
  const argv = processArgv(pid);
  if (argv === null) return procAvailable() ? (pidAlive(pid) ? 'other' : 'dead') : 'assumed';
  return isDevServerArgv(argv, dbFile, port) ? 'ours' : 'other';
}

/** Pids of the running `temporal server start-dev` processes on this db file and port (Linux /proc; else empty). */
export function findDevServerPids(dbFile: string, port?: number): number[] {
  return findProcesses((argv) => isDevServerArgv(argv, dbFile, port));
}
