#!/usr/bin/env node
// Prepares the repository of the council demo (README.md beside this file): a
// fresh git repository with two commits — project/v1/ (pagekit: paginate.js and
// its one test), then project/v2/ laid over it (an off-by-one in page(), a new
// archive.js that builds a shell command from its arguments, and no new test) —
// and prints the repository's absolute path on stdout (nothing else goes there).
//
//   node demo/council-review/prepare.mjs [DIR]
//
// DIR must not exist or be an empty directory; default: a new directory under
// the system's temp dir. Plain Node and git, no dependencies, works offline.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

function fail(message) {
  process.stderr.write(`prepare: ${message}\n`);
  process.exit(1);
}

function targetDir(arg) {
  if (arg === undefined) return mkdtempSync(join(tmpdir(), 'zuno-council-review-'));
  const dir = resolve(arg);
  if (existsSync(dir) && readdirSync(dir).length > 0) fail(`${dir} is not empty`);
  mkdirSync(dir, { recursive: true });
  return dir;
}

const repo = realpathSync(targetDir(process.argv[2]));
const git = (...args) =>
  execFileSync(
    'git',
    ['-c', 'user.name=Zuno demo', '-c', 'user.email=demo@zuno.invalid', '-c', 'commit.gpgsign=false', ...args],
    { cwd: repo, stdio: ['ignore', 'ignore', 'pipe'] },
  );
try {
  git('init', '-q', '-b', 'main');
  cpSync(join(here, 'project', 'v1'), repo, { recursive: true });
  git('add', '-A');
  git('commit', '-q', '-m', 'pagekit: page() and pageCount() with a test');
  cpSync(join(here, 'project', 'v2'), repo, { recursive: true });
  git('add', '-A');
  git('commit', '-q', '-m', 'pagekit: explicit page end; archiveExport() for the download button');
} catch (err) {
  fail(`git failed in ${repo}: ${String(err.stderr ?? err.message).trim()}`);
}
process.stdout.write(`${repo}\n`);
