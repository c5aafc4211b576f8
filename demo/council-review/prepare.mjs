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
import { cpSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildRepo, repoDir } from '../prepare-repo.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const repo = repoDir(process.argv[2], 'zuno-council-review-');
buildRepo(repo, (git) => {
  git('init', '-q', '-b', 'main');
  cpSync(join(here, 'project', 'v1'), repo, { recursive: true });
  git('add', '-A');
  git('commit', '-q', '-m', 'pagekit: page() and pageCount() with a test');
  cpSync(join(here, 'project', 'v2'), repo, { recursive: true });
  git('add', '-A');
  git('commit', '-q', '-m', 'pagekit: explicit page end; archiveExport() for the download button');
});
