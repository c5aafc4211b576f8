import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

/**
 * `npm run test:quick`: the tests that need no server — no Temporal dev or
 * time-skipping server, no `zuno` process, no PostgreSQL — found by what a
 * file uses (the harness helpers, `inject(...)` of the shared server, the CLI
 * runner). Tools, core, permission, providers against the local HTTP server.
 * The full suite (`npm test`) runs everything.
 */
const NEEDS_A_SERVER =
  /inject\(|helpers\/(session|harness|dev-server|time-skipping|worker-process)|cli\/helpers|runZuno|PostgreSQL|postgres|startTestDevServer/;

function serverFree(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.test.ts'))
    .map((f) => join(dir, f))
    .filter((f) => !NEEDS_A_SERVER.test(readFileSync(f, 'utf8')));
}

export default defineConfig({
  test: {
    include: serverFree('test'),
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 60_000,
  },
});
