#!/usr/bin/env node
// `npm run demo:goal`: the CI-watching Goal, end to end on the embedded default
// (dev server + SQLite in ZUNO_HOME, started for you). See README.md beside this file.
//
// 1. prepare.mjs makes a fresh git repository holding the slugkit project (a failing
//    test) and its local CI;
// 2. `zuno goal start` gives the scripted model the goal of goal.json in that repository;
//    it starts CI as a remote observer, waits (waiting_background), reads the failure,
//    fixes it with apply_patch, runs CI again, and completes the goal citing the
//    verification receipt of `sh ci/status` — the check that owns the criterion
//    (--check), so no other command's receipt would do;
// 3. the goal is looked up in Temporal the way an operator would:
//    temporal workflow list --query "ZunoKind='goal' AND ZunoGoalStatus='completed'".
// Exit code: zuno's (0 only when the goal completed), else 1 when the lookup fails.
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const zuno = join(root, 'bin', 'zuno.mjs');
const goal = JSON.parse(readFileSync(join(here, 'goal.json'), 'utf8'));

const repo = execFileSync(process.execPath, [join(here, 'prepare.mjs')], { encoding: 'utf8' }).trim();
process.stderr.write(`demo: a fresh repository with a failing test: ${repo}\n`);

const args = [zuno, 'goal', 'start', goal.objective, '--dir', repo, '--script', join(here, 'script.json')];
for (const c of goal.criteria) {
  args.push(c.needsEvidence ? '--evidence-criterion' : '--criterion', c.text);
  // The command that owns the criterion: only its passing, fresh receipt completes it.
  if (c.check) args.push('--check', c.check);
}
const run = spawnSync(process.execPath, args, { stdio: 'inherit', env: { ...process.env, ...goal.env } });
if (run.status !== 0) process.exit(run.status ?? 1);

// The operator's view: the dev server zuno started (or reused) answers the visibility query.
const status = spawnSync(process.execPath, [zuno, 'dev', 'status'], { encoding: 'utf8' });
const address = /at (\S+),/.exec(status.stdout ?? '')?.[1];
const query = "ZunoKind='goal' AND ZunoGoalStatus='completed'";
if (!address) {
  process.stderr.write(`demo: the goal completed; look it up with: temporal workflow list --query "${query}"\n`);
  process.exit(0);
}
process.stderr.write(`\n$ temporal workflow list --address ${address} --query "${query}"\n`);
const temporal = join(root, '.tools', 'bin', 'temporal');
const list = spawnSync(temporal, ['workflow', 'list', '--address', address, '--query', query, '--limit', '5'], {
  stdio: 'inherit',
});
process.exit(list.status === 0 ? 0 : 1);
