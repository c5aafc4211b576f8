import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { bundleWorkflowCode, DefaultLogger, type Logger } from '@temporalio/worker';
import { INSTALL_ROOT as projectRoot } from './install-root.js';

/**
 * Absolute path of the workflow entry module. Always the TypeScript source,
 * also when the worker runs from the compiled dist/: the bundler compiles
 * workflows/ itself, and the cache key below hashes these sources.
 */
export const WORKFLOWS_PATH = join(projectRoot, 'workflows', 'index.ts');

function hashTree(hash: ReturnType<typeof createHash>, dir: string): void {
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) hashTree(hash, p);
    else if (name.endsWith('.ts')) hash.update(p).update(readFileSync(p));
  }
}

/**
 * Returns a path to the bundled workflow code, bundling only when the
 * workflow sources (workflows/, core/) or the lockfile changed: bundling costs
 * seconds, and every `zuno run` that starts a worker needs a bundle. The cache
 * lives in `<stateDir>/cache/`, keyed by a SHA-256 of those inputs.
 *
 * `workflowsPath` replaces the entry module (default {@link WORKFLOWS_PATH}):
 * tests bundle fixture workflows next to Zuno's with an entry that re-exports
 * `workflows/index.ts`. The `.ts` files of that entry's folder join the cache key.
 */
export async function workflowBundlePath(
  stateDir: string,
  logger?: Logger,
  workflowsPath: string = WORKFLOWS_PATH,
): Promise<string> {
  const entry = resolve(workflowsPath);
  const hash = createHash('sha256');
  hashTree(hash, join(projectRoot, 'workflows'));
  hashTree(hash, join(projectRoot, 'core'));
  if (entry !== WORKFLOWS_PATH) {
    hash.update(entry);
    hashTree(hash, dirname(entry));
  }
  try {
    hash.update(readFileSync(join(projectRoot, 'package-lock.json')));
  } catch {
    // no lockfile: the sources alone key the cache
  }
  const dir = join(stateDir, 'cache');
  const path = join(dir, `workflow-bundle-${hash.digest('hex').slice(0, 16)}.js`);
  try {
    statSync(path);
    return path;
  } catch {
    // not cached yet
  }
  const bundle = await bundleWorkflowCode({
    workflowsPath: entry,
    logger: logger ?? new DefaultLogger('WARN'),
  });
  mkdirSync(dir, { recursive: true });
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, bundle.code);
  renameSync(tmp, path);
  return path;
}
