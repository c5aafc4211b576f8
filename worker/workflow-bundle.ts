import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { execa } from 'execa';
import { INSTALL_ROOT as projectRoot } from '../activities/infra/install-root.js';

/**
 * Absolute path of the workflow entry module. Always the TypeScript source,
 * also when the worker runs from the compiled dist/: the bundler compiles
 * workflows/ itself, and the cache key below hashes these sources.
 */
export const WORKFLOWS_PATH = join(projectRoot, 'workflows', 'index.ts');

/**
 * Modules the workflow bundle loads once and shares between the workflows
 * of a worker (the bundler's `preloadModules`; issue 13 item 5). With the
 * reused V8 context every module a workflow imports is otherwise evaluated
 * again for each workflow in the cache: the tool declarations with their zod
 * schemas were most of the ~2 MiB an idle cached session held. Only pure
 * modules belong here — constant tables and functions of their arguments,
 * no module-level state, no `@temporalio/workflow` call — as all of core/ is
 * (no core module imports @temporalio/workflow). The SDK deep-freezes them:
 * workflow code must not parse with these zod schemas (zod caches internals
 * on first use); validation belongs to modelStep. Part of the cache key.
 */
export const SHARED_MODULES = [join(projectRoot, 'core', 'tools', 'registry.ts')];

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
 * lives in `<stateDir>/cache/` — or in `$ZUNO_BUNDLE_CACHE` when set (one
 * cache for many homes: CI, the test suite) — keyed by a SHA-256 of those
 * inputs; a bundle is written to a temporary name and renamed, so any number
 * of processes may share one cache.
 *
 * `workflowsPath` replaces the entry module (default {@link WORKFLOWS_PATH}):
 * tests bundle fixture workflows next to Zuno's with an entry that re-exports
 * `workflows/index.ts`. The `.ts` files of that entry's folder join the cache key.
 *
 * The bundler (webpack) runs in a child process, `worker/bundle-workflows.mjs`
 * (issue 13 item 5): in the worker's own process it left ~190 MB of RSS behind
 * for the worker's whole life.
 * @throws Error carrying the bundler's stderr when bundling fails.
 */
export async function workflowBundlePath(stateDir: string, workflowsPath: string = WORKFLOWS_PATH): Promise<string> {
  const entry = resolve(workflowsPath);
  const hash = createHash('sha256');
  hashTree(hash, join(projectRoot, 'workflows'));
  hashTree(hash, join(projectRoot, 'core'));
  hash.update(readFileSync(BUNDLER)).update(SHARED_MODULES.join('\n'));
  if (entry !== WORKFLOWS_PATH) {
    hash.update(entry);
    hashTree(hash, dirname(entry));
  }
  try {
    hash.update(readFileSync(join(projectRoot, 'package-lock.json')));
  } catch {
    // no lockfile: the sources alone key the cache
  }
  const dir = bundleCacheDir(stateDir);
  const path = join(dir, `workflow-bundle-${hash.digest('hex').slice(0, 16)}.js`);
  try {
    statSync(path);
    return path;
  } catch {
    // not cached yet
  }
  mkdirSync(dir, { recursive: true });
  const tmp = `${path}.${process.pid}.tmp`;
  const child = await execa(process.execPath, [BUNDLER, entry, tmp, ...SHARED_MODULES], {
    reject: false,
    stdin: 'ignore',
  });
  if (child.exitCode !== 0) {
    rmSync(tmp, { force: true });
    const why = (child.stderr || child.stdout || `exit ${String(child.exitCode ?? child.signal)}`).trim();
    throw new Error(`bundling the workflow code of ${entry} failed: ${why}`);
  }
  if (child.stderr.trim()) process.stderr.write(`${child.stderr.trim()}\n`);
  renameSync(tmp, path);
  return path;
}

/** Where {@link workflowBundlePath} keeps bundles: `$ZUNO_BUNDLE_CACHE` when set (made absolute), else `<stateDir>/cache`. */
export function bundleCacheDir(stateDir: string): string {
  const shared = process.env.ZUNO_BUNDLE_CACHE?.trim();
  return shared ? resolve(shared) : join(stateDir, 'cache');
}

/** The bundler's own process (plain JavaScript: it runs the same from the sources and from dist/). */
const BUNDLER = join(projectRoot, 'worker', 'bundle-workflows.mjs');
