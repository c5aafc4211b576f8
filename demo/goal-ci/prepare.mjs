#!/usr/bin/env node
// Prepares the repository of the goal demo (README.md beside this file): copies
// project/ and ci/ into a fresh git repository, commits them, and prints the
// repository's absolute path on stdout (nothing else goes to stdout).
//
//   node demo/goal-ci/prepare.mjs [DIR]
//
// DIR must not exist or be an empty directory; default: a new directory under
// the system's temp dir. Plain Node and git, no dependencies, works offline.
import { execFileSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

function fail(message) {
  process.stderr.write(`prepare: ${message}\n`);
  process.exit(1);
}

function targetDir(arg) {
  if (arg === undefined) return mkdtempSync(join(tmpdir(), 'zuno-goal-ci-'));
  const dir = resolve(arg);
  if (existsSync(dir) && readdirSync(dir).length > 0) fail(`${dir} is not empty`);
  mkdirSync(dir, { recursive: true });
  return dir;
}

const repo = realpathSync(targetDir(process.argv[2]));
cpSync(join(here, 'project'), repo, { recursive: true });
cpSync(join(here, 'ci'), join(repo, 'ci'), { recursive: true });
for (const script of ['run', 'status']) chmodSync(join(repo, 'ci', script), 0o755);

const git = (...args) =>
  execFileSync(
    'git',
    ['-c', 'user.name=Zuno demo', '-c', 'user.email=demo@zuno.invalid', '-c', 'commit.gpgsign=false', ...args],
    { cwd: repo, stdio: ['ignore', 'ignore', 'pipe'] },
  );
try {
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-q', '-m', 'slugkit: slugify with its tests, and a local CI (ci/run, ci/status)');
} catch (err) {
  fail(`git failed in ${repo}: ${String(err.stderr ?? err.message).trim()}`);
}
process.stdout.write(`${repo}\n`);
