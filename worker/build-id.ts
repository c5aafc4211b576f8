/**
 * The build id of this Zuno's workflow code (issue 33 item 4, docs/versioning.md):
 * what names this build's Worker Deployment Version.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { INSTALL_ROOT } from '../activities/infra/install-root.js';
import { WORKFLOWS_PATH } from './workflow-bundle.js';

/** The folders whose `.ts` files make up the bundled workflow code: the workflows and the pure code they import. */
const HASHED_FOLDERS = ['workflows', 'core'];
/** Hex digits of the content hash kept in a build id. */
const HASH_DIGITS = 12;

/**
 * `<zuno version>-<hash>`, e.g. `0.1.0-3f9a1c2b7d4e`: Zuno's version (package.json)
 * and the first 12 hex digits of a SHA-256 over what the worker bundles as
 * workflow code — every `.ts` file under `workflows/` and `core/` (its path
 * relative to the installation, `/`-separated, and its content with CRLF read
 * as LF), the version of `@temporalio/workflow` (its runtime is bundled too) and,
 * for a test entry (`workflowsPath`), the `.ts` files of the entry's folder the
 * same way. Paths are relative, so the same sources give the same id on every
 * machine and in every checkout path; a change to any workflow-side file gives
 * another id. `core/` holds some code only activities use: a change there
 * makes a new build too (a promotion, never a wrong replay). Reads the files
 * synchronously (~10 ms for ~300 files).
 * @throws what reading the sources throws (a broken installation).
 */
export function workflowBuildId(workflowsPath: string = WORKFLOWS_PATH): string {
  const hash = createHash('sha256');
  for (const folder of HASHED_FOLDERS) hashFolder(hash, join(INSTALL_ROOT, folder));
  hash.update(
    `@temporalio/workflow@${packageVersion(join(INSTALL_ROOT, 'node_modules', '@temporalio', 'workflow'))}\n`,
  );
  const entry = resolve(workflowsPath);
  if (entry !== WORKFLOWS_PATH) {
    hash.update(`entry ${portable(entry)}\n`);
    hashFolder(hash, dirname(entry));
  }
  return `${packageVersion(INSTALL_ROOT)}-${hash.digest('hex').slice(0, HASH_DIGITS)}`;
}

/** Feeds every `.ts` file under `dir` (sorted, recursively) into `hash`: its portable path, then its content. */
function hashFolder(hash: ReturnType<typeof createHash>, dir: string): void {
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) hashFolder(hash, path);
    else if (name.endsWith('.ts'))
      hash.update(`${portable(path)}\n`).update(readFileSync(path, 'utf8').replace(/\r\n/g, '\n'));
  }
}

/** A path relative to the installation, with `/` separators. */
function portable(path: string): string {
  return relative(INSTALL_ROOT, path).split(sep).join('/');
}

/** The `version` of the package.json in `dir` (`unknown` when it has none). */
function packageVersion(dir: string): string {
  try {
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version?: string };
    return pkg.version ?? 'unknown';
  } catch {
    return 'unknown';
  }
}
