/**
 * `npm run eval` (docs/eval.md): runs the tasks of eval/tasks/ against the
 * model ZUNO_EVAL_MODEL names (or, with --trajectories pass|fail, against
 * their recorded trajectories, offline), in a fresh ZUNO_HOME, prints one
 * line per task and the pass rate, and writes the JSON report.
 *
 *   tsx eval/run.ts [--task ID]... [--trajectories pass|fail] [--report PATH]
 *                   [--work DIR] [--packs DIR] [--concurrency N]
 *
 * Exit code 0 when every task ran (whatever their verdicts), 1 when the eval
 * itself could not run (bad arguments, a tarball whose integrity is wrong).
 */
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { Driver } from './drive.js';
import { freshHome, startHome, stopHome } from './home.js';
import type { PackSource } from './packs.js';
import { VENDORED_PACKS } from './paths.js';
import { makeReport, summaryLines, taskLines, writeReport } from './report.js';
import { runTask, type TaskOutcome } from './run-task.js';
import { type EvalTask, loadTask, TASK_IDS } from './tasks/index.js';
import { isStopping, stopAll } from './zuno.js';

/** The line printed (exit 0, nothing started) when neither a model nor --trajectories is given. */
export const NO_MODEL_LINE =
  "no model configured: set ZUNO_EVAL_MODEL=<provider>/<model> (e.g. openai/gpt-4.1) and the provider's key (e.g. OPENAI_API_KEY) to run the eval, or run the recorded trajectories offline with --trajectories pass|fail";

/** Set by Ctrl-C: the eval then ends with exit code 130, whatever the interrupted commands made of it. */
let interrupted = false;

/** After Ctrl-C: never returns — the SIGINT handler exits 130 once the home is stopped; no verdict is reported. */
function endOfInterrupt(): Promise<never> {
  return new Promise<never>(() => undefined);
}

/** Runs `jobs` at most `limit` at a time; results in the order of `jobs`. */
async function pool<T>(jobs: (() => Promise<T>)[], limit: number): Promise<T[]> {
  const results: T[] = new Array(jobs.length);
  let next = 0;
  const lane = async () => {
    while (next < jobs.length) {
      const i = next++;
      results[i] = await jobs[i]!();
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, limit) }, lane));
  return results;
}

/** The parsed command line. @throws on an unknown option, task or trajectory kind. */
function options() {
  const { values } = parseArgs({
    options: {
      task: { type: 'string', multiple: true },
      trajectories: { type: 'string' },
      report: { type: 'string' },
      work: { type: 'string' },
      packs: { type: 'string' },
      concurrency: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const t = values.trajectories;
  if (t !== undefined && t !== 'pass' && t !== 'fail') throw new Error('--trajectories takes pass or fail');
  const tasks = (values.task ?? TASK_IDS).map(loadTask);
  const concurrency = Number(values.concurrency ?? 2);
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new Error('--concurrency takes a whole number ≥ 1');
  return { ...values, trajectories: t as 'pass' | 'fail' | undefined, tasks, concurrency };
}

/**
 * Runs the tasks in a fresh home and returns their outcomes; the home's worker and dev server are stopped after.
 * Ctrl-C (a terminal sends it to the whole group, and tsx relays it once more) and a closed stdout (`| head`) stop
 * every command first — none starts after — then the home, then exit 130; a setup error stops them the same way.
 */
async function runAll(tasks: EvalTask[], driver: Driver, packs: PackSource, runDir: string, concurrency: number) {
  const z = await freshHome(runDir);
  const onInterrupt = () => {
    if (interrupted) return;
    interrupted = true;
    stopAll();
    process.stderr.write("zuno eval: interrupted; stopping the home's worker and dev server\n");
    void stopHome(z).finally(() => process.exit(130));
  };
  const onStdoutError = (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') onInterrupt();
  };
  process.on('SIGINT', onInterrupt);
  process.stdout.on('error', onStdoutError);
  try {
    await startHome(z);
    const jobs = tasks.map((task) => async (): Promise<TaskOutcome> => {
      const outcome = await runTask(task, { packs, workRoot: runDir, driver, z });
      if (!isStopping()) process.stdout.write(`${taskLines(outcome)}\n`);
      return outcome;
    });
    const outcomes = await pool(jobs, concurrency);
    if (interrupted) return await endOfInterrupt();
    return { z, outcomes };
  } catch (err) {
    if (interrupted) return await endOfInterrupt();
    stopAll(); // the other tasks' commands too: nothing may start the home again once it is stopped
    throw err;
  } finally {
    if (!interrupted) {
      process.removeListener('SIGINT', onInterrupt);
      await stopHome(z);
    }
  }
}

/** `npm run eval -- --help`. */
const USAGE = `usage: npm run eval [-- options]

Runs the task eval (docs/eval.md) against ZUNO_EVAL_MODEL=<provider>/<model> (with the provider's key),
or, with --trajectories, the recorded scripted trajectories offline.

  --task ID              run only this task (repeatable); tasks: ${TASK_IDS.join(', ')}
  --trajectories pass|fail  the recorded passing or failing trajectories instead of a model
  --report PATH          where the JSON report goes (default <run dir>/report.json)
  --work DIR             work folder: runs, workspaces, the npm pack cache (default $TMPDIR/zuno-eval)
  --packs DIR            take the tarballs from DIR instead of npm pack
  --concurrency N        tasks at a time (default 2)
  -h, --help             this help

Exit 0 when every task ran (the pass rate is the result); 1 when the eval could not run (a bad option,
a model, provider or key zuno refuses, a tarball whose integrity is wrong); 130 on Ctrl-C.`;

async function main(): Promise<number> {
  const opts = options();
  if (opts.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const model = process.env.ZUNO_EVAL_MODEL?.trim();
  if (!model && !opts.trajectories) {
    process.stdout.write(`${NO_MODEL_LINE}\n`);
    return 0;
  }
  const driver: Driver = opts.trajectories ? { trajectory: opts.trajectories } : { model: model! };
  const work = resolve(opts.work ?? join(tmpdir(), 'zuno-eval'));
  mkdirSync(work, { recursive: true });
  // A real model's run fetches with npm pack into the work dir's cache; recorded trajectories use the vendored tarballs.
  const packs: PackSource = opts.packs
    ? { vendored: resolve(opts.packs) }
    : opts.trajectories
      ? { vendored: VENDORED_PACKS }
      : { cache: join(work, 'packs') };
  const runDir = mkdtempSync(join(work, 'run-'));
  const startedAt = new Date();
  const what = 'model' in driver ? `model ${driver.model}` : `recorded ${driver.trajectory} trajectories`;
  process.stdout.write(`zuno eval: ${opts.tasks.length} tasks, ${what}, in ${runDir}\n`);
  const { z, outcomes } = await runAll(opts.tasks, driver, packs, runDir, opts.concurrency);
  const report = makeReport(driver, z.home, startedAt, outcomes);
  const path = resolve(opts.report ?? join(runDir, 'report.json'));
  writeReport(path, report);
  process.stdout.write(`${summaryLines(report)}\nreport: ${path}\n`);
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    if (interrupted) return; // the SIGINT handler exits once the home is stopped
    process.stderr.write(`zuno eval: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
