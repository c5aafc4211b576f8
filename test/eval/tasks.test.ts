import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commandPasses, restoreTaskFiles, shellIn } from '../../eval/checks.js';
import { integrityOf, packageTarball, tarballName } from '../../eval/packs.js';
import { EVAL_DIR, taskDir, VENDORED_PACKS } from '../../eval/paths.js';
import { loadTask, TASK_IDS } from '../../eval/tasks/index.js';
import { git, prepareWorkspace } from '../../eval/workspace.js';
import { tempDir } from '../cli/helpers.js';

/**
 * The eval's task definitions (docs/eval.md), offline: each vendored tarball
 * is the pinned one (sha512), every task has its checker and both recorded
 * trajectories, and each reintroduced bug is real: the task's own test fails
 * on the workspace the eval makes and passes once the bug's replacement is
 * undone. No registry, no server.
 */
const tasks = TASK_IDS.map(loadTask);

/** The test that shows a task's bug, or null for tasks whose bug is not a failing test (none, or a Council's). */
function testOf(id: string): string | null {
  if (id === 'is-number-blank') return 'node --test test/eval-blank.test.mjs';
  return existsSync(join(taskDir(id), 'files', 'test')) ? 'node --test test/' : null;
}

describe('eval tasks', () => {
  it('has 8 to 12 tasks covering run, goal, council, delegate and a read-only plan role', () => {
    expect(tasks.length).toBeGreaterThanOrEqual(8);
    expect(tasks.length).toBeLessThanOrEqual(12);
    expect(new Set(tasks.map((t) => t.def.mode))).toEqual(new Set(['run', 'goal', 'council', 'delegate']));
    expect(tasks.some((t) => t.def.role === 'plan')).toBe(true);
    expect(
      readdirSync(join(EVAL_DIR, 'tasks'))
        .filter((n) => n !== 'index.ts')
        .sort(),
    ).toEqual([...TASK_IDS].sort());
  });

  it.each(TASK_IDS)('%s: the vendored tarball is the pinned one, and both trajectories are recorded', async (id) => {
    const { def } = loadTask(id);
    const file = join(VENDORED_PACKS, tarballName(def.package));
    expect(integrityOf(file)).toBe(def.package.integrity);
    await expect(packageTarball(def.package, { vendored: VENDORED_PACKS })).resolves.toBe(file);
    for (const which of ['pass', 'fail']) {
      const script = JSON.parse(readFileSync(join(taskDir(id), `${which}.json`), 'utf8')) as { replies?: unknown[] };
      expect(Array.isArray(script.replies), `${id}/${which}.json`).toBe(true);
    }
  });

  it('refuses a tarball whose bytes are not the pinned ones', async () => {
    const dir = tempDir('zuno-eval-packs-');
    const { def } = loadTask('ms-plural');
    writeFileSync(join(dir, tarballName(def.package)), 'not the package');
    await expect(packageTarball(def.package, { vendored: dir })).rejects.toThrow(/is not the pinned sha512-/);
  });

  it.each(TASK_IDS.filter((id) => testOf(id) !== null))(
    '%s: the task test fails on the workspace with the bug and passes without it',
    async (id) => {
      const task = loadTask(id).def;
      const tarball = await packageTarball(task.package, { vendored: VENDORED_PACKS });
      const ws = prepareWorkspace(task, tarball, join(tempDir('zuno-eval-ws-'), 'ws'));
      restoreTaskFiles(task, ws, 'hidden');
      expect(git(ws, 'log', '--format=%s')).toBe(`${task.package.name}@${task.package.version}\n`);
      expect(shellIn(ws, testOf(id)!).code).not.toBe(0);
      for (const r of task.bug) {
        const path = join(ws, r.file);
        writeFileSync(
          path,
          readFileSync(path, 'utf8').replace(r.to, () => r.from),
        );
      }
      expect(commandPasses(ws, testOf(id)!)).toBeNull();
    },
  );

  it('semver-gt-council: the bug is the last commit, touching functions/gt.js only', async () => {
    const task = loadTask('semver-gt-council').def;
    const tarball = await packageTarball(task.package, { vendored: VENDORED_PACKS });
    const ws = prepareWorkspace(task, tarball, join(tempDir('zuno-eval-ws-'), 'ws'));
    expect(git(ws, 'diff', '--name-only', 'HEAD~1..HEAD')).toBe('functions/gt.js\n');
    expect(git(ws, 'show', 'HEAD:functions/gt.js').split('\n')[1]).toContain('>= 0');
  });
});
