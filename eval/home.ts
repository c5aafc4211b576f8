/**
 * The eval's own ZUNO_HOME: a fresh folder whose temporal.yaml is the
 * installation's with free loopback ports and its own task queue, so the
 * embedded dev server it starts never meets a developer's own (port 7233).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { ROOT } from './paths.js';
import { zuno, type ZunoEnv } from './zuno.js';

/** A TCP port free on 127.0.0.1 right now. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}

/**
 * Makes `<dir>/home` with its temporal.yaml and returns the environment every
 * eval command runs in: that home, and none of the variables that would send
 * Zuno elsewhere (TEMPORAL_ADDRESS, DATABASE_URL, ZUNO_TEMPORAL_CONFIG, ZUNO_WORKER).
 */
export async function freshHome(dir: string): Promise<ZunoEnv> {
  const home = join(dir, 'home');
  mkdirSync(home, { recursive: true });
  const [port, uiPort] = [await freePort(), await freePort()];
  const yaml = readFileSync(join(ROOT, 'temporal.yaml'), 'utf8')
    .replace(/address: 127\.0\.0\.1:\d+/, `address: 127.0.0.1:${port}`)
    .replace(/\n(\s+)port: \d+/, `\n$1port: ${port}`)
    .replace(/uiPort: \d+/, `uiPort: ${uiPort}`)
    .replace(/\ntaskQueue: .*/, '\ntaskQueue: zuno-eval');
  writeFileSync(join(home, 'temporal.yaml'), yaml);
  const env = { TEMPORAL_ADDRESS: undefined, DATABASE_URL: undefined, ZUNO_TEMPORAL_CONFIG: undefined };
  return { home, env: { ...env, ZUNO_WORKER: undefined } };
}

/** Starts the home's dev server and host worker before tasks run side by side. @throws when either fails. */
export async function startHome(z: ZunoEnv): Promise<void> {
  for (const args of [
    ['dev', 'up'],
    ['worker', 'start'],
  ]) {
    const r = await zuno(args, z, 120_000);
    if (r.code !== 0) throw new Error(`zuno ${args.join(' ')} exited ${r.code}: ${r.stderr.trim()}`);
  }
}

/** Stops the home's host worker and dev server (`zuno worker stop`, `zuno dev down`); failures are ignored. */
export async function stopHome(z: ZunoEnv): Promise<void> {
  await zuno(['worker', 'stop'], z, 60_000, { evenWhenStopping: true });
  await zuno(['dev', 'down'], z, 60_000, { evenWhenStopping: true });
}
