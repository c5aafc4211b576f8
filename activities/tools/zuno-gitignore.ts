/**
 * A `.zuno` directory — Zuno's output inside a workspace, or its own state
 * when ZUNO_HOME is the workspace — holds a `.gitignore` of `*`, so the
 * workspace's `git status` stays clean after a run (issue 9 "one home").
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The `.gitignore` Zuno writes into a `.zuno` directory it created or uses. */
export const ZUNO_GITIGNORE = '# Written by Zuno: its state and tool output stay out of git.\n*\n';

/**
 * Writes `<dir>/.gitignore` ignoring everything, unless one exists already
 * (a user's own is never replaced). Best effort: a read-only directory is
 * left as it is.
 */
export function ensureZunoGitignore(dir: string): void {
  try {
    writeFileSync(join(dir, '.gitignore'), ZUNO_GITIGNORE, { flag: 'wx', mode: 0o644 });
  } catch {
    // exists already, or not writable: nothing to do
  }
}
