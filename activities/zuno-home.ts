import { mkdirSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

/**
 * Zuno's user-level home, the same from any working directory: `$ZUNO_HOME`
 * (an empty value counts as unset), else `~/.zuno`; absolute. It holds the
 * SQLite projection, the dev server's state, log and database, the workflow
 * bundle cache, the standalone worker's record and the user-level `AGENTS.md`.
 */
export function zunoHome(): string {
  return resolve(process.env.ZUNO_HOME || join(homedir(), '.zuno'));
}

/**
 * Creates `dir` and its missing parents one level at a time (Node's
 * `mkdirSync(…, {recursive: true})` loops forever under `/proc` and similar
 * file systems that answer ENOENT for every mkdir).
 * @throws the first mkdir/stat error (ENOENT, EACCES, ENOTDIR, EROFS, …).
 */
export function makeDirs(dir: string): void {
  const missing: string[] = [];
  let at = resolve(dir);
  for (;;) {
    try {
      if (!statSync(at).isDirectory()) throw Object.assign(new Error(`${at} is not a directory`), { code: 'ENOTDIR' });
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || dirname(at) === at) throw err;
      missing.unshift(at);
      at = dirname(at);
    }
  }
  for (const d of missing) mkdirSync(d);
}
