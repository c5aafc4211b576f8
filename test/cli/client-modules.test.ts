/**
 * Commands that the host worker service serves do not load the Temporal
 * worker SDK (issue 25 item 6): `zuno run`, `goal start|resume`, `council
 * run` and `session resume` load the worker modules only when they serve
 * their work in process (`client/serve.ts` imports them on first use).
 * Loading them cost ~0.6 s of CPU on every `zuno run`, ~1–2 s of wall time
 * on a loaded machine (bench/service-startup.ts).
 *
 * Each check imports the command modules in a fresh node process (through
 * tsx, as the sources run) and reads node's CommonJS module cache, where
 * `@temporalio/worker` (CommonJS) lands once anything imports it.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/dev-server.js';

/** Imports `modules` (paths under the repository) in a fresh process; returns the loaded `@temporalio/worker` files. */
function workerSdkFilesLoadedBy(modules: string[]): string[] {
  const code = [
    "import { createRequire } from 'node:module';",
    "import { pathToFileURL } from 'node:url';",
    `for (const m of ${JSON.stringify(modules.map((m) => join(ROOT, m)))}) await import(pathToFileURL(m).href);`,
    'const cache = createRequire(import.meta.url).cache;',
    "console.log(JSON.stringify(Object.keys(cache).filter((k) => k.includes('/node_modules/@temporalio/worker/'))));",
  ].join('\n');
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { PATH: process.env.PATH, HOME: process.env.HOME },
    timeout: 120_000,
  });
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout.trim().split('\n').at(-1)!) as string[];
}

describe('client commands and the worker SDK', () => {
  it('the commands the service serves load no Temporal worker code; the worker command does', () => {
    const commands = ['run', 'goal-start', 'goal-resume', 'council-run', 'session-resume'];
    expect(workerSdkFilesLoadedBy(commands.map((c) => `client/commands/${c}.ts`))).toEqual([]);
    // The check sees the SDK when it is loaded: `zuno worker` needs it.
    expect(workerSdkFilesLoadedBy(['client/commands/worker.ts']).length).toBeGreaterThan(0);
  });
});
