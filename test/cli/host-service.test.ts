/**
 * Issue 25 items 1-3: work outlives the terminal that started it. Every
 * command here runs with the host worker service (ZUNO_WORKER=service, the
 * default for users): killing the starting command with SIGKILL, or the
 * service itself, never strands a session; `zuno session follow` from a new
 * process shows the work to its end; a `Never` call (shell) runs at most
 * once; a route of a per-process worker (`--in-process`, the shape before
 * the service) whose command died is adopted by the service and its session
 * finishes; the provider key reaches the service through the home's 0600
 * credentials file and never the workflow history.
 */
import { type ChildProcess } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startLocalProvider } from '../../local-provider/server.js';
import { pidAlive } from '../../worker/process-info.js';
import { waitFor } from '../helpers/worker-process.js';
import {
  expectNoStack,
  expectNoStackInAnyRun,
  makeHome,
  makeWorkspace,
  markerLines,
  runZuno,
  tempDir,
  useTestTemporal,
  writeJson,
  type ZunoResult,
} from './helpers.js';

const temporal = useTestTemporal();
const SERVICE = { ZUNO_WORKER: 'service' };
const homes: string[] = [];

/** A fresh home on the suite's dev server whose commands use the host worker service; stopped after the file. */
function serviceHome(): string {
  const { home } = makeHome({ address: temporal.address, versioned: true });
  homes.push(home);
  return home;
}

afterAll(async () => {
  for (const home of homes) {
    await runZuno(['worker', 'stop'], { home, timeoutMs: 60_000 });
    const pid = workerPid(home);
    if (pid !== null && pidAlive(pid)) process.kill(pid, 'SIGKILL');
  }
}, 180_000);

/** The pid the home's worker record names, or null. */
function workerPid(home: string): number | null {
  try {
    return (JSON.parse(readFileSync(join(home, 'worker.json'), 'utf8')) as { pid: number }).pid;
  } catch {
    return null;
  }
}

/** A script whose first reply runs `sleep <s>` then appends a line to `marker.txt` (a `Never` call), then answers. */
function slowShellScript(dir: string, seconds: number): string {
  return writeJson(dir, 'slow-shell.json', {
    replies: [
      { toolCalls: [{ name: 'shell', arguments: { command: `sleep ${seconds}; echo ran >> marker.txt` } }] },
      { text: 'All done.' },
    ],
  });
}

/** Starts `zuno <args>` and resolves with the child and its session id once stderr names the session and `until` appears. */
async function startAndWatch(
  args: string[],
  home: string,
  until: RegExp,
  env: Record<string, string> = SERVICE,
): Promise<{ child: ChildProcess; sessionId: string; done: Promise<ZunoResult> }> {
  let child: ChildProcess | undefined;
  let stderr = '';
  const done = runZuno(args, {
    home,
    env,
    timeoutMs: 240_000,
    onSpawn: (c) => {
      child = c;
      c.stderr!.on('data', (d: Buffer | string) => (stderr += String(d)));
    },
  });
  const sessionId = await waitFor(
    async () => {
      const id = /session (ses_[a-z0-9]+) started/.exec(stderr)?.[1];
      return id && until.test(stderr) ? id : undefined;
    },
    180_000,
    `zuno ${args[0]} to reach ${until}`,
  );
  return { child: child!, sessionId, done };
}

/** SIGKILLs a `zuno` command's whole process group (the command and anything it spawned in it). */
function killGroup(child: ChildProcess): void {
  try {
    process.kill(-child.pid!, 'SIGKILL');
  } catch {
    // gone already
  }
}

describe('the host worker service', () => {
  it('a SIGKILLed `zuno run` leaves its session running; `session follow` shows it to the end, the shell call ran once', async () => {
    const home = serviceHome();
    const ws = makeWorkspace();
    const script = slowShellScript(tempDir('zuno-svc-script-'), 4);
    const run = await startAndWatch(['run', 'run the slow thing', '--dir', ws, '--script', script], home, /→ shell:/);
    killGroup(run.child);
    const killed = await run.done;
    expect(killed.signal).toBe('SIGKILL');
    const servicePid = workerPid(home)!;
    expect(pidAlive(servicePid)).toBe(true); // the service is not in the command's process group

    const follow = await runZuno(['session', 'follow', run.sessionId], { home, env: SERVICE, timeoutMs: 120_000 });
    expect(follow.code, follow.stderr).toBe(0);
    expect(follow.stdout).toContain('All done.');
    expect(follow.stderr).toMatch(/✓ shell ok, exit 0/);
    expectNoStack(follow);
    expect(markerLines(ws)).toBe(1);

    const status = await runZuno(['worker', 'status', '--json'], { home, env: SERVICE });
    expect(status.code, status.stderr).toBe(0);
    const rec = JSON.parse(status.stdout) as Record<string, unknown>;
    expect(rec).toMatchObject({ running: true, pid: servicePid, service: true, host: expect.any(String) });
    expect(typeof rec.readyAtMs).toBe('number');
    const human = await runZuno(['worker', 'status'], { home, env: SERVICE });
    expect(human.stdout).toContain(`running (pid ${servicePid}, service)`);
    expect(human.stdout).toContain('sessions served:');
  }, 300_000);

  it('the service SIGKILLed mid call: the following `zuno run` restarts it, says so, and the session ends honestly (no call twice)', async () => {
    const home = serviceHome();
    const ws = makeWorkspace();
    const script = slowShellScript(tempDir('zuno-svc-script-'), 6);
    const run = await startAndWatch(['run', 'run the slow thing', '--dir', ws, '--script', script], home, /→ shell:/);
    const first = workerPid(home)!;
    process.kill(first, 'SIGKILL');
    // The run is a client: it notices that the worker it relies on is gone and starts it again.
    const r = await run.done;
    expect(r.stderr).toContain(`the host worker (pid ${first}) had stopped`);
    expect(r.stderr).toContain('started the host worker');
    expect(workerPid(home)).not.toBe(first);
    // The shell call (replay Never) was lost with its worker: recorded uncertain, never run again.
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('All done.');
    expect(r.stderr).toMatch(/shell uncertain/);
    expectNoStack(r);
    expect(markerLines(ws)).toBeLessThanOrEqual(1);
    // A new terminal shows the same end.
    const follow = await runZuno(['session', 'follow', run.sessionId], { home, env: SERVICE, timeoutMs: 120_000 });
    expect(follow.code, follow.stderr).toBe(0);
    expect(follow.stdout).toContain('All done.');
  }, 400_000);

  it('a route of a per-process worker whose command died is adopted by the service, and its session finishes', async () => {
    const home = serviceHome();
    const ws = makeWorkspace();
    const script = slowShellScript(tempDir('zuno-svc-script-'), 3);
    // The shape before the service: `zuno run` serves its session on a queue of its own.
    const run = await startAndWatch(
      ['run', 'run the slow thing', '--dir', ws, '--script', script, '--in-process'],
      home,
      /→ shell:/,
      {},
    );
    killGroup(run.child);
    await run.done;
    const start = await runZuno(['worker', 'start'], { home, env: SERVICE, timeoutMs: 120_000 });
    expect(start.code, start.stderr).toBe(0);
    const follow = await runZuno(['session', 'follow', run.sessionId], { home, env: SERVICE, timeoutMs: 180_000 });
    expect(follow.code, follow.stderr).toBe(0);
    expect(follow.stdout).toContain('All done.');
    expect(markerLines(ws)).toBeLessThanOrEqual(1);
    const log = await runZuno(['worker', 'logs', '-n', '200'], { home, env: SERVICE });
    expect(log.stdout).toMatch(new RegExp(`serving \\S+/session/${run.sessionId}: the process that served it is gone`));
  }, 400_000);

  it('a parent `zuno run` SIGKILLed while its background delegation runs: the child reports and the parent finishes', async () => {
    const home = serviceHome();
    const ws = makeWorkspace();
    const task = {
      name: 'task',
      arguments: {
        agent: 'explore',
        objective: 'Explore in the background',
        deliverable: 'file and line',
        instructions: 'read only',
        success_evidence: 'a file:line that exists',
        background: true,
      },
    };
    const script = writeJson(tempDir('zuno-svc-script-'), 'bg-task.json', {
      replies: [
        { toolCalls: [task] },
        { text: 'Started the exploration; I will report when it is back.' },
        { text: 'The background exploration found the TODO.' },
      ],
      threads: [
        {
          match: 'Explore in the background',
          // The child's model answers slowly: it is at work when the parent's command dies.
          replies: [{ fault: { delayMs: 4000 }, text: 'TODO at src/a.ts:1.' }],
        },
      ],
    });
    const run = await startAndWatch(['run', 'explore', '--dir', ws, '--script', script], home, /task explore/);
    killGroup(run.child);
    await run.done;
    const follow = await runZuno(['session', 'follow', run.sessionId], { home, env: SERVICE, timeoutMs: 180_000 });
    expect(follow.code, follow.stderr).toBe(0);
    expect(follow.stdout).toContain('The background exploration found the TODO.');
    expectNoStack(follow);
  }, 400_000);

  it("hands the provider key to the service in a 0600 file, never in Temporal's history", async () => {
    const key = `sk-test-${Date.now().toString(36)}`;
    const provider = await startLocalProvider({ script: { apiKey: key, replies: [{ text: 'Keyed answer.' }] } });
    try {
      const home = serviceHome();
      const ws = makeWorkspace();
      const config = writeJson(tempDir('zuno-svc-config-'), 'zuno.json', {
        model: 'keyed/m1',
        providers: { keyed: { base_url: provider.url, api_key_env: 'KEYED_TEST_API_KEY' } },
      });
      // No key anywhere: refused before anything starts.
      const refused = await runZuno(['run', 'hi', '--dir', ws, '--config', config], { home, env: SERVICE });
      expect(refused.stderr).toContain('api_key_missing');
      // The service runs without the key in its own environment ...
      const start = await runZuno(['worker', 'start', '--json'], { home, env: SERVICE, timeoutMs: 120_000 });
      expect(JSON.parse(start.stdout)).toMatchObject({ running: true, keyNames: [] });
      // ... and gets it from the command that has it.
      const ok = await runZuno(['run', 'hi', '--dir', ws, '--config', config], {
        home,
        env: { ...SERVICE, KEYED_TEST_API_KEY: key },
        timeoutMs: 180_000,
      });
      expect(ok.code, ok.stderr).toBe(0);
      expect(ok.stdout).toContain('Keyed answer.');
      const file = join(home, 'credentials.json');
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ KEYED_TEST_API_KEY: key });
      expect(provider.requestHeaders[0]!.authorization).toBe(`Bearer ${key}`);
      const id = /session (ses_[a-z0-9]+) started/.exec(ok.stderr)![1]!;
      const history = await temporal.client.workflow.getHandle(`session/${id}`).fetchHistory();
      expect(JSON.stringify(history)).not.toContain(key);
      // A second run without the key in its shell is served with the stored one.
      const again = await runZuno(['run', 'hi again', '--dir', ws, '--config', config], {
        home,
        env: SERVICE,
        timeoutMs: 180_000,
      });
      expect(again.code, again.stderr).toBe(0);
    } finally {
      await provider.close();
    }
  }, 300_000);

  it('worker unit prints a systemd user unit; worker logs and stop work; status says when it is not running', async () => {
    const home = serviceHome();
    const unit = await runZuno(['worker', 'unit'], { home, env: SERVICE });
    expect(unit.code).toBe(0);
    expect(unit.stdout).toContain('[Service]');
    expect(unit.stdout).toMatch(/ExecStart=\S+ \S+zuno\.mjs worker run\n/);
    expect(unit.stdout).toContain(`Environment=ZUNO_HOME=${home}`);
    const before = await runZuno(['worker', 'status'], { home, env: SERVICE });
    expect(before.code).toBe(3);
    expect(before.stdout).toContain('is not running');
    const start = await runZuno(['worker', 'start', '--json'], { home, env: SERVICE, timeoutMs: 120_000 });
    expect(start.code, start.stderr).toBe(0);
    expect(JSON.parse(start.stdout)).toMatchObject({ running: true, service: true });
    const logs = await runZuno(['worker', 'logs'], { home, env: SERVICE });
    expect(logs.stdout).toContain('polling task queue');
    // Every line of the service's log says when it was written.
    expect(logs.stdout).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z zuno worker \d+ polling task queue/m);
    const stop = await runZuno(['worker', 'stop'], { home, env: SERVICE, timeoutMs: 60_000 });
    expect(stop.stdout).toContain('stopped the host worker');
    const after = await runZuno(['worker', 'status'], { home, env: SERVICE });
    expect(after.code).toBe(3);
  }, 200_000);

  it('no run of this file (killed ones included) printed `unexpected error` or a stack frame', () => {
    expect(expectNoStackInAnyRun()).toBeGreaterThan(10);
  });
});
