import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

/**
 * Zuno's user-level home, the same from any working directory: `$ZUNO_HOME`
 * (an empty value counts as unset), else `~/.zuno`; absolute. It holds the
 * SQLite projection, the dev server's state, log and database, the workflow
 * bundle cache, the standalone worker's record and the user-level `AGENTS.md`.
 */
export function zunoHome(): string {
  return resolve(process.env.ZUNO_HOME || join(homedir(), '.zuno'));
}
