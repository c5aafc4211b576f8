#!/usr/bin/env node
// `npm run demo:release`: the release-watching Goal, end to end on the embedded
// default (dev server + SQLite in ZUNO_HOME, started for you). See README.md beside
// this file.
//
// 1. prepare.mjs makes a fresh git repository holding padkit, written for
//    left-pad-lite 2 but still depending on ^1.0.0 (its test fails), and a zuno.json
//    allowing the loopback registry (network.allow_private);
// 2. registry.mjs's server starts on 127.0.0.1 and answers left-pad-lite 1.0.0 for
//    its first requests, then publishes 2.0.0;
// 3. `zuno goal start … --watch <registry>/left-pad-lite --until json:dist-tags.latest=2.0.0`
//    starts the Goal: it waits (waiting_watch) on workflow timers, one short
//    guarded fetch per check, no session and no model request; the first check
//    that sees 2.0.0 wakes it once, the watch's report satisfying cr_1; the scripted
//    model then bumps the dependency, runs `node --test` (the check that owns cr_2,
//    --check) and completes the Goal citing that run's receipt;
// 4. `zuno goal show <id>` shows the watch, its report and the transitions.
// Exit code: zuno goal start's (0 only when the goal completed), else goal show's.
// The registry is stopped on every exit.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startRegistry } from './registry.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const zuno = join(root, 'bin', 'zuno.mjs');
const goal = JSON.parse(readFileSync(join(here, 'goal.json'), 'utf8'));
const say = (line) => process.stderr.write(`${line}\n`);

const repo = execFileSync(process.execPath, [join(here, 'prepare.mjs')], { encoding: 'utf8' }).trim();
say(`demo: a fresh repository depending on ${goal.package} ^1.0.0 (its test fails until it is bumped): ${repo}`);
const registry = await startRegistry({ log: (line) => say(`  ${line}`) });
say(`demo: a registry on ${registry.url}: ${goal.package} 1.0.0 for its first requests, then 2.0.0`);

/**
 * Runs zuno with `args` (asynchronously: the registry answers in this process
 * meanwhile), its output passed through; resolves with its exit code and the
 * goal id its first line named (`goal goal_… started`).
 */
function zunoRun(args) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [zuno, ...args], { stdio: ['inherit', 'inherit', 'pipe'] });
    let goalId;
    child.stderr.setEncoding('utf8').on('data', (text) => {
      goalId ??= /^goal (goal_[0-9a-z]+) started/m.exec(text)?.[1];
      process.stderr.write(text);
    });
    child.once('error', () => resolve({ code: 1, goalId }));
    child.once('close', (code) => resolve({ code: code ?? 1, goalId }));
  });
}

const args = ['goal', 'start', goal.objective, '--dir', repo, '--script', join(here, 'script.json')];
args.push('--watch', `${registry.url}/${goal.package}`, '--until', goal.watch.until);
args.push('--every', goal.watch.every, '--watch-timeout', goal.watch.watchTimeout);
for (const c of goal.criteria) {
  args.push(c.needsEvidence ? '--evidence-criterion' : '--criterion', c.text);
  // The command that owns the criterion: only its passing, fresh receipt completes it.
  if (c.check) args.push('--check', c.check);
}
let code = 1;
try {
  const started = await zunoRun(args);
  code = started.code;
  if (started.goalId) {
    // What the operator sees afterwards: the watch, its report, the criteria and the transitions.
    say(`\n$ zuno goal show ${started.goalId}`);
    const show = await zunoRun(['goal', 'show', started.goalId]);
    if (code === 0) code = show.code;
  }
  if (code === 0) {
    say(`\n$ git diff   # in ${repo}`);
    spawnSync('git', ['--no-pager', 'diff'], { cwd: repo, stdio: 'inherit' });
  }
} finally {
  await registry.close();
}
process.exit(code);
