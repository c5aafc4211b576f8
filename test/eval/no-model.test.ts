import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../eval/paths.js';
import { tempDir } from '../cli/helpers.js';

/**
 * `npm run eval` without a model (docs/eval.md): one line starting
 * `no model configured:` naming what to set, exit code 0, and nothing
 * started (not even the work folder is made). Bad arguments exit 1.
 */
function evalRun(args: string[], model?: string) {
  const env = { ...process.env };
  delete env.ZUNO_EVAL_MODEL;
  if (model !== undefined) env.ZUNO_EVAL_MODEL = model;
  return spawnSync(
    process.execPath,
    [join(ROOT, 'node_modules', '.bin', 'tsx'), join(ROOT, 'eval', 'run.ts'), ...args],
    {
      cwd: ROOT,
      env,
      encoding: 'utf8',
    },
  );
}

describe('npm run eval without a model', () => {
  it('prints the one no-model line, exits 0 and starts nothing', () => {
    const work = join(tempDir('zuno-eval-nomodel-'), 'work');
    const r = evalRun(['--work', work]);
    expect({ code: r.status, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
    const lines = r.stdout.split('\n').filter((l) => l !== '');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^no model configured: set ZUNO_EVAL_MODEL=.*OPENAI_API_KEY.*--trajectories pass\|fail$/);
    expect(existsSync(work)).toBe(false);
  });

  it('refuses an unknown task or trajectory kind with one line and exit 1', () => {
    const task = evalRun(['--task', 'no-such-task']);
    expect({ code: task.status, stdout: task.stdout }).toEqual({ code: 1, stdout: '' });
    expect(task.stderr).toMatch(/^zuno eval: unknown task no-such-task; tasks: ms-plural, /);
    const kind = evalRun(['--trajectories', 'maybe']);
    expect({ code: kind.status, stderr: kind.stderr }).toEqual({
      code: 1,
      stderr: 'zuno eval: --trajectories takes pass or fail\n',
    });
  });

  it('stops at a model zuno refuses with exit 1, not a 0/8 verdict on the model', () => {
    const work = join(tempDir('zuno-eval-badmodel-'), 'work');
    const r = evalRun(['--work', work, '--task', 'ms-plural', '--task', 'escape-html-quote'], 'bogus');
    expect(r.status, r.stderr).toBe(1);
    expect(r.stderr).toMatch(/^zuno eval: the eval could not run [a-z-]+: zuno: model_invalid: .*"bogus"/m);
    expect(r.stdout).not.toContain('pass rate');
    expect(r.stdout).not.toMatch(/^(PASS|FAIL) /m);
  }, 120_000);

  it('--help lists the options and exits 0', () => {
    const r = evalRun(['--help']);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^usage: npm run eval/);
    for (const o of ['--task', '--trajectories', '--report', '--work', '--packs', '--concurrency'])
      expect(r.stdout).toContain(o);
  });
});
