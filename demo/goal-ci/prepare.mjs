#!/usr/bin/env node
// Prepares the repository of the goal demo (README.md beside this file): copies
// project/ and ci/ into a fresh git repository, commits them, and prints the
// repository's absolute path on stdout (nothing else goes to stdout).
//
//   node demo/goal-ci/prepare.mjs [DIR]
//
// DIR must not exist or be an empty directory; default: a new directory under
// the system's temp dir. Plain Node and git, no dependencies, works offline.
import { chmodSync, cpSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildRepo, repoDir } from '../prepare-repo.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const repo = repoDir(process.argv[2], 'zuno-goal-ci-');
cpSync(join(here, 'project'), repo, { recursive: true });
cpSync(join(here, 'ci'), join(repo, 'ci'), { recursive: true });
for (const script of ['run', 'status']) chmodSync(join(repo, 'ci', script), 0o755);
buildRepo(repo, (git) => {
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-q', '-m', 'slugkit: slugify with its tests, and a local CI (ci/run, ci/status)');
});
