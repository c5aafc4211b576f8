import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { startTestDevServer } from './helpers/dev-server.js';

declare module 'vitest' {
  export interface ProvidedContext {
    temporalAddress: string;
  }
}

/**
 * One real Temporal dev server (the pinned binary) for the whole test run;
 * tests that crash or restart a server start their own.
 */
export default async function setup(project: TestProject) {
  const dir = mkdtempSync(join(tmpdir(), 'zuno-test-temporal-'));
  const server = await startTestDevServer(join(dir, 'temporal.db'));
  project.provide('temporalAddress', server.address);
  return async () => {
    await server.kill();
    rmSync(dir, { recursive: true, force: true });
  };
}
