/**
 * One attempt at a task: the `zuno` command its mode calls for (run, goal
 * start, council run; delegate is a run), driven by a real model (`--model`)
 * or a recorded trajectory (`--script eval/tasks/<id>/<pass|fail>.json`), and
 * the session, Goal or Council id it printed.
 */
import { join } from 'node:path';
import { taskDir } from './paths.js';
import type { Attempt, CommandResult, TaskDef } from './types.js';
import { zuno, type ZunoEnv } from './zuno.js';

/** Who answers: a real model (`provider/model`) or one of the task's recorded trajectories. */
export type Driver = { model: string } | { trajectory: 'pass' | 'fail' };

/** How long one attempt may take: a real model gets 15 minutes, a recorded trajectory 3. */
export function attemptTimeoutMs(driver: Driver): number {
  return 'model' in driver ? 15 * 60_000 : 3 * 60_000;
}

/** The CLI arguments of an attempt at `task` in `ws`. */
export function attemptArgs(task: TaskDef, ws: string, driver: Driver): string[] {
  const who =
    'model' in driver ? ['--model', driver.model] : ['--script', join(taskDir(task.id), `${driver.trajectory}.json`)];
  switch (task.mode) {
    case 'run':
    case 'delegate':
      return ['run', task.prompt, '--dir', ws, '--agent', task.role, '--json', ...who];
    case 'council':
      return ['council', 'run', task.prompt, '--diff', task.diff ?? 'HEAD~1..HEAD', '--dir', ws, '--json', ...who];
    case 'goal': {
      const g = task.goal!;
      return [
        'goal',
        'start',
        task.prompt,
        '--dir',
        ws,
        '--evidence-criterion',
        g.criterion,
        '--check',
        g.check,
        '--tool-call-budget',
        String(g.toolCallBudget),
        '--time-budget',
        g.timeBudget,
        '--json',
        ...who,
      ];
    }
  }
}

/** The first match of `re` (its group 1) in the command's stdout, then its stderr; null when none. */
function idIn(r: CommandResult, re: RegExp): string | null {
  return re.exec(r.stdout)?.[1] ?? re.exec(r.stderr)?.[1] ?? null;
}

/** Runs the attempt and reads the ids it printed (`--json` output, or the started line on stderr). */
export async function runAttempt(task: TaskDef, ws: string, driver: Driver, z: ZunoEnv): Promise<Attempt> {
  const command = await zuno(attemptArgs(task, ws, driver), z, attemptTimeoutMs(driver));
  return {
    command,
    sessionId: idIn(command, /"sessionId":"(ses_[0-9a-z]+)"/) ?? idIn(command, /session (ses_[0-9a-z]+)/),
    // The id as a field, else as `goal goal_… started`: a bare `goal_…` would also match a tool's name (`goal_update`).
    goalId: idIn(command, /"goalId":"(goal_[0-9a-z]+)"/) ?? idIn(command, /\bgoal (goal_[0-9a-z]+)/),
    councilId: idIn(command, /(cr_[0-9a-z]+)/),
  };
}
