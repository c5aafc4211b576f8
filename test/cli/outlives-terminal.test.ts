import { type ChildProcess, execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { councilWorkflowId } from '../../core/council/contract.js';
import { goalWorkflowId } from '../../core/goal/contract.js';
import { sessionWorkflowId } from '../../core/ids.js';
import { readWorker } from '../../client/worker-registry.js';
import { pidAlive } from '../../worker/process-info.js';
import { ROOT } from '../helpers/dev-server.js';
import { expectNoStack, makeHome, runZuno, tempDir, useTestTemporal, writeJson, type ZunoResult } from './helpers.js';

/**
 * Issue 25 "Must show": a Goal and a Council are served by the host worker
 * service, not by the command that started them, so they outlive that
 * command's terminal (`kill -9` of its process group) and are picked up again
 * with `goal show --follow` / `council show --follow`; when the service
 * itself is killed, the next such command starts it again and the work
 * finishes, with no side-effecting (`Never`) call run twice.
 */
const temporal = useTestTemporal();
/** Every command of these tests is served by the host worker service. */
const SERVICE = { ZUNO_WORKER: 'service' };
const GOAL_DEMO = join(ROOT, 'demo', 'goal-ci');
const COUNCIL_DEMO = join(ROOT, 'demo', 'council-review');

/** Homes whose service is stopped after the file; the services seen (pid → home), killed if still alive. */
const homes: string[] = [];
const services = new Map<number, string>();
afterAll(async () => {
  for (const home of homes) {
    if (!existsSync(home)) continue;
    const rec = readWorker(home);
    if (rec) services.set(rec.pid, home);
    await runZuno(['worker', 'stop'], { home, env: SERVICE, timeoutMs: 60_000 });
  }
  for (const [pid, home] of services) if (isServiceOf(pid, home)) process.kill(pid, 'SIGKILL');
}, 180_000);

/** Whether `pid` is alive and is `zuno worker run --service` of `home` (not a process that reused a dead one's pid). */
function isServiceOf(pid: number, home: string): boolean {
  if (!pidAlive(pid)) return false;
  try {
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    const environ = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
    return cmdline.includes('worker\0run\0--service') && environ.includes(`ZUNO_HOME=${home}`);
  } catch {
    return false;
  }
}

/** A fresh home on the test server's Temporal, remembered so its service is stopped after the file. */
function serviceHome(): string {
  const { home } = makeHome({ address: temporal.address });
  homes.push(home);
  return home;
}

/** The pid of the live host worker service of `home` (fails the test when none runs). */
function servicePid(home: string): number {
  const rec = readWorker(home);
  expect(rec?.service, `worker.json of ${home}: ${JSON.stringify(rec)}`).toBe(true);
  expect(isServiceOf(rec!.pid, home)).toBe(true);
  services.set(rec!.pid, home);
  return rec!.pid;
}

/** SIGKILLs the service `pid` and waits until it is gone (a zombie counts as gone). */
async function killHard(pid: number): Promise<void> {
  services.delete(pid);
  process.kill(pid, 'SIGKILL');
  await vi.waitFor(() => expect(pidAlive(pid)).toBe(false), { timeout: 30_000, interval: 100 });
}

/** A `zuno` command started in the background, its stderr readable while it runs. */
interface Running {
  done: Promise<ZunoResult>;
  stderr: () => string;
  child: () => ChildProcess;
}

/** Starts `zuno …args` in `home` with `env` (killed after 300 s); see {@link Running}. */
function startZuno(args: string[], home: string, env: Record<string, string>): Running {
  let child: ChildProcess | undefined;
  let err = '';
  const done = runZuno(args, {
    home,
    env,
    timeoutMs: 300_000,
    onSpawn: (c) => {
      child = c;
      c.stderr!.on('data', (d: Buffer | string) => (err += String(d)));
    },
  });
  return { done, stderr: () => err, child: () => child! };
}

/** Kills the command's whole process group with SIGKILL, as closing its terminal hard would; resolves when it exited. */
async function killTerminal(r: Running): Promise<ZunoResult> {
  process.kill(-r.child().pid!, 'SIGKILL');
  const res = await r.done;
  expect(res.signal).toBe('SIGKILL');
  return res;
}

/** A fresh demo/goal-ci repository whose ci/run and ci/status append a line to `.calls` each time they run. */
function prepareGoalRepo(): { repo: string; calls: () => string[] } {
  const repo = execFileSync(
    process.execPath,
    [join(GOAL_DEMO, 'prepare.mjs'), join(tempDir('zuno-outlive-'), 'repo')],
    {
      encoding: 'utf8',
    },
  ).trim();
  for (const script of ['run', 'status']) {
    const file = join(repo, 'ci', script);
    // A function replacement: a replacement string would read `$$` as one `$`.
    const text = readFileSync(file, 'utf8').replace(
      'set -u\n',
      () => `set -u\necho "${script} $$" >>"$(cd "$(dirname "$0")/.." && pwd)/.calls"\n`,
    );
    writeFileSync(file, text);
  }
  const calls = () => {
    const f = join(repo, '.calls');
    return existsSync(f) ? readFileSync(f, 'utf8').trim().split('\n') : [];
  };
  return { repo, calls };
}

/** How many lines of `calls` start with `word`. */
const count = (calls: string[], word: string) => calls.filter((l) => l.startsWith(`${word} `)).length;

/** The goal id `goal start` printed. */
function goalIdOf(text: string): string | null {
  return /\b(goal_[0-9a-z]+)\b/.exec(text)?.[1] ?? null;
}

/** Starts demo/goal-ci as a Goal served by the service and resolves once it waits for its first CI run. */
async function goalWaitingOnCi(home: string, repo: string): Promise<{ start: Running; goalId: string }> {
  const goal = JSON.parse(readFileSync(join(GOAL_DEMO, 'goal.json'), 'utf8')) as {
    objective: string;
    criteria: { text: string }[];
  };
  const start = startZuno(
    [
      'goal',
      'start',
      goal.objective,
      '--dir',
      repo,
      '--script',
      join(GOAL_DEMO, 'script.json'),
      '--evidence-criterion',
      goal.criteria[0]!.text,
    ],
    home,
    // The first CI run is still queued well after the Goal went to wait for it.
    { ...SERVICE, CI_DELAY_SECONDS: '20' },
  );
  await vi.waitFor(() => expect(start.stderr()).toMatch(/^waiting for CI: remote observer bg_\S+ is running$/m), {
    timeout: 240_000,
    interval: 200,
  });
  const goalId = goalIdOf(start.stderr());
  expect(goalId, start.stderr()).not.toBeNull();
  expect((await goalRow(home, goalId!)).state.status).toBe('waiting_background');
  return { start, goalId: goalId! };
}

/** `goal show <id> --json`'s goal row. */
async function goalRow(
  home: string,
  id: string,
): Promise<{ revision: number; state: { status: string; reason?: string } }> {
  const r = await runZuno(['goal', 'show', id, '--json'], { home, env: SERVICE });
  expect(r.code, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as { goal: { revision: number; state: { status: string; reason?: string } } }).goal;
}

/**
 * The Goal's row and workflow say completed, and the repo's CI ran exactly
 * twice (`run` and `status` each twice, runs 1 and 2 on disk).
 */
async function expectGoalCompletedCiRanTwice(
  home: string,
  goalId: string,
  repo: string,
  calls: () => string[],
): Promise<void> {
  expect((await goalRow(home, goalId)).state.status).toBe('completed');
  expect((await temporal.client.workflow.getHandle(goalWorkflowId(goalId)).describe()).status.name).toBe('COMPLETED');
  expect({ run: count(calls(), 'run'), status: count(calls(), 'status') }, calls().join('\n')).toEqual({
    run: 2,
    status: 2,
  });
  expect(readdirSync(join(repo, '.ci', 'runs')).sort()).toEqual(['1', '2']);
}

describe('a Goal outlives the terminal that started it', () => {
  it('goal start SIGKILLed while the Goal waits on a remote observer: goal show --follow follows it to completed; no shell call ran twice', async () => {
    const home = serviceHome();
    const { repo, calls } = prepareGoalRepo();
    const { start, goalId } = await goalWaitingOnCi(home, repo);
    const pid = servicePid(home);
    await killTerminal(start);
    expect(pidAlive(pid)).toBe(true); // the service is not in the command's process group

    const follow = await runZuno(['goal', 'show', goalId, '--follow'], {
      home,
      env: { ...SERVICE, CI_DELAY_SECONDS: '20' },
      timeoutMs: 300_000,
    });
    expect({ code: follow.code, timedOut: follow.timedOut }, follow.stderr).toEqual({ code: 0, timedOut: false });
    expectNoStack(follow);
    // The running service served it: none was started again.
    expect(follow.stderr).not.toContain('starting it again');
    expect(servicePid(home)).toBe(pid);
    // Two CI runs and two status checks, each once.
    await expectGoalCompletedCiRanTwice(home, goalId, repo, calls);
  }, 600_000);

  it('the service SIGKILLed while the Goal waits on a remote observer: goal show --follow starts it again and the Goal ends as its workflow says; nothing ran twice', async () => {
    const home = serviceHome();
    const { repo, calls } = prepareGoalRepo();
    const { start, goalId } = await goalWaitingOnCi(home, repo);
    const pid = servicePid(home);
    await killTerminal(start);
    await killHard(pid);

    const follow = await runZuno(['goal', 'show', goalId, '--follow'], {
      home,
      env: { ...SERVICE, CI_DELAY_SECONDS: '20' },
      timeoutMs: 300_000,
    });
    expect({ code: follow.code, timedOut: follow.timedOut }, follow.stderr).toEqual({ code: 0, timedOut: false });
    expectNoStack(follow);
    expect(follow.stderr).toContain(`the host worker (pid ${pid}) had stopped; starting it again`);
    expect(follow.stderr).toMatch(/^started the host worker \(pid \d+\)/m);
    expect(servicePid(home)).not.toBe(pid);
    // The observer died with the service: the workflow says it was lost (it is not run again) and the Goal goes on.
    expect(follow.stderr).toMatch(/^\? background bg_\S+ lost/m);
    expect(follow.stderr).toContain(`goal ${goalId} completed`);
    // The lost CI run was not started again: two runs (the lost one and the one after the fix), two status checks.
    await expectGoalCompletedCiRanTwice(home, goalId, repo, calls);
  }, 600_000);
});

/** A seat record of `council show --json` (the fields these tests read). */
interface Seat {
  index: number;
  status: string;
  childSessionIds: string[];
  attempts: unknown[];
}
interface CouncilJson {
  id: string;
  status: string;
  seats: Seat[];
}

/** The demo/council-review script with every seat's first answer held back `delayMs`: the seats are at work that long. */
function slowSeatsScript(delayMs: number): string {
  const script = JSON.parse(readFileSync(join(COUNCIL_DEMO, 'script.json'), 'utf8')) as {
    threads: { match: string; replies: Record<string, unknown>[] }[];
  };
  for (const t of script.threads)
    if (t.match.includes('· attempt 1/')) t.replies[0] = { ...t.replies[0], fault: { delayMs } };
  return writeJson(tempDir('zuno-outlive-script-'), 'slow-seats.json', script);
}

/** `council show <id> --json`. */
async function councilRow(home: string, id: string): Promise<CouncilJson> {
  const r = await runZuno(['council', 'show', id, '--json'], { home, env: SERVICE });
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as CouncilJson;
}

/** Starts the demo Council (seats slowed) served by the service; resolves once all its seats run. */
async function councilWithSeatsRunning(home: string): Promise<{ run: Running; runId: string }> {
  const repo = execFileSync(
    process.execPath,
    [join(COUNCIL_DEMO, 'prepare.mjs'), join(tempDir('zuno-outlive-'), 'repo')],
    { encoding: 'utf8' },
  ).trim();
  const run = startZuno(
    [
      'council',
      'run',
      'Review the last commit',
      '--diff',
      'HEAD~1..HEAD',
      '--dir',
      repo,
      '--script',
      slowSeatsScript(30_000),
    ],
    home,
    SERVICE,
  );
  let runId = '';
  await vi.waitFor(
    () => {
      runId = /council (cr_[a-z0-9]+) started/.exec(run.stderr())?.[1] ?? '';
      expect(runId, run.stderr()).not.toBe('');
    },
    { timeout: 240_000, interval: 200 },
  );
  await vi.waitFor(
    async () => {
      const row = await councilRow(home, runId);
      expect(row.seats.map((s) => [s.status, s.childSessionIds.length])).toEqual([
        ['running', 1],
        ['running', 1],
        ['running', 1],
      ]);
    },
    { timeout: 120_000, interval: 500 },
  );
  return { run, runId };
}

/** The workflow ids of a Council and of every seat child it started. */
function councilWorkflowIds(row: CouncilJson): string[] {
  return [councilWorkflowId(row.id), ...row.seats.flatMap((s) => s.childSessionIds.map(sessionWorkflowId))];
}

/**
 * Which of `ids` Temporal's visibility lists as running (`temporal workflow list --query "ExecutionStatus='Running'"`);
 * each id must name a workflow Temporal knows (so an empty answer is not a typo's).
 */
async function runningOf(ids: string[]): Promise<string[]> {
  for (const id of ids) await temporal.client.workflow.getHandle(id).describe();
  const found: string[] = [];
  for await (const w of temporal.client.workflow.list({ query: "ExecutionStatus='Running'" }))
    if (ids.includes(w.workflowId)) found.push(w.workflowId);
  return found;
}

/** The tool calls recorded for `sessionIds` in the home's SQLite projection. */
function toolCallsOf(
  home: string,
  sessionIds: string[],
): { sessionId: string; callId: string; tool: string; outcome: string | null }[] {
  const db = new Database(join(home, 'zuno.db'), { readonly: true, fileMustExist: true });
  try {
    const rows = db.prepare('SELECT "sessionId", "callId", "tool", "outcome" FROM "tool_calls"').all() as {
      sessionId: string;
      callId: string;
      tool: string;
      outcome: string | null;
    }[];
    return rows.filter((r) => sessionIds.includes(r.sessionId));
  } finally {
    db.close();
  }
}

describe('a Council outlives the terminal that started it', () => {
  it('council run SIGKILLed while its seats run: council show --follow exits 0 with the table; nothing of it runs on', async () => {
    const home = serviceHome();
    const { run, runId } = await councilWithSeatsRunning(home);
    const pid = servicePid(home);
    await killTerminal(run);
    expect(pidAlive(pid)).toBe(true);

    const follow = await runZuno(['council', 'show', runId, '--follow'], { home, env: SERVICE, timeoutMs: 300_000 });
    expect({ code: follow.code, timedOut: follow.timedOut }, follow.stderr).toEqual({ code: 0, timedOut: false });
    expectNoStack(follow);
    expect(follow.stderr).not.toContain('starting it again');
    expect(follow.stdout).toContain('succeeded · 3/3 valid reports (quorum 2)');
    expect(follow.stdout).toMatch(/3\/3\s+tests-review\s+2\s+completed\s+valid/);
    expect(follow.stdout).toContain('shell injection in `archiveExport()`');
    const row = await councilRow(home, runId);
    expect(row.status).toBe('succeeded');
    const ids = councilWorkflowIds(row);
    expect(ids.length).toBeGreaterThanOrEqual(5); // the Council, three seats, the retried seat's second attempt
    await vi.waitFor(async () => expect(await runningOf(ids)).toEqual([]), { timeout: 60_000, interval: 1_000 });
  }, 600_000);

  it('the service SIGKILLed while the seats run: council show --follow starts it again and the Council completes; no call ran twice', async () => {
    const home = serviceHome();
    const { run, runId } = await councilWithSeatsRunning(home);
    const pid = servicePid(home);
    await killTerminal(run);
    await killHard(pid);

    const follow = await runZuno(['council', 'show', runId, '--follow'], { home, env: SERVICE, timeoutMs: 400_000 });
    expect({ code: follow.code, timedOut: follow.timedOut }, follow.stderr).toEqual({ code: 0, timedOut: false });
    expectNoStack(follow);
    expect(follow.stderr).toContain(`the host worker (pid ${pid}) had stopped; starting it again`);
    expect(follow.stderr).toMatch(/^started the host worker \(pid \d+\)/m);
    expect(servicePid(home)).not.toBe(pid);
    expect(follow.stdout).toContain('succeeded · 3/3 valid reports (quorum 2)');
    const row = await councilRow(home, runId);
    expect(row.status).toBe('succeeded');
    // The seats' roles only read (read, glob, grep: replay Safe), so a seat has no `Never` call to lose; each call
    // the seats made is recorded once, ok — the model steps cut off by the kill were asked again, not their tools.
    const calls = toolCallsOf(
      home,
      row.seats.flatMap((s) => s.childSessionIds),
    );
    expect(calls.length).toBeGreaterThanOrEqual(3);
    for (const c of calls) expect(['read', 'glob', 'grep']).toContain(c.tool);
    expect(calls.map((c) => c.outcome)).toEqual(calls.map(() => 'ok'));
    const keys = calls.map((c) => `${c.sessionId}/${c.callId}`);
    expect(new Set(keys).size).toBe(keys.length);
    const ids = councilWorkflowIds(row);
    await vi.waitFor(async () => expect(await runningOf(ids)).toEqual([]), { timeout: 60_000, interval: 1_000 });
  }, 600_000);
});
