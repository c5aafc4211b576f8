#!/usr/bin/env node
// `npm run demo:council`: a Council reviews a real commit, end to end on the embedded
// default (dev server + SQLite in ZUNO_HOME, started for you). See README.md beside this file.
//
// 1. prepare.mjs makes a fresh git repository with two commits; the second brings an
//    off-by-one, a shell injection and no test;
// 2. `zuno council run --diff HEAD~1..HEAD` runs the balanced-review Council on it with the
//    scripted model of script.json: three read-only seats (their progress is printed as each
//    settles; tests-review's first report is invalid and it retries once), then the synthesis;
// 3. `zuno council show <runId>` reads the Council back from the projection.
// Exit code: zuno's (0 only when the Council succeeded).
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const zuno = join(root, 'bin', 'zuno.mjs');

const repo = execFileSync(process.execPath, [join(here, 'prepare.mjs')], { encoding: 'utf8' }).trim();
process.stderr.write(`demo: a fresh repository whose last commit needs review: ${repo}\n`);

const question = 'Review the last commit: is it correct, safe and tested?';
const args = [zuno, 'council', 'run', question, '--diff', 'HEAD~1..HEAD', '--dir', repo];
// Progress (each seat's settlement) goes to stderr as it happens; the run id is read from it.
const run = spawn(process.execPath, [...args, '--script', join(here, 'script.json')], {
  stdio: ['ignore', 'inherit', 'pipe'],
});
let said = '';
run.stderr.on('data', (chunk) => {
  said += chunk;
  process.stderr.write(chunk);
});
const status = await new Promise((done) => run.on('close', done));
if (status !== 0) process.exit(status ?? 1);
const runId = /council (cr_[a-z0-9]+) started/.exec(said)?.[1];
if (!runId) process.exit(1);
process.stderr.write(`\n$ zuno council show ${runId}\n`);
const show = spawnSync(process.execPath, [zuno, 'council', 'show', runId], { stdio: 'inherit' });
process.exit(show.status ?? 1);
