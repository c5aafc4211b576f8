/** The installed Zuno's version, for `zuno --version` and the worker's build id. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { INSTALL_ROOT } from '../activities/infra/index.js';

/** The version in Zuno's package.json (the installation's, wherever `zuno` runs from, sources or dist/). */
export function zunoVersion(): string {
  const pkg = JSON.parse(readFileSync(join(INSTALL_ROOT, 'package.json'), 'utf8')) as { version?: string };
  return pkg.version ?? 'unknown';
}
