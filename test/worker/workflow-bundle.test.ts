import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { workflowBundlePath } from '../../worker/workflow-bundle.js';

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

afterAll(() => {
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
