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
  return async () => {
    await server.kill();
    rmSync(dir, { recursive: true, force: true });
  };
}
