/** Where the eval's parts live: the tasks' folders and the vendored tarballs. */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The eval/ folder. */
export const EVAL_DIR = dirname(fileURLToPath(import.meta.url));

/** The repository root (the folder holding eval/). */
export const ROOT = join(EVAL_DIR, '..');

/** The vendored tarballs the tests use (offline): eval/packs/. */
export const VENDORED_PACKS = join(EVAL_DIR, 'packs');

/** A task's folder: eval/tasks/<id>/ (task.json, check.ts, pass.json, fail.json, files/). */
export function taskDir(id: string): string {
  return join(EVAL_DIR, 'tasks', id);
}
