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
import { cpSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildRepo, repoDir } from '../prepare-repo.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const repo = repoDir(process.argv[2], 'zuno-release-watch-');
cpSync(join(here, 'project'), repo, { recursive: true });
buildRepo(repo, (git) => {
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-q', '-m', 'padkit: columns on the left-pad-lite 2 API, still depending on ^1.0.0 until 2.0.0 is out');
});
