#!/usr/bin/env node
// Prepares the repository of the release-watch demo (README.md beside this file):
// copies project/ (padkit, written for left-pad-lite 2 but still depending on
// ^1.0.0, and its zuno.json allowing the loopback registry) into a fresh git
// repository, commits it, and prints the repository's absolute path on stdout
// (nothing else goes to stdout).
//
//   node demo/release-watch/prepare.mjs [DIR]
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
  if (arg === undefined) return mkdtempSync(join(tmpdir(), 'zuno-release-watch-'));
  const dir = resolve(arg);
  if (existsSync(dir) && readdirSync(dir).length > 0) fail(`${dir} is not empty`);
  mkdirSync(dir, { recursive: true });
  return dir;
}

const repo = realpathSync(targetDir(process.argv[2]));
cpSync(join(here, 'project'), repo, { recursive: true });

const git = (...args) =>
  execFileSync(
    'git',
    ['-c', 'user.name=Zuno demo', '-c', 'user.email=demo@zuno.invalid', '-c', 'commit.gpgsign=false', ...args],
    { cwd: repo, stdio: ['ignore', 'ignore', 'pipe'] },
  );
try {
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-q', '-m', 'padkit: columns on the left-pad-lite 2 API, still depending on ^1.0.0 until 2.0.0 is out');
} catch (err) {
  fail(`git failed in ${repo}: ${String(err.stderr ?? err.message).trim()}`);
}
process.stdout.write(`${repo}\n`);
