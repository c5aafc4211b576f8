/**
 * A task's workspace: the package's tarball unpacked into a fresh git
 * repository, the task's own files (eval/tasks/<id>/files/) beside it, the bug
 * reintroduced by exact replacement, all committed, so what the agent changed
 * is `git status` against HEAD.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { taskDir } from './paths.js';
import type { Replacement, TaskDef } from './types.js';

/** Runs git in `dir` as the eval's author, signing nothing; returns stdout. @throws on a git failure. */
export function git(dir: string, ...args: string[]): string {
  return execFileSync(
    'git',
    ['-c', 'user.name=Zuno eval', '-c', 'user.email=eval@zuno.invalid', '-c', 'commit.gpgsign=false', ...args],
    { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
  );
}

/** Applies one replacement. @throws when `from` does not occur exactly once in the file. */
export function applyReplacement(root: string, r: Replacement): void {
  const path = join(root, r.file);
  const text = readFileSync(path, 'utf8');
  const count = text.split(r.from).length - 1;
  if (count !== 1) throw new Error(`${r.file}: the bug's text occurs ${count} times, not once`);
  writeFileSync(
    path,
    text.replace(r.from, () => r.to),
  );
}

/**
 * Makes `<ws>`: unpacks `tarball` (its `package/` folder becomes the root),
 * copies the task's files/, commits, reintroduces the bug and commits again
 * (`bugCommit` as its own commit, else amended into the first, so the history
 * does not show the bug). Returns `ws`. @throws when a step fails.
 */
export function prepareWorkspace(task: TaskDef, tarball: string, ws: string): string {
  mkdirSync(ws, { recursive: true });
  execFileSync('tar', ['xzf', tarball, '-C', ws, '--strip-components=1'], { stdio: 'ignore' });
  const files = join(taskDir(task.id), 'files');
  if (existsSync(files)) cpSync(files, ws, { recursive: true });
  git(ws, 'init', '-q', '-b', 'main');
  git(ws, 'add', '-A');
  git(ws, 'commit', '-q', '-m', `${task.package.name}@${task.package.version}`);
  for (const r of task.bug) applyReplacement(ws, r);
  git(ws, 'add', '-A');
  if (task.bugCommit) git(ws, 'commit', '-q', '-m', task.bugCommit);
  else git(ws, 'commit', '-q', '--amend', '--no-edit');
  return ws;
}

/** The paths the agent changed, added or removed since HEAD (untracked files included), sorted. */
export function changedFiles(ws: string): string[] {
  const out = git(ws, 'status', '--porcelain', '--untracked-files=all');
  return out
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => l.slice(3).replace(/^.* -> /, ''))
    .sort();
}
