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
  /** SIGKILLs the server process (a crash). */
  kill(): Promise<void>;
  /** Starts it again on the same port and db file. */
  start(): Promise<void>;
}

const SEARCH_ATTRIBUTES = Object.keys(REQUIRED_SEARCH_ATTRIBUTES);

/**
 * Starts the pinned `temporal server start-dev` on free ports with a
 * persistent db file and Zuno's search attributes, and waits until it accepts
 * connections (≤ 30 s). `dynamicConfig` entries are `KEY=VALUE` server settings.
 */
export async function startTestDevServer(dbFile: string, dynamicConfig: string[] = []): Promise<TestDevServer> {
  const port = await freePort();
  const uiPort = await freePort();
  let child: ChildProcess | undefined;
  const start = async () => {
    const args = ['server', 'start-dev', '--db-filename', dbFile, '--ip', '127.0.0.1', '--port', String(port)];
    args.push('--headless', '--log-level', 'error', '--ui-port', String(uiPort));
    for (const sa of SEARCH_ATTRIBUTES) args.push('--search-attribute', `${sa}=Keyword`);
    for (const kv of dynamicConfig) args.push('--dynamic-config-value', kv);
    child = spawn(TEMPORAL_BIN, args, { stdio: 'ignore', detached: true });
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline) {
      if (await portOpen('127.0.0.1', port)) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`Temporal dev server did not start on ${port}`);
  };
  const kill = async () => {
    const c = child;
    if (!c || c.exitCode !== null) return;
    const exited = new Promise((r) => c.once('exit', r));
    process.kill(-c.pid!, 'SIGKILL');
    await exited;
  };
  await start();
  return { address: `127.0.0.1:${port}`, port, dbFile, kill, start };
}
