/**
 * Where the files of the Zuno installation are, whether this code runs from
 * the TypeScript sources (tsx, vitest) or from the compiled JavaScript in
 * `dist/` (scripts/build.mjs mirrors the source tree: `client/cli.ts` →
 * `dist/client/cli.js`).
 *
 * Files that ship beside the sources and are read at runtime (tool
 * descriptions `activities/tools/*.txt`, `shell/guard.mjs`, the Prisma
 * migrations, package.json, temporal.yaml, `.tools/`) are never copied into
 * `dist/`: they are always read from the source tree, so there is one copy
 * and a change to one needs no rebuild.
 */
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The folder under the installation root that holds the compiled JavaScript. */
export const DIST_DIR = 'dist';

const here = fileURLToPath(import.meta.url);
/** true when this module (and so every module of this process's Zuno code) runs from `dist/`. */
export const RUNNING_COMPILED = here.endsWith('.js');

/**
 * Root of the Zuno installation: the folder with package.json, temporal.yaml,
 * `.tools/` and the sources. This module is `<root>/activities/infra/install-root.ts`
 * or `<root>/dist/activities/infra/install-root.js`.
 */
export const INSTALL_ROOT = RUNNING_COMPILED ? join(dirname(here), '..', '..', '..') : join(dirname(here), '..', '..');

/**
 * Absolute path of `rel` resolved against the source folder of the module
 * whose `import.meta.url` is `moduleUrl`: from `dist/activities/tools/index.js`,
 * `sourceRelative(import.meta.url, './read.txt')` is
 * `<root>/activities/tools/read.txt`, the same file the TypeScript module reads.
 */
export function sourceRelative(moduleUrl: string, rel: string): string {
  const file = fileURLToPath(moduleUrl);
  const base = file.endsWith('.js') ? join(INSTALL_ROOT, DIST_DIR) : INSTALL_ROOT;
  return join(INSTALL_ROOT, dirname(relative(base, file)), rel);
}
