import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { portOpen } from '../../worker/dev-server.js';
import { REQUIRED_SEARCH_ATTRIBUTES } from '../../worker/temporal-config.js';

/** Root of the repository (tests run from anywhere). */
export const ROOT = join(import.meta.dirname, '..', '..');
/** The pinned Temporal CLI installed by scripts/setup-tools.mjs. */
export const TEMPORAL_BIN = process.env.ZUNO_TEMPORAL_BIN ?? join(ROOT, '.tools', 'bin', 'temporal');

/** A free TCP port on 127.0.0.1 (bound then released). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}

/** A real Temporal dev server owned by a test. */
export interface TestDevServer {
  address: string;
  port: number;
  dbFile: string;
  /** The server process's id while it runs (benches read its CPU time). */
  pid(): number | undefined;
  /** SIGKILLs the server process (a crash). */
  kill(): Promise<void>;
  /** Starts it again on the same port and db file. */
  start(): Promise<void>;
}

const SEARCH_ATTRIBUTES = Object.keys(REQUIRED_SEARCH_ATTRIBUTES);

/**
 * Server settings every test server gets (issue 33, docs/versioning.md): each test home
 * has a task queue of its own, and so a Worker Deployment of its own — more than the
 * default 100 per namespace over a suite run; and a non-current version's drainage is
 * checked every second after a 2 s visibility grace (default 3 min each), so a test
 * sees a replaced build reported drained.
 */
export const VERSIONING_TEST_CONFIG = [
  'matching.maxDeployments=100000',
  'matching.wv.VersionDrainageStatusRefreshInterval="1s"',
  'matching.wv.VersionDrainageStatusVisibilityGracePeriod="2s"',
];

/**
 * Starts the pinned `temporal server start-dev` on free ports with a
 * persistent db file and Zuno's search attributes, and waits until it accepts
 * connections (≤ 30 s). `dynamicConfig` entries are `KEY=VALUE` server settings, after
 * {@link VERSIONING_TEST_CONFIG}.
 */
export async function startTestDevServer(dbFile: string, dynamicConfig: string[] = []): Promise<TestDevServer> {
  let port = await freePort();
  let uiPort = await freePort();
  let child: ChildProcess | undefined;
  const start = async () => {
    const args = ['server', 'start-dev', '--db-filename', dbFile, '--ip', '127.0.0.1', '--port', String(port)];
    args.push('--headless', '--log-level', 'error', '--ui-port', String(uiPort));
    for (const sa of SEARCH_ATTRIBUTES) args.push('--search-attribute', `${sa}=Keyword`);
    for (const kv of [...VERSIONING_TEST_CONFIG, ...dynamicConfig]) args.push('--dynamic-config-value', kv);
    const c = spawn(TEMPORAL_BIN, args, { stdio: ['ignore', 'ignore', 'pipe'], detached: true });
    child = c;
    let stderr = '';
    c.stderr?.on('data', (d) => (stderr = (stderr + String(d)).slice(-2000)));
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline) {
      if (await portOpen('127.0.0.1', port)) return;
      if (c.exitCode !== null || c.signalCode !== null) throw new ServerExited(port, stderr);
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`Temporal dev server did not start on ${port}: ${stderr.trim() || 'no output'}`);
  };
  const kill = async () => {
    const c = child;
    if (!c || c.exitCode !== null || c.signalCode !== null) return;
    const exited = new Promise((r) => c.once('exit', r));
    process.kill(-c.pid!, 'SIGKILL');
    await exited;
  };
  // A port found free can be taken before the server binds it (tests start servers side by side):
  // a server that exits at once is started again on fresh ports, twice at most.
  for (let attempt = 1; ; attempt++) {
    try {
      await start();
      break;
    } catch (err) {
      if (!(err instanceof ServerExited) || attempt === 3) throw err;
      port = await freePort();
      uiPort = await freePort();
    }
  }
  return {
    address: `127.0.0.1:${port}`,
    port,
    dbFile,
    pid: () => (child && child.exitCode === null && child.signalCode === null ? child.pid : undefined),
    kill,
    start,
  };
}

/** The dev server process ended before it accepted connections. */
class ServerExited extends Error {
  constructor(port: number, stderr: string) {
    super(`Temporal dev server exited before it listened on ${port}: ${stderr.trim() || 'no output'}`);
  }
}
