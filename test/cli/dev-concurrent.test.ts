/**
 * Issue 25 item 4: many commands starting the embedded dev server at once in
 * one fresh ZUNO_HOME (5 `zuno dev up` + 5 `zuno run` with no
 * TEMPORAL_ADDRESS) end with exactly one Temporal server for the home's db
 * file, every command succeeds, and `dev-server.json` names that server's
 * real pid. The runs use the host worker service as users do (item 1): they
 * also end with exactly one service. Free ports, never 7233.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pidAlive } from '../../worker/dev-server.js';
import { freePort } from '../helpers/dev-server.js';
import { makeHome, makeWorkspace, runZuno, tempDir, writeJson } from './helpers.js';

let home: string;
let dbFile: string;

/** Live host worker services of the home `h` (`zuno worker run --service` with ZUNO_HOME=h), from /proc. */
function servicesOf(h: string): number[] {
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const argv = readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0');
      if (!argv.includes('--service') || !argv.includes('worker')) continue;
      const env = readFileSync(`/proc/${name}/environ`, 'utf8').split('\0');
      if (env.includes(`ZUNO_HOME=${h}`) && pidAlive(Number(name))) pids.push(Number(name));
    } catch {
      continue;
    }
  }
  return pids;
}

/** Live `temporal server start-dev` processes on this db file, from /proc (independent of the product's scan). */
function serversOn(db: string): number[] {
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let argv: string[];
    try {
      argv = readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0');
    } catch {
      continue;
    }
    const i = argv.indexOf('--db-filename');
    if (argv.includes('start-dev') && i >= 0 && argv[i + 1] === db && pidAlive(Number(name))) pids.push(Number(name));
  }
  return pids;
}

beforeAll(async () => {
  const port = await freePort();
  let uiPort = await freePort();
  while (uiPort === port) uiPort = await freePort();
  ({ home } = makeHome({
    temporalYaml: ['server:', '  mode: dev', 'dev:', `  port: ${port}`, `  uiPort: ${uiPort}`, ''].join('\n'),
  }));
  dbFile = join(home, 'temporal.db');
});

afterAll(async () => {
  if (!home) return;
  await runZuno(['worker', 'stop'], { home, timeoutMs: 60_000 });
  for (const pid of servicesOf(home)) process.kill(pid, 'SIGKILL');
  await runZuno(['dev', 'down'], { home, timeoutMs: 60_000 });
  // Safety net: any server these commands started for this home, by pid.
  for (const pid of serversOn(dbFile)) process.kill(pid, 'SIGKILL');
}, 90_000);

describe('concurrent commands starting the embedded dev server in one home', () => {
  it('5 dev up + 5 run at once: one server, all succeed, the record names its pid; dev down stops it', async () => {
    const scriptDir = tempDir('zuno-cli-script-');
    const runs = Array.from({ length: 5 }, (_, i) => {
      const script = writeJson(scriptDir, `script-${i}.json`, { replies: [{ text: `run ${i} ok` }] });
      return runZuno(['run', 'say ok', '--dir', makeWorkspace(), '--script', script], {
        home,
        env: { ZUNO_WORKER: 'service' },
        timeoutMs: 240_000,
      });
    });
    const ups = Array.from({ length: 5 }, () => runZuno(['dev', 'up'], { home, timeoutMs: 240_000 }));
    const [upResults, runResults] = await Promise.all([Promise.all(ups), Promise.all(runs)]);

    for (const r of upResults) {
      expect({ code: r.code, timedOut: r.timedOut }, r.stderr).toEqual({ code: 0, timedOut: false });
      expect(r.stdout).toMatch(/^Temporal dev server 127\.0\.0\.1:\d+ \((started|already running)\)\n/);
    }
    runResults.forEach((r, i) => {
      expect({ code: r.code, timedOut: r.timedOut }, r.stderr).toEqual({ code: 0, timedOut: false });
      expect(r.stdout).toBe(`run ${i} ok\n`);
    });
    const startedBy = [...upResults, ...runResults].filter(
      (r) => r.stdout.includes('(started)') || r.stderr.startsWith('started Temporal dev server'),
    );
    expect(startedBy).toHaveLength(1);

    const servers = serversOn(dbFile);
    expect(servers).toHaveLength(1);
    const state = JSON.parse(readFileSync(join(home, 'dev-server.json'), 'utf8')) as { pid: number; dbFile: string };
    expect(state).toMatchObject({ pid: servers[0], dbFile });

    // One host worker service served all five runs; exactly one of them started it.
    const services = servicesOf(home);
    expect(services).toHaveLength(1);
    const worker = JSON.parse(readFileSync(join(home, 'worker.json'), 'utf8')) as { pid: number; service: boolean };
    expect(worker).toMatchObject({ pid: services[0], service: true });
    expect(runResults.filter((r) => r.stderr.includes('started the host worker'))).toHaveLength(1);
    const stop = await runZuno(['worker', 'stop'], { home, timeoutMs: 60_000 });
    expect(stop.code, stop.stderr).toBe(0);
    expect(servicesOf(home)).toEqual([]);

    const status = await runZuno(['dev', 'status'], { home });
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toMatch(new RegExp(`^running pid ${servers[0]} at `));

    const down = await runZuno(['dev', 'down'], { home, timeoutMs: 60_000 });
    expect(down.code, down.stderr).toBe(0);
    expect(down.stdout).toBe('stopped the Temporal dev server\n');
    expect(serversOn(dbFile)).toEqual([]);
  }, 400_000);
});
