import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleCacheDir, workflowBundlePath } from '../../worker/workflow-bundle.js';

const require = createRequire(import.meta.url);
const dirs: string[] = [];
const freshDir = (): string => {
  const d = mkdtempSync(join(tmpdir(), 'zuno-bundle-'));
  dirs.push(d);
  return d;
};
/** webpack modules this process has loaded (the bundler's entry memoizes the rest). */
const webpackModules = (): number =>
  Object.keys(require.cache).filter((k) => k.includes('/node_modules/webpack/')).length;

// These tests are about the home's own cache: the suite's shared one (test/global-setup.ts) is set aside here.
const sharedCache = process.env.ZUNO_BUNDLE_CACHE;
beforeAll(() => {
  delete process.env.ZUNO_BUNDLE_CACHE;
});

afterAll(() => {
  if (sharedCache !== undefined) process.env.ZUNO_BUNDLE_CACHE = sharedCache;
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('workflowBundlePath (issue 13 item 5: the bundler runs in a process of its own)', () => {
  it('bundles once into the cache, without loading webpack into this process, and reuses the file', async () => {
    const dir = freshDir();
    const loadedBefore = webpackModules();
    const path = await workflowBundlePath(dir);
    expect(path.startsWith(join(dir, 'cache', 'workflow-bundle-'))).toBe(true);
    const first = statSync(path);
    expect(first.size).toBeGreaterThan(100_000);
    expect(webpackModules()).toBe(loadedBefore);
    expect(await workflowBundlePath(dir)).toBe(path);
    expect(statSync(path).mtimeMs).toBe(first.mtimeMs);
  }, 120_000);

  it('uses $ZUNO_BUNDLE_CACHE instead of the home when it is set, so many homes share one bundle', () => {
    const shared = freshDir();
    process.env.ZUNO_BUNDLE_CACHE = shared;
    try {
      expect(bundleCacheDir(freshDir())).toBe(shared);
      process.env.ZUNO_BUNDLE_CACHE = ' ';
      const home = freshDir();
      expect(bundleCacheDir(home)).toBe(join(home, 'cache'));
    } finally {
      delete process.env.ZUNO_BUNDLE_CACHE;
    }
  });

  it("names the entry and carries the bundler's error when bundling fails, and caches nothing", async () => {
    const dir = freshDir();
    const entry = join(dir, 'broken-workflows.ts');
    writeFileSync(entry, "export { missing } from './does-not-exist.js';\n");
    await expect(workflowBundlePath(dir, entry)).rejects.toThrow(
      new RegExp(
        `bundling the workflow code of ${entry.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} failed: .*does-not-exist`,
        's',
      ),
    );
    expect(readdirSync(join(dir, 'cache'))).toEqual([]);
  }, 120_000);
});
