// What the demos' prepare.mjs scripts share (demo/goal-ci, demo/council-review,
// demo/release-watch): the target directory (DIR from the command line, which
// must not exist or be empty; default a new directory under the system's temp
// dir), git run in it as a demo author that signs nothing, and a failure as one
// `prepare:` line on stderr with exit code 1. Plain Node and git, works offline.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/** Ends the script: `prepare: <message>` on stderr, exit code 1. */
export function fail(message) {
  process.stderr.write(`prepare: ${message}\n`);
  process.exit(1);
}

/**
 * The repository directory, real path: `arg` (created when missing; refused when not empty) or a new
 * `<tmp>/<prefix>XXXXXX`.
 */
export function repoDir(arg, prefix) {
  if (arg === undefined) return realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  const dir = resolve(arg);
  if (existsSync(dir) && readdirSync(dir).length > 0) fail(`${dir} is not empty`);
  mkdirSync(dir, { recursive: true });
  return realpathSync(dir);
}

/**
 * Runs `build(git)` in `repo`, where `git(...args)` runs git there as the demo author (no signing); a git
 * failure ends the script with its stderr. Then prints the repository's path on stdout (nothing else goes there).
 */
export function buildRepo(repo, build) {
  const git = (...args) =>
    execFileSync(
      'git',
      ['-c', 'user.name=Zuno demo', '-c', 'user.email=demo@zuno.invalid', '-c', 'commit.gpgsign=false', ...args],
      { cwd: repo, stdio: ['ignore', 'ignore', 'pipe'] },
    );
  try {
    build(git);
  } catch (err) {
    fail(`git failed in ${repo}: ${String(err.stderr ?? err.message).trim()}`);
  }
  process.stdout.write(`${repo}\n`);
}
