import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { workflowBundlePath } from '../worker/workflow-bundle.js';
import { startTestDevServer } from './helpers/dev-server.js';

declare module 'vitest' {
  export interface ProvidedContext {
    temporalAddress: string;
  }
}

/**
 * One real Temporal dev server (the pinned binary) for the whole test run;
 * tests that crash or restart a server start their own. One workflow-bundle
 * cache for every home the tests make (`ZUNO_BUNDLE_CACHE`, inherited by the
 * test processes and passed on by `runZuno`), bundled once here: a fresh home
 * would otherwise spend ~7 CPU-seconds bundling the same code again.
 */
export default async function setup(project: TestProject) {
  const dir = mkdtempSync(join(tmpdir(), 'zuno-test-temporal-'));
  process.env.ZUNO_BUNDLE_CACHE = join(dir, 'bundle-cache');
  const [server] = await Promise.all([startTestDevServer(join(dir, 'temporal.db')), workflowBundlePath(dir)]);
  project.provide('temporalAddress', server.address);
  // Ctrl-C (or a CI runner's SIGTERM) ends vitest without its teardown: the server is its own process group
  // (detached), so it would outlive the run. Kill it, then end as the signal would have.
  const onSignal = (signal: NodeJS.Signals) => {
    const pid = server.pid();
    if (pid !== undefined) {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    rmSync(dir, { recursive: true, force: true });
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
    process.kill(process.pid, signal);
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  return async () => {
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
    await server.kill();
    rmSync(dir, { recursive: true, force: true });
  };
}
